"""Melds on the table: sets and runs, lay-offs, and their point values.

- A **set** is 3+ cards of one rank; with ``set_distinct_suits`` the (declared) suits all differ,
  so at most 4; otherwise at most as many as the decks hold of that rank (4 per deck).
- A **run** is 3+ cards of one suit in sequence, no card twice. A run is kept as its ``start``
  position and its cards low to high: position ``p`` holds rank ``(p - 1) % 13 + 1``, so start 1
  is an ace-low run (A-2-3) and Q-K-A is start 12 with the ace at position 14. Without
  ``run_wraps`` a run lies within positions 1..14 (never K-A-2); with it, any arc of at most 13
  cards. An ace scores ``low`` only when it is the first card of its run (start 1).
- A 13-card run could start at the ace or end at it; the engine puts the ace high (start 2).
  A lay-off keeps the cards already down where they are and, when the new cards could go at
  either end, puts them at the high end first.
- Jokers carry the card they were declared as for the rest of the hand. ``min_naturals`` counts
  the natural cards of the whole meld, lay-offs included.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .cards import Card

Played = tuple[Card, Card]  # (physical card, card it stands for)


class MeldError(ValueError):
    """Why some cards do not make (or extend) a meld."""


@dataclass(frozen=True, slots=True)
class TableCard:
    """A card on the table: the physical ``card``, what it ``stands`` for, and the seat that put it
    down (``by``)."""

    card: Card
    stands: Card
    by: int


@dataclass(frozen=True, slots=True)
class Meld:
    """A meld on the table. ``start`` is the run's first position (0 for a set)."""

    id: int
    kind: str
    cards: tuple[TableCard, ...]
    start: int = 0

    @property
    def suit(self) -> str:
        """The suit of a run (or of a set's first card)."""
        return self.cards[0].stands.suit

    @property
    def end(self) -> int:
        """The last position of a run."""
        return self.start + len(self.cards) - 1


def rank_at(position: int) -> int:
    """The rank at a run position: 1..13 and 14 (ace high), wrapping with ``run_wraps``.

    >>> rank_at(1), rank_at(13), rank_at(14), rank_at(15)
    (1, 13, 1, 2)
    """
    return (position - 1) % 13 + 1


def run_start(ranks: Sequence[int], wraps: bool) -> int | None:
    """The start position of a run made of distinct ``ranks``, or None.

    >>> run_start([12, 13, 1], False), run_start([1, 2, 3], False), run_start([13, 1, 2], False)
    (12, 1, None)
    >>> run_start([13, 1, 2], True)
    13
    """
    n = len(ranks)
    present = set(ranks)
    if len(present) != n or n > 13 or n == 0:
        return None
    if n == 13:
        return 2
    if wraps:
        starts = [r for r in present if rank_at(r - 1) not in present]
        return starts[0] if len(starts) == 1 else None
    high = [14 if r == 1 else r for r in present]
    for values in (sorted(present), sorted(high)):
        if values[-1] - values[0] == n - 1:
            return values[0]
    return None


def _check_naturals(cards: Sequence[Played], min_naturals: int) -> None:
    naturals = sum(1 for card, _ in cards if card.rank)
    if naturals < min_naturals:
        raise MeldError(f"a meld needs at least {min_naturals} natural card(s)")


def _check_set(stands: Sequence[Card], distinct: bool, max_size: int) -> None:
    if len({c.rank for c in stands}) != 1:
        raise MeldError("a set is cards of one rank")
    if distinct and len({c.suit for c in stands}) != len(stands):
        raise MeldError("the suits of a set must all differ")
    if len(stands) > max_size:
        raise MeldError(f"a set has at most {max_size} cards")


def build_meld(
    cards: Sequence[Played],
    by: int,
    meld_id: int,
    *,
    wraps: bool,
    distinct: bool,
    max_set: int,
    min_naturals: int,
) -> Meld:
    """A new meld from ``cards`` (physical, stands-for pairs).

    >>> from games.engine.cards import parse_played
    >>> m = build_meld([parse_played(t) for t in ("8S", "*6S", "7S")], 0, 1, wraps=False,
    ...                distinct=True, max_set=4, min_naturals=1)
    >>> m.kind, [str(c.stands) for c in m.cards]
    ('run', ['6S', '7S', '8S'])

    :raises MeldError: the cards make no valid meld.
    """
    if len(cards) < 3:
        raise MeldError("a meld needs at least 3 cards")
    _check_naturals(cards, min_naturals)
    stands = [s for _, s in cards]
    if len({c.rank for c in stands}) == 1:
        _check_set(stands, distinct, max_set)
        return Meld(meld_id, "set", tuple(TableCard(c, s, by) for c, s in cards))
    if len({c.suit for c in stands}) != 1:
        raise MeldError("a run is cards of one suit in sequence; a set is cards of one rank")
    ranks = [c.rank for c in stands]
    start = run_start(ranks, wraps)
    if start is None:
        wrap = not wraps and 1 in ranks and 13 in ranks and 2 in ranks
        raise MeldError("the cards are not in sequence" + (" (K-A-2 is no run)" if wrap else ""))
    return Meld(meld_id, "run", _ordered(start, [TableCard(c, s, by) for c, s in cards]), start)


def _ordered(start: int, cards: list[TableCard]) -> tuple[TableCard, ...]:
    return tuple(sorted(cards, key=lambda t: (t.stands.rank - start) % 13))


def extend_meld(
    meld: Meld,
    cards: Sequence[Played],
    by: int,
    *,
    wraps: bool,
    distinct: bool,
    max_set: int,
    min_naturals: int,
) -> Meld:
    """``meld`` with ``cards`` laid off on it (either end of a run, or added to a set).

    :raises MeldError: the result is not a valid meld.
    """
    if not cards:
        raise MeldError("a lay-off needs at least one card")
    new = [TableCard(c, s, by) for c, s in cards]
    allc = [(t.card, t.stands) for t in meld.cards] + list(cards)
    _check_naturals(allc, min_naturals)
    if meld.kind == "set":
        _check_set([s for _, s in allc], distinct, max_set)
        return Meld(meld.id, "set", meld.cards + tuple(new))
    start = _extended_start(meld, [s for _, s in cards], wraps)
    return Meld(meld.id, "run", _ordered(start, [*meld.cards, *new]), start)


def _extended_start(meld: Meld, stands: Sequence[Card], wraps: bool) -> int:
    if any(s.suit != meld.suit for s in stands):
        raise MeldError(f"only {meld.suit} cards extend this run")
    ranks = {t.stands.rank for t in meld.cards}
    added = {s.rank for s in stands}
    if len(added) != len(stands) or ranks & added:
        raise MeldError("a run holds each card once")
    total = len(ranks) + len(added)
    if total <= 13:
        for below in range(len(added) + 1):
            start = meld.start - below
            span = {rank_at(p) for p in range(start, start + total)}
            if span == ranks | added and (wraps or (start >= 1 and start + total - 1 <= 14)):
                return rank_at(start) if wraps else start
    raise MeldError("the cards do not extend the run at either end")


def run_from_listing(stands: Sequence[Card], wraps: bool) -> int | None:
    """The start of a run listed low to high as ``stands``, or None if it is not one."""
    if len(stands) < 3 or len(stands) > 13 or len({c.suit for c in stands}) != 1:
        return None
    start = stands[0].rank
    for i, card in enumerate(stands):
        if rank_at(start + i) != card.rank:
            return None
    if not wraps and start + len(stands) - 1 > 14:
        return None
    return start
