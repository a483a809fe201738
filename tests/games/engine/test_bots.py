"""Bots: legal play under every preset, strength ordering, the skill knob, reproducibility."""

from collections.abc import Callable
from dataclasses import replace

import pytest

from games.engine import (
    PRESETS,
    Action,
    Card,
    Discard,
    Draw,
    GameState,
    Layoff,
    MeldAction,
    Rules,
    Rummy,
    Transition,
    apply,
    full_state,
    legal_actions,
    parse_card,
)
from games.engine.bots import (
    Bot,
    GameTooLong,
    GreedyBot,
    RandomBot,
    hand_seed,
    next_move,
    play_game,
)
from games.engine.search import single_layoffs

Build = Callable[..., GameState]

Log = list[tuple[str, Action]]


def recorder(log: Log):
    def on_action(before: GameState, player: str, action: Action, t: Transition) -> None:
        log.append((player, action))

    return on_action


def checker(log: Log):
    """Record every action and assert it was among the legal actions of the state it was made in."""

    def on_action(before: GameState, player: str, action: Action, t: Transition) -> None:
        assert action in legal_actions(before, player), (player, action)
        log.append((player, action))

    return on_action


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_greedy_plays_legal_moves_and_finishes_every_table_size(preset: str) -> None:
    # A lower target keeps the run short; every turn, pickup and end-of-hand path is still played.
    rules = replace(PRESETS[preset], target=100)
    for players in range(2, 9):
        bots = {f"p{i}": GreedyBot(seed=players * 10 + i) for i in range(players)}
        log: Log = []
        end = play_game(rules, bots, seed=f"{preset}:{players}", on_action=checker(log))
        assert end.phase == "game_over"
        assert end.winner is not None
        assert max(p.score for p in end.players) >= 100
        assert any(isinstance(a, MeldAction) for _, a in log)


def test_greedy_finishes_a_full_game_to_500() -> None:
    bots = {n: GreedyBot(seed=i) for i, n in enumerate(["ann", "bob", "cid", "dee"])}
    end = play_game(Rules(), bots, seed=500)
    assert end.phase == "game_over"
    assert end.players[end.winner or 0].score >= 500
    assert len(end.hands) >= 2


def test_greedy_beats_random_by_a_clear_margin() -> None:
    wins = 0
    for seed in range(16):
        greedy, rand = GreedyBot(seed=seed), RandomBot(seed=seed)
        bots: dict[str, Bot] = {"greedy": greedy, "random": rand}
        if seed % 2:
            bots = {"random": rand, "greedy": greedy}
        end = play_game(Rules(target=200), bots, seed=seed)
        wins += end.names[end.winner or 0] == "greedy"
    assert wins >= 15


def test_higher_skill_wins_more_often() -> None:
    wins = 0
    for seed in range(20):
        strong, weak = GreedyBot(seed, skill=0.9), GreedyBot(seed + 100, skill=0.2)
        bots = {"strong": strong, "weak": weak} if seed % 2 else {"weak": weak, "strong": strong}
        end = play_game(Rules(target=200), bots, seed=seed)
        wins += end.names[end.winner or 0] == "strong"
    assert wins >= 14


def _game_log(rules: Rules, bots: dict[str, Bot], seed: int) -> tuple[Log, dict[str, object]]:
    log: Log = []
    end = play_game(rules, bots, seed=seed, on_action=recorder(log))
    return log, full_state(end)


@pytest.mark.parametrize("preset", ["standard", "strict-club"])
def test_skill_one_plays_exactly_as_greedy(preset: str) -> None:
    rules = replace(PRESETS[preset], target=200)
    mixed = _game_log(rules, {"a": GreedyBot(3, skill=1.0), "b": GreedyBot(4, skill=1.0)}, 7)
    pure = _game_log(rules, {"a": GreedyBot(3), "b": GreedyBot(4)}, 7)
    assert mixed == pure


