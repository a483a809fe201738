"""Card values, hand scoring and the end of the game.

- ``pip``: 2-10 face value, J Q K 10, ace 15, an ace melded low in a run ``low_ace``.
- ``five_ten``: 2-9 count 5, 10 J Q K 10, ace 15, low ace 5 (``low_ace`` ignored).
- ``low5_high10``: 2-5 count 5, 6-9 count 10, 10 J Q K 10, ace 15, low ace 15 (``low_ace`` ignored).
- A joker counts 15 everywhere, whatever it stands for; an ace in hand always 15.
- Game end: after a hand, if a total reaches ``target`` and one player leads alone, they win; a tie
  for the lead plays on. With ``winner_must_go_out`` only a hand whose player who went out reaches
  ``target`` ends the game, and that player wins.
- Places: by total, highest first; equal totals share a place (``placements``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import lru_cache

from .cards import Card
from .melds import Meld
from .rules import Rules
from .state import Ended, GameState, HandResult, Phase, Score


@lru_cache(maxsize=64)
def value_table(values: str, low_ace: int) -> tuple[tuple[int, ...], int]:
    """``(values by rank 0..13 with 0 the joker, low-ace value)`` for a value table.

    >>> value_table("five_ten", 1)[1], value_table("pip", 1)[0][10]
    (5, 10)
    """
    if values == "pip":
        table = [15, 15, *range(2, 11), 10, 10, 10]
        return tuple(table), low_ace
    if values == "five_ten":
        return (15, 15, *([5] * 8), 10, 10, 10, 10), 5
    return (15, 15, *([5] * 4), *([10] * 4), 10, 10, 10, 10), 15


def card_value(rules: Rules, card: Card) -> int:
    """What a card costs in hand (ace and joker 15).

    >>> card_value(Rules(), Card(1, "S")), card_value(Rules(values="five_ten"), Card(9, "S"))
    (15, 5)
    """
    return value_table(rules.values, rules.low_ace)[0][card.rank]


def hand_value(rules: Rules, hand: tuple[Card, ...]) -> int:
    """The cost of the cards left in a hand.

    >>> from games.engine.cards import parse_card
    >>> hand_value(Rules(), tuple(map(parse_card, ["AS", "*", "7D"])))
    37
    """
    table = value_table(rules.values, rules.low_ace)[0]
    return sum(table[c.rank] for c in hand)


def meld_points(rules: Rules, meld: Meld) -> dict[int, int]:
    """Points each seat earns from ``meld``: a run's first card, if an ace, scores low.

    >>> from games.engine.cards import parse_played
    >>> from games.engine.melds import build_meld
    >>> def m(*t):
    ...     cards = [parse_played(x) for x in t]
    ...     return build_meld(cards, 0, 1, wraps=False, distinct=True, max_set=4, min_naturals=1)
    >>> meld_points(Rules(), m("AH", "2H", "3H")), meld_points(Rules(), m("QH", "KH", "AH"))
    ({0: 6}, {0: 35})
    """
    table, low = value_table(rules.values, rules.low_ace)
    out: dict[int, int] = {}
    for i, tc in enumerate(meld.cards):
        if tc.card.rank == 1 and meld.kind == "run" and i == 0 and meld.start == 1:
            value = low
        else:
            value = table[tc.card.rank]
        out[tc.by] = out.get(tc.by, 0) + value
    return out


def hand_scores(state: GameState) -> tuple[Score, ...]:
    """Each seat's ``melded`` and ``in_hand`` for the hand being played."""
    melded = [0] * len(state.players)
    for meld in state.melds:
        for seat, points in meld_points(state.rules, meld).items():
            melded[seat] += points
    return tuple(
        Score(melded[i], hand_value(state.rules, p.hand)) for i, p in enumerate(state.players)
    )


@dataclass(frozen=True, slots=True)
class Placement:
    """A player's place at the end: 1 is best, and equal totals share a place."""

    player: str
    place: int
    score: int


def placements(totals: Sequence[tuple[str, int]]) -> list[Placement]:
    """Players by total, highest first; equal totals share a place (1, 1, 3), in the order
    given (seat order) among themselves. The one rule of places, wherever a game is placed:
    a game over (the views), a table's result (``games``) and a game entered face to face.

    >>> [(p.player, p.place) for p in placements([("ann", 60), ("bob", 80), ("cid", 60)])]
    [('bob', 1), ('ann', 2), ('cid', 2)]
    >>> [p.place for p in placements([("ann", 5), ("bob", 5), ("cid", 5), ("dan", -2)])]
    [1, 1, 1, 4]
    """
    order = sorted(totals, key=lambda t: -t[1])  # stable: seat order among equal totals
    out: list[Placement] = []
    for i, (player, score) in enumerate(order):
        place = out[-1].place if out and out[-1].score == score else i + 1
        out.append(Placement(player, place, score))
    return out


def game_placements(state: GameState) -> list[Placement]:
    """``placements`` of the players' totals in ``state``."""
    return placements([(p.name, p.score) for p in state.players])


def winner_after(state: GameState, went_out: int | None) -> int | None:
    """The winner once the totals in ``state`` are final for a hand, or None to play on."""
    rules, scores = state.rules, [p.score for p in state.players]
    if rules.winner_must_go_out:
        if went_out is not None and scores[went_out] >= rules.target:
            return went_out
        return None
    best = max(scores)
    if best < rules.target or scores.count(best) > 1:
        return None
    return scores.index(best)


def end_hand(state: GameState, went_out: int | None) -> GameState:
    """Score the hand, add the nets to the totals, and decide whether the game is over."""
    scores = hand_scores(state)
    players = tuple(
        replace(p, score=p.score + s.net) for p, s in zip(state.players, scores, strict=True)
    )
    result = HandResult(state.hand_number, went_out, scores)
    done = state.evolve(
        players=players,
        hands=(*state.hands, result),
        turn=None,
        phase=Phase.HAND_OVER,
        required=None,
        drawn=None,
        taken=(),
        last_discard_by=None,
        claimed=False,
    )
    winner = winner_after(done, went_out)
    if winner is None:
        return done
    return done.evolve(phase=Phase.GAME_OVER, winner=winner, ended=Ended.TARGET)
