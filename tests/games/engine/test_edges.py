"""Edge behaviour the other tests left unexercised: malformed input refused with the right error,
suggestion search under non-default house rules, and the guards of the timeout and view helpers."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from games.engine import (
    ConfigError,
    Discard,
    Draw,
    IllegalAction,
    InvalidAction,
    Layoff,
    MeldAction,
    Rules,
    StateError,
    apply,
    apply_timeout,
    deal_next_hand,
    full_state,
    legal_actions,
    new_game,
    parse_action,
    parse_card,
    parse_played,
    player_view,
    state_from_dict,
    timeout_action,
)
from games.engine.events import Event, EventType
from games.engine.melds import MeldError, build_meld, extend_meld, run_from_listing
from games.engine.search import required_play
from games.engine.state import GameState

Build = Callable[..., GameState]


def played(*texts: str) -> tuple[Any, ...]:
    return tuple(parse_played(t) for t in texts)


@pytest.mark.parametrize(
    "action",
    [
        {"type": "draw", "source": "discard", "count": 1, "card": "AS"},
        {"type": "draw", "source": "discard", "count": True},
        {"type": "draw", "source": "discard", "count": "2"},
        {"type": "draw", "source": "stock", "count": 1},
        {"type": "rummy", "count": 0, "melds": []},
        {"type": "rummy", "count": 1, "melds": {}},
        {"type": "rummy", "count": 1, "layoffs": "x"},
        {"type": "rummy", "count": 1, "melds": [["AS", "2S", "3S"]]},
        {"type": "rummy", "count": 1, "melds": [{"cards": ["AS"], "x": 1}]},
        {"type": "rummy", "count": 1, "layoffs": [["AS"]]},
        {"type": "rummy", "count": 1, "layoffs": [{"meld": 1, "cards": ["AS"], "y": 2}]},
    ],
)
def test_malformed_actions_are_bad_requests(action: dict[str, Any]) -> None:
    with pytest.raises(InvalidAction) as err:
        parse_action(action)
    assert err.value.code == "bad_request"


def base_state() -> dict[str, Any]:
    return {
        "players": [{"name": "ann", "hand": ["AS", "2S"]}, {"name": "bob", "hand": ["3S"]}],
        "turn": "ann",
        "phase": "draw",
        "stock": ["4S"],
        "discard": ["5S"],
    }


def meld_of(*cards: str, **extra: Any) -> dict[str, Any]:
    return {"id": 1, "kind": "run", "cards": [{"card": c, "by": "ann"} for c in cards], **extra}


@pytest.mark.parametrize(
    "change",
    [
        [],
        {"players": {"ann": []}},
        {"players": [{"hand": ["AS"]}, {"name": "bob", "hand": []}]},
        {"players": ["ann", "bob"]},
        {"players": [{"name": "ann", "hand": [], "colour": 1}, {"name": "bob", "hand": []}]},
        {"players": [{"name": "ann", "hand": [], "absent": 1}, {"name": "bob", "hand": []}]},
        {"players": [{"name": "ann", "hand": [], "score": "5"}, {"name": "bob", "hand": []}]},
        {"players": [{"name": "ann", "hand": [], "score": 1.5}, {"name": "bob", "hand": []}]},
        {"players": [{"name": "ann", "hand": []}, {"name": "ann", "hand": []}]},
        {"players": [{"name": "ann", "hand": "AS"}, {"name": "bob", "hand": []}]},
        {"players": [{"name": "ann", "hand": [], "timeouts": -1}, {"name": "bob", "hand": []}]},
        {"melds": {}},
        {"melds": [meld_of("7H", "8H", "9H"), meld_of("7D", "8D", "9D")]},
        {"melds": [{"id": 1, "kind": "pair", "cards": []}]},
        {"melds": ["7H"]},
        {"melds": [{"id": 1, "kind": "run", "cards": ["7H", "8H", "9H"]}]},
        {"melds": [{"id": 1, "kind": "run", "cards": {}}]},
        {
            "melds": [
                meld_of("7H", "8H", "9H") | {"cards": [{"card": "7H", "as": "7H", "by": "ann"}]}
            ]
        },
        {"melds": [meld_of("7h", "8H", "9H")]},
        {"melds": [meld_of("7H", "8H", "9H", "10H", "JH", "QH", "KH", "AH", "2H")]},
        {"melds": [meld_of("7H", "8H", "9H") | {"id": 0}]},
        {"hands": {}},
        {"hands": [{"number": 1}]},
        {
            "hands": [
                {"number": 1, "went_out": None, "scores": {"ann": {"melded": 1, "in_hand": 0}}}
            ]
        },
        {
            "hands": [
                {
                    "number": 1,
                    "went_out": None,
                    "scores": {"ann": {"melded": 1, "in_hand": 0}, "bob": {"melded": 1}},
                }
            ]
        },
        {
            "hands": [
                {
                    "number": 1,
                    "went_out": None,
                    "scores": {
                        "ann": {"melded": 1, "in_hand": 0, "net": 2},
                        "bob": {"melded": 0, "in_hand": 0},
                    },
                }
            ]
        },
        {"turn": None},
        {"phase": "draw", "required": "AS"},
        {"phase": "play", "required": "3S"},
        {"seed": 7},
        {"ended": "bored"},
        {"claimed": True},
        {"claimed": "yes", "phase": "play"},
        {"hand_number": 0},
        {"reshuffles": -1},
    ],
)
def test_inconsistent_states_are_refused(change: Any) -> None:
    d: Any = change if isinstance(change, list) else base_state() | change
    with pytest.raises(StateError):
        state_from_dict(d)


def test_a_run_listing_is_checked_low_to_high_within_the_rules() -> None:
    cards = [parse_card(t) for t in ("QH", "KH", "AH", "2H")]
    assert run_from_listing(cards, wraps=True) == 12
    assert run_from_listing(cards, wraps=False) is None
    assert run_from_listing(cards[:2], wraps=True) is None
    assert run_from_listing([*cards[:2], parse_card("AS")], wraps=True) is None


OPTS: dict[str, Any] = {"wraps": False, "distinct": False, "max_set": 4, "min_naturals": 1}


def test_a_set_never_holds_more_cards_than_allowed() -> None:
    with pytest.raises(MeldError, match="at most 4"):
        build_meld(played("7S", "7S", "7H", "7D", "7C"), 0, 1, **OPTS)
    five = build_meld(played("7S", "7S", "7H", "7D", "7C"), 0, 1, **OPTS | {"max_set": 8})
    assert len(five.cards) == 5


def test_a_layoff_needs_a_card_and_a_run_never_exceeds_thirteen() -> None:
    opts = OPTS | {"wraps": True}
    run = build_meld(
        played("2H", "3H", "4H", "5H", "6H", "7H", "8H", "9H", "10H", "JH", "QH", "KH"),
        0,
        1,
        **opts,
    )
    with pytest.raises(MeldError):
        extend_meld(run, (), 0, **opts)
    full = extend_meld(run, played("AH"), 0, **opts)
    assert [str(t.stands) for t in full.cards][-1] == "AH"
    with pytest.raises(MeldError):
        extend_meld(full, played("*AH"), 0, **opts)


def test_duplicate_cards_make_sets_without_distinct_suits(make: Build) -> None:
    rules = {"set_distinct_suits": False, "two_decks_from": 2}
    s = make({"ann": ["7S", "7S", "7H", "2C", "9D"], "bob": ["3S"]}, phase="play", rules=rules)
    melds = {
        a.to_dict()["cards"].__repr__()
        for a in legal_actions(s, "ann")
        if isinstance(a, MeldAction)
    }
    assert "['7S', '7S', '7H']" in melds
    assert (
        apply(s, "ann", {"type": "meld", "cards": ["7S", "7S", "7H"]}).state.melds[0].kind == "set"
    )
    distinct = make(
        {"ann": ["7S", "7S", "7H", "2C", "9D"], "bob": ["3S"]},
        phase="play",
        rules={"two_decks_from": 2},
    )
    assert not [a for a in legal_actions(distinct, "ann") if isinstance(a, MeldAction)]


def test_a_set_of_eight_with_two_decks_and_jokers(make: Build) -> None:
    rules = {"set_distinct_suits": False, "two_decks_from": 2}
    hand = ["7S", "7S", "7H", "7H", "7D", "7D", "*", "*", "2C"]
    s = make({"ann": hand, "bob": ["3S"]}, phase="play", rules=rules)
    sizes = {len(a.cards) for a in legal_actions(s, "ann") if isinstance(a, MeldAction)}
    assert max(sizes) == 8
    joker_sets = [
        a for a in legal_actions(s, "ann") if isinstance(a, MeldAction) and len(a.cards) == 8
    ]
    assert all(
        str(stands) in ("7S", "7H", "7D")
        for a in joker_sets
        for c, stands in a.cards
        if c.rank == 0
    )


def test_a_required_joker_is_placed_by_replacing_a_natural_card() -> None:
    pool = [parse_card(t) for t in ("*", "7S", "8S", "9S", "2D")]
    found = required_play(parse_card("*"), pool, [], Rules(), 1, layoff=True, keep_one=True)
    assert isinstance(found, MeldAction)
    assert any(c.rank == 0 for c, _ in found.cards) and len(found.cards) == 3
    alone = [parse_card(t) for t in ("*", "7S", "8S", "2D")]
    assert (
        required_play(parse_card("*"), alone[:1], [], Rules(), 1, layoff=True, keep_one=False)
        is None
    )
    assert isinstance(
        required_play(parse_card("*"), alone, [], Rules(), 1, layoff=True, keep_one=True),
        MeldAction,
    )


def test_a_pickup_layoff_must_leave_a_card_to_discard(make: Build) -> None:
    # 9H is required (top_discard_must_meld); it reaches 5-6-7H only with the 8H held, which would
    # leave no card to discard.
    melds = [
        {"id": 1, "kind": "run", "cards": [{"card": c, "by": "bob"} for c in ("5H", "6H", "7H")]}
    ]
    rules = {"top_discard_must_meld": True, "must_discard_to_go_out": True}
    s = make({"ann": ["8H"], "bob": ["3S"]}, discard=["KC", "9H"], melds=melds, rules=rules)
    with pytest.raises(IllegalAction) as err:
        apply(s, "ann", {"type": "draw", "source": "discard", "count": 1})
    assert err.value.code == "pickup_not_meldable"
    assert Draw("discard", 1) not in legal_actions(s, "ann")
    loose = make(
        {"ann": ["8H"], "bob": ["3S"]},
        discard=["KC", "9H"],
        melds=melds,
        rules={"top_discard_must_meld": True},
    )
    after = apply(loose, "ann", {"type": "draw", "source": "discard", "count": 1}).state
    assert after.required == parse_card("9H")
    out = apply(after, "ann", {"type": "layoff", "meld": 1, "cards": ["8H", "9H"]}).state
    assert out.phase in ("hand_over", "game_over") and out.hands[-1].went_out == 0


def test_a_rummy_claim_on_an_unknown_meld_is_no_rummy(make: Build) -> None:
    s = make(
        {"ann": ["2C", "3D"], "bob": ["4S", "9C"]},
        discard=["KC", "8H"],
        rules={"rummy_call": True},
        last_discard_by="ann",
        turn="bob",
    )
    with pytest.raises(IllegalAction) as err:
        apply(s, "bob", {"type": "rummy", "count": 1, "layoffs": [{"meld": 9, "cards": ["8H"]}]})
    assert err.value.code == "no_rummy"


def test_nobody_to_move_has_no_timeout_play_and_no_view_for_strangers() -> None:
    g = new_game(Rules(), ["ann", "bob"], seed="7")
    over = state_from_dict(
        {
            "players": [{"name": "ann", "hand": ["AS"]}, {"name": "bob", "hand": []}],
            "phase": "hand_over",
            "stock": [],
            "discard": ["5S"],
        }
    )
    assert timeout_action(over) == []
    with pytest.raises(ValueError):
        apply_timeout(over)
    with pytest.raises(KeyError):
        player_view(g, "zed")


def test_timeouts_play_a_pending_required_card_then_discard(make: Build) -> None:
    s = make(
        {"ann": ["7S", "8S", "9S", "KD", "QC"], "bob": ["3S"]},
        phase="play",
        required="7S",
        taken=["7S", "9S"],
    )
    acts = timeout_action(s)
    assert len(acts) == 2 and isinstance(acts[0], MeldAction) and isinstance(acts[1], Discard)
    assert acts[1].card == parse_card("KD")


def test_private_event_data_only_on_request() -> None:
    e = Event(EventType.DREW, "ann", {"source": "stock"}, {"card": "AS"})
    assert e.to_dict() == {"type": "drew", "player": "ann", "source": "stock"}
    assert e.to_dict(include_private=True)["card"] == "AS"
    assert parse_card("*").is_joker and not parse_card("AS").is_joker


@pytest.mark.parametrize(
    ("players", "deck"),
    [
        ("ann", None),
        (["ann", ""], None),
        (["ann", "ann"], None),
        (["ann", "bob"], "AS 2S"),
        (["ann", "bob"], [1, 2, 3]),
        (["ann", "bob"], ["AS"] * 2),
        (["ann", "bob"], ["AS", "2S"]),
    ],
)
def test_bad_players_and_decks_are_config_errors(players: Any, deck: Any) -> None:
    with pytest.raises(ConfigError):
        new_game(Rules(), players, deck=deck) if deck is not None else new_game(
            Rules(), players, seed="1"
        )


def test_next_hand_needs_exactly_one_source() -> None:
    over = state_from_dict(
        {
            "players": [{"name": "ann", "hand": ["AS"]}, {"name": "bob", "hand": []}],
            "phase": "hand_over",
            "stock": [],
            "discard": ["5S"],
        }
    )
    with pytest.raises(ValueError):
        deal_next_hand(over)
    with pytest.raises(ValueError):
        deal_next_hand(over, seed="1", deck=[])
    assert deal_next_hand(over, seed="1").hand_number == 2


def test_layoffs_are_listed_for_a_joker_at_each_open_place(make: Build) -> None:
    melds = [
        {"id": 1, "kind": "set", "cards": [{"card": c, "by": "bob"} for c in ("7S", "7H", "7D")]}
    ]
    s = make(
        {"ann": ["*", "2C"], "bob": ["3S"]},
        phase="play",
        melds=melds,
        rules={"set_distinct_suits": False},
    )
    layoffs = {str(a.cards[0][1]) for a in legal_actions(s, "ann") if isinstance(a, Layoff)}
    assert layoffs == {"7S", "7H", "7D", "7C"}


def test_no_rummy_window_once_the_turn_is_in_play(make: Build) -> None:
    # A window closes when the next player draws; a state in phase play has none to claim in.
    s = make(
        {"ann": ["2C", "3D"], "bob": ["4S", "9C"]},
        discard=["KC", "8H", "8D", "8S"],
        rules={"rummy_call": True},
        last_discard_by="ann",
        turn="bob",
        phase="play",
    )
    melds = [{"cards": ["8H", "8D", "8S"]}]
    with pytest.raises(IllegalAction) as err:
        apply(s, "bob", {"type": "rummy", "count": 3, "melds": melds})
    assert err.value.code == "no_rummy"
    assert not [a for a in legal_actions(s, "bob") if a.to_dict()["type"] == "rummy"]


def test_no_all_joker_meld_is_suggested_even_without_min_naturals(make: Build) -> None:
    s = make(
        {"ann": ["2S", "*", "*", "*"], "bob": ["4S"]},
        phase="play",
        rules={"min_naturals": 0, "jokers_per_deck": 2, "two_decks_from": 2},
    )
    melds = [a for a in legal_actions(s, "ann") if isinstance(a, MeldAction)]
    assert melds and all(any(c.rank for c, _ in a.cards) for a in melds)
    # An all-joker meld is still legal to play (only never suggested).
    assert apply(s, "ann", {"type": "meld", "cards": ["*9S", "*10S", "*JS"]}).state.melds


def test_four_card_sets_with_jokers_are_suggested(make: Build) -> None:
    s = make({"ann": ["7S", "7H", "*", "*", "2C"], "bob": ["4S"]}, phase="play")
    sets = [
        sorted(str(stands) for _, stands in a.cards)
        for a in legal_actions(s, "ann")
        if isinstance(a, MeldAction) and len(a.cards) == 4
    ]
    assert ["7C", "7D", "7H", "7S"] in sets
    t = make({"ann": ["7S", "7H", "7D", "*", "2C"], "bob": ["4S"]}, phase="play")
    assert MeldAction(played("7S", "7H", "7D", "*7C")) in legal_actions(t, "ann")


def test_a_required_joker_never_leaves_a_meld_short_of_min_naturals() -> None:
    pool = [parse_card(t) for t in ("*", "7S", "8S", "9S")]
    joker = parse_card("*")
    # Keeping one card, the joker can only replace a natural of 7-8-9S: two naturals are left.
    strict = Rules(min_naturals=3)
    assert required_play(joker, pool, [], strict, 1, layoff=True, keep_one=True) is None
    two = required_play(joker, pool, [], Rules(min_naturals=2), 1, layoff=True, keep_one=True)
    assert isinstance(two, MeldAction) and len(two.cards) == 3


@pytest.mark.parametrize("min_naturals", [1, 3])
def test_a_required_joker_with_a_whole_suit_replaces_a_natural_card(min_naturals: int) -> None:
    # Thirteen spades leave no place for a joker beside them: it can only stand in for one of them.
    spades = [parse_card(f"{r}S") for r in ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10")]
    pool = [parse_card("*"), *spades, *(parse_card(f"{r}S") for r in ("J", "Q", "K"))]
    rules = Rules(min_naturals=min_naturals)
    found = required_play(parse_card("*"), pool, [], rules, 1, layoff=True, keep_one=True)
    assert isinstance(found, MeldAction)
    assert any(c.rank == 0 for c, _ in found.cards)
    meld = build_meld(
        found.cards, 0, 1, wraps=False, distinct=True, max_set=4, min_naturals=min_naturals
    )
    assert meld.kind == "run"


def test_a_wrapped_layoff_below_the_ace_round_trips(make: Build) -> None:
    melds = [
        {"id": 1, "kind": "run", "cards": [{"card": c, "by": "bob"} for c in ("AH", "2H", "3H")]}
    ]
    s = make(
        {"ann": ["KH", "QH", "2C"], "bob": ["3S"]},
        phase="play",
        discard=["8C"],
        melds=melds,
        rules={"run_wraps": True},
    )
    s = apply(s, "ann", {"type": "layoff", "meld": 1, "cards": ["KH"]}).state
    assert state_from_dict(full_state(s)) == s
    s = apply(s, "ann", {"type": "layoff", "meld": 1, "cards": ["QH"]}).state
    assert [str(t.stands) for t in s.melds[0].cards] == ["QH", "KH", "AH", "2H", "3H"]
    assert state_from_dict(full_state(s)) == s


def test_a_required_card_may_reach_a_run_from_below_with_held_cards(make: Build) -> None:
    melds = [
        {"id": 1, "kind": "run", "cards": [{"card": c, "by": "bob"} for c in ("7H", "8H", "9H")]}
    ]
    s = make({"ann": ["6H", "2C"], "bob": ["3S"]}, discard=["KC", "5H", "4D"], melds=melds)
    after = apply(s, "ann", {"type": "draw", "source": "discard", "count": 2}).state
    assert after.required == parse_card("5H")
    done = apply(after, "ann", {"type": "layoff", "meld": 1, "cards": ["5H", "6H"]}).state
    assert done.required is None and len(done.melds[0].cards) == 5