@pytest.mark.parametrize("preset", ["standard", "strict-club"])
def test_skill_zero_plays_exactly_as_random(preset: str) -> None:
    # The random seat is paired with a greedy one so that the game ends.
    rules = replace(PRESETS[preset], target=200)
    mixed = _game_log(rules, {"r": GreedyBot(5, skill=0.0), "g": GreedyBot(6)}, 11)
    pure = _game_log(rules, {"r": RandomBot(5), "g": GreedyBot(6)}, 11)
    assert mixed == pure


def test_same_seed_same_game_and_another_seed_another_game() -> None:
    def game(seed: int) -> dict[str, object]:
        bots = {"a": GreedyBot(1, skill=0.7), "b": RandomBot(2), "c": GreedyBot(3)}
        return full_state(play_game(Rules(target=150), bots, seed=seed))

    assert game(9) == game(9)
    assert game(9) != game(10)


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_greedy_never_discards_a_card_extending_a_table_meld_when_it_has_another(
    preset: str,
) -> None:
    rules = replace(PRESETS[preset], target=150)
    checked = 0

    def check(before: GameState, player: str, action: Action, t: Transition) -> None:
        nonlocal checked
        if player != "greedy" or not isinstance(action, Discard):
            return
        checked += 1
        options = [a.card for a in legal_actions(before, player) if isinstance(a, Discard)]

        def feeds(card: Card) -> bool:
            return any(single_layoffs([card], before.melds, before.rules, before.decks))

        if feeds(action.card):
            assert all(feeds(c) for c in options), (action, options)

    for seed in range(3):
        bots = {"greedy": GreedyBot(seed), "mixed": GreedyBot(seed + 1, skill=0.5)}
        play_game(rules, bots, seed=seed, on_action=check)
    assert checked > 20


def test_rank_discards_puts_table_extenders_and_the_next_players_pickups_last(
    make: Build,
) -> None:
    state = make(
        {"ann": ["9H", "KC", "3D", "7S"], "bob": ["2S", "4S", "6S", "QD"]},
        phase="play",
        stock=["2H", "10C"],
        discard=["4H"],
        melds=[
            {
                "id": 1,
                "kind": "run",
                "cards": [{"card": c, "by": "bob"} for c in ["6H", "7H", "8H"]],
            }
        ],
    )
    bot = GreedyBot()
    cards = [parse_card(t) for t in ["9H", "KC", "3D", "7S"]]
    # Dead cards, costliest first; 9H extends the table run, so it goes last.
    assert [str(c) for c in bot.rank_discards(state, "ann", cards)] == ["KC", "7S", "3D", "9H"]
    # bob took 7D and 7C from the pile earlier this hand: 7S would complete his set.
    before = make(
        {"ann": ["9H", "KC", "3D", "7S"], "bob": ["2S", "4S", "6S", "QD"]},
        turn="bob",
        stock=["2H", "10C"],
        discard=["5C", "7D", "7C"],
    )
    bot.observe(before, "bob", Draw("discard", 2), before)
    assert [str(c) for c in bot.rank_discards(state, "ann", cards)] == ["KC", "3D", "9H", "7S"]


def test_greedy_takes_the_top_discard_that_completes_a_meld(make: Build) -> None:
    state = make({"ann": ["8S", "9S", "2D", "KC"], "bob": ["3H"]}, discard=["4C", "10S"])
    assert GreedyBot().choose(state, "ann") == Draw("discard", 1)


def test_greedy_draws_from_the_stock_when_the_pile_does_not_help(make: Build) -> None:
    state = make({"ann": ["8S", "9S", "2D", "KC"], "bob": ["3H"]}, discard=["4C", "5H"])
    assert GreedyBot().choose(state, "ann") == Draw("stock")


def test_greedy_takes_a_deep_pickup_only_when_it_pays(make: Build) -> None:
    pays = make({"ann": ["QH", "KH", "2D"], "bob": ["3H"]}, discard=["5C", "AH", "3S"])
    assert GreedyBot().choose(pays, "ann") == Draw("discard", 2)
    costly = make(
        {"ann": ["2H", "3H", "9D"], "bob": ["3C"]},
        discard=["5C", "4H", "KS", "KD", "QC", "JS", "10D"],
    )
    assert GreedyBot().choose(costly, "ann") == Draw("stock")


