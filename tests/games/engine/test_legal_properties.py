"""``legal_actions`` agrees with ``apply`` over random positions (hypothesis).

Positions are reached by random play (biased toward melds and lay-offs, so that the table fills)
under random presets and house rules. At each sampled position:

- soundness: every action ``legal_actions`` lists, for any seated player, is accepted by ``apply``;
- completeness: every candidate built here independently of the engine's search (each draw, each
  discard of a held card, each meld from 3 or 4 cards of the hand with every joker declared as
  every card it could stand for, each one-card lay-off on each table meld) that ``apply`` accepts
  is listed, up to the bounds docs/engine-decisions.md ("Suggestions") and legal.py document:
  melds with no natural card, and melds where a joker stands for a natural card the player holds,
  are not listed (melds are compared as sets of cards, in any order);
- liveness: the player to move always has an action.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from itertools import combinations, product
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.engine import (
    PRESETS,
    Action,
    Discard,
    Draw,
    EngineError,
    GameState,
    Layoff,
    MeldAction,
    Rules,
    apply,
    legal_actions,
    new_game,
)
from games.engine.cards import JOKER, NATURALS, SUITS, Card, card_of

PROPS = settings(
    max_examples=40,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)

house_rules = st.fixed_dictionaries(
    {
        "preset": st.sampled_from(sorted(PRESETS)),
        "target": st.just(10_000),
    },
    optional={
        "set_distinct_suits": st.booleans(),
        "run_wraps": st.booleans(),
        "min_naturals": st.integers(0, 2),
        "no_rediscard_top": st.booleans(),
        "must_discard_to_go_out": st.booleans(),
        "top_discard_must_meld": st.booleans(),
        "deep_pickup_new_meld": st.booleans(),
        "rummy_call": st.booleans(),
        "stock_out": st.sampled_from(["end", "reshuffle"]),
        "jokers_per_deck": st.integers(0, 2),
        "two_decks_from": st.sampled_from([2, 3, 5, 9]),
        "hand_size": st.integers(5, 10),
        "hand_size_two": st.integers(7, 13),
    },
)

positions = st.tuples(st.integers(0, 10**6), st.integers(2, 4), house_rules)


def accepted(state: GameState, player: str, action: Action) -> bool:
    try:
        apply(state, player, action)
    except EngineError:
        return False
    return True


def key(action: Action) -> Any:
    """An action up to the order of its cards (a meld's cards may be listed in any order)."""
    if isinstance(action, MeldAction):
        return ("meld", tuple(sorted((c.index, s.index) for c, s in action.cards)))
    if isinstance(action, Layoff):
        return ("layoff", action.meld, tuple(sorted((c.index, s.index) for c, s in action.cards)))
    return action


def declarations(naturals: list[Card]) -> list[Card]:
    """Every card a joker could stand for next to ``naturals``: any card of their ranks (a set)
    or of their suits (a run); with no natural card, any card."""
    if not naturals:
        return list(NATURALS)
    ranks = {c.rank for c in naturals}
    suits = {c.suit for c in naturals}
    out = {card_of(r, s) for r in ranks for s in SUITS}
    out |= {card_of(r, s) for s in suits for r in range(1, 14)}
    return sorted(out, key=lambda c: c.index)


def meld_candidates(hand: tuple[Card, ...]) -> Iterator[MeldAction]:
    """Every 3- and 4-card meld attempt from ``hand`` (duplicates once), jokers declared as every
    card they could stand for. Cards of two ranks and two suits make no meld whatever the jokers
    are, so such groups are skipped."""
    seen: set[tuple[Card, ...]] = set()
    for size in (3, 4):
        for group in combinations(sorted(hand, key=lambda c: c.index), size):
            if group in seen:
                continue
            seen.add(group)
            naturals = [c for c in group if c.rank]
            if len({c.rank for c in naturals}) > 1 and len({c.suit for c in naturals}) > 1:
                continue
            jokers = len(group) - len(naturals)
            options = declarations(naturals)
            for declared in product(options, repeat=jokers):
                yield MeldAction(
                    tuple((c, c) for c in naturals) + tuple((JOKER, d) for d in declared)
                )


def hidden_by_documented_bound(action: MeldAction, hand: tuple[Card, ...]) -> bool:
    """Melds legal_actions deliberately leaves out: no natural card, or a joker standing for a
    natural card the player holds."""
    naturals = [c for c, _ in action.cards if c.rank]
    if not naturals:
        return True
    return any(c.rank == 0 and s in hand for c, s in action.cards)


def layoff_candidates(state: GameState, hand: tuple[Card, ...]) -> Iterator[Layoff]:
    for meld in state.melds:
        for card in set(hand):
            if card.rank:
                yield Layoff(meld.id, ((card, card),))
            else:
                for d in NATURALS:
                    yield Layoff(meld.id, ((JOKER, d),))


def candidates(state: GameState, seat: int) -> Iterator[Action]:
    hand = state.players[seat].hand
    if state.phase == "draw":
        yield Draw("stock")
        for count in range(1, len(state.discard) + 1):
            yield Draw("discard", count)
        return
    for card in set(hand):
        yield Discard(card)
    for meld in meld_candidates(hand):
        if not hidden_by_documented_bound(meld, hand):
            yield meld
    yield from layoff_candidates(state, hand)


def play_to_position(seed: int, n: int, rules_dict: dict[str, Any]) -> list[GameState]:
    """Positions of one random hand (every state reached while a player is to move)."""
    rules = Rules.from_dict(rules_dict)
    rng = random.Random(seed)
    state = new_game(rules, [f"p{i}" for i in range(n)], seed=str(seed))
    seen = [state]
    for _ in range(400):
        if state.phase not in ("draw", "play"):
            break
        mover = state.players[state.turn or 0].name
        who = mover
        if rules.rummy_call and rng.random() < 0.3:
            who = rng.choice(state.names)
        acts = legal_actions(state, who) or legal_actions(state, mover)
        if not legal_actions(state, who):
            who = mover
        plays = [a for a in acts if isinstance(a, MeldAction | Layoff)]
        action = rng.choice(plays) if plays and rng.random() < 0.6 else rng.choice(acts)
        state = apply(state, who, action).state
        seen.append(state)
    return seen


def sample(seen: list[GameState], seed: int) -> list[GameState]:
    """A few positions of the hand: the first ones (jokers still in hand), the last ones (a fuller
    table) and some random others."""
    live = [s for s in seen if s.phase in ("draw", "play")]
    rng = random.Random(seed)
    picked = live[:3] + live[-4:] + rng.sample(live, min(5, len(live)))
    return list(dict.fromkeys(picked))


@PROPS
@given(positions)
def test_every_listed_action_is_accepted(args: tuple[int, int, dict[str, Any]]) -> None:
    seed, n, rules = args
    for state in sample(play_to_position(seed, n, rules), seed):
        for player in state.names:
            for action in legal_actions(state, player):
                assert accepted(state, player, action), (player, action, state)
                if isinstance(action, MeldAction):  # the documented bound: a natural card
                    assert any(c.rank for c, _ in action.cards), action


@PROPS
@given(positions)
def test_every_accepted_candidate_is_listed(args: tuple[int, int, dict[str, Any]]) -> None:
    seed, n, rules = args
    for state in sample(play_to_position(seed, n, rules), seed):
        seat = state.turn
        assert seat is not None
        player = state.names[seat]
        listed = {key(a) for a in legal_actions(state, player)}
        for action in candidates(state, seat):
            if accepted(state, player, action):
                assert key(action) in listed, (action, state)


@PROPS
@given(positions)
def test_the_player_to_move_always_has_an_action(args: tuple[int, int, dict[str, Any]]) -> None:
    seed, n, rules = args
    for state in play_to_position(seed, n, rules):
        if state.phase in ("draw", "play"):
            assert state.turn is not None
            assert legal_actions(state, state.names[state.turn]), state
        else:
            assert all(not legal_actions(state, p) for p in state.names)