def test_greedy_melds_the_most_valuable_meld_then_lays_off_then_goes_out(make: Build) -> None:
    state = make(
        {"ann": ["2S", "3S", "4S", "KD", "KH", "KC", "9H", "5D"], "bob": ["3H"]},
        phase="play",
        stock=["2H", "10C"],
        discard=["4H"],
        melds=[
            {
                "id": 1,
                "kind": "run",
                "cards": [{"card": c, "by": "bob"} for c in ["6H", "7H", "8H"]],
            }
        ],
    )
    bot = GreedyBot()
    played = []
    while state.phase == "play":
        action = bot.choose(state, "ann")
        played.append(action)
        state = apply(state, "ann", action).state
    assert isinstance(played[0], MeldAction)
    assert {str(c) for c, _ in played[0].cards} == {"KD", "KH", "KC"}
    assert isinstance(played[1], MeldAction)
    assert isinstance(played[2], Layoff)
    assert played[-1] == Discard(parse_card("5D"))
    assert state.phase in ("hand_over", "game_over")
    assert state.hands[-1].went_out == 0


def test_greedy_melds_the_required_card_first(make: Build) -> None:
    state = make(
        {"ann": ["QH", "KH", "AH", "5S", "6S", "7S", "9C"], "bob": ["3H"]},
        phase="play",
        required="AH",
        taken=["AH", "4D"],
        discard=["2C"],
    )
    action = GreedyBot().choose(state, "ann")
    assert isinstance(action, MeldAction)
    assert any(str(c) == "AH" for c, _ in action.cards)


def _claim_state(make: Build) -> GameState:
    return make(
        {"ann": ["2C", "4C"], "bob": ["3H", "JS"], "cid": ["KS", "5D"]},
        turn="bob",
        discard=["4D", "9H"],
        last_discard_by="ann",
        stock=["2H", "10C"],
        rules={"preset": "strict-club"},
        melds=[
            {
                "id": 1,
                "kind": "run",
                "cards": [{"card": c, "by": "ann"} for c in ["6H", "7H", "8H"]],
            }
        ],
    )


def test_greedy_claims_rummy_when_offered_and_the_driver_asks_in_seat_order(make: Build) -> None:
    state = _claim_state(make)
    claim = GreedyBot().claim(state, "cid")
    assert isinstance(claim, Rummy)
    assert claim.count == 1
    assert GreedyBot().claim(state, "ann") is None
    player, action = next_move(state, {"ann": RandomBot(), "bob": GreedyBot(), "cid": GreedyBot()})
    assert (player, isinstance(action, Rummy)) == ("bob", True)


def test_random_bot_sometimes_claims_and_sometimes_passes(make: Build) -> None:
    state = _claim_state(make)
    answers = {RandomBot(seed).claim(state, "cid") is None for seed in range(20)}
    assert answers == {True, False}


def test_a_mover_with_no_claim_is_asked_to_choose(make: Build) -> None:
    state = make(
        {"ann": ["2C", "4C"], "bob": ["3H", "JS"]}, turn="bob", discard=["4D", "9H"], stock=["2H"]
    )
    player, action = next_move(state, {"ann": GreedyBot(), "bob": GreedyBot()})
    assert player == "bob"
    assert action in legal_actions(state, "bob")


def test_play_game_raises_instead_of_looping_forever() -> None:
    bots = {"a": RandomBot(1), "b": RandomBot(2)}
    with pytest.raises(GameTooLong):
        play_game(Rules(), bots, seed=1, max_actions=50)


def test_hands_are_dealt_with_derived_seeds() -> None:
    bots = {"a": GreedyBot(1), "b": GreedyBot(2)}
    seeds: set[str] = set()

    def on_action(before: GameState, player: str, action: Action, t: Transition) -> None:
        seeds.add(before.seed)

    end = play_game(Rules(target=150), bots, seed="x", on_action=on_action)
    assert seeds == {hand_seed("x", h) for h in range(1, end.hand_number + 1)}


def test_skill_must_be_a_probability() -> None:
    with pytest.raises(ValueError, match="skill"):
        GreedyBot(skill=-0.1)
