"""Elimination brackets: the matches, where each slot is fed from, and who won.

A bracket is a list of match specs in play order; each slot is fed by a seed, or by the winner
or the loser of an earlier match. Seeds beyond the field are byes: a match with a bye in one slot
is decided without play (the other player goes through), a match with two byes passes a bye on.
A played match's winner is the better place; when the places tie (both absent, say), the better
seed goes through.

A player who has left (``gone``) plays no more: each match of theirs not played yet is a
walkover, decided without play as soon as both its players are known, for the opponent (when
both have left, for the one seated in a later round, then the better seed, who meets the same
fate in the next match); the loser of a walkover is out or drops to the losers bracket as any
loser would. A match played before they left keeps its result. A grand final decided by a
walkover has no reset.

``Bracket`` is what the bracket page draws: every match with its two slots (the entrant once
known, and where it comes from: ``"seed 4"``, ``"bye"``, ``"winner of W1-2"``, ``"loser of
W2-1"``), its winner once decided, and the event round it was played in; a walkover is flagged.

``elimination.Elimination`` is what the two elimination formats build on these.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Literal

from .base import Entrant, FormatError, PlayedRound, TableResult

Side = Literal["winners", "losers", "final", "third"]


@dataclass(frozen=True, slots=True)
class Slot:
    """One side of a match: the entrant once known (``None`` before, and for a bye)."""

    entrant: int | None
    source: str
    bye: bool = False


@dataclass(frozen=True, slots=True)
class BracketMatch:
    """A match of the bracket. ``round`` counts within its side; ``played_in`` is the event
    round it was played in (``None`` while unplayed, and for a match decided by a bye or a
    walkover). ``walkover``: decided without play because ``loser`` had left the event."""

    key: str
    round: int
    side: Side
    slots: tuple[Slot, Slot]
    winner: int | None = None
    loser: int | None = None
    bye: bool = False
    played_in: int | None = None
    walkover: bool = False


@dataclass(frozen=True, slots=True)
class Bracket:
    """Every match of an elimination event, in play order."""

    matches: tuple[BracketMatch, ...]

    def match(self, key: str) -> BracketMatch:
        """The match called ``key``.

        :raises KeyError: no such match.
        """
        for m in self.matches:
            if m.key == key:
                return m
        raise KeyError(key)


class _Bye(Enum):
    BYE = "bye"


BYE = _Bye.BYE
Occupant = int | _Bye | None  # None: not known yet


@dataclass(frozen=True, slots=True)
class Feed:
    """Where a slot comes from: ``("seed", n)``, ``("winner", key)`` or ``("loser", key)``."""

    kind: Literal["seed", "winner", "loser"]
    seed: int = 0
    match: str = ""


@dataclass(frozen=True, slots=True)
class Spec:
    """A match to be: key, round within its side, side, feeds. ``reset_of`` names the grand
    final a reset replays: it is played only if that final's second slot won it."""

    key: str
    round: int
    side: Side
    feeds: tuple[Feed, Feed]
    reset_of: str = ""


@dataclass(slots=True)
class State:
    """A match as far as it is known."""

    occupants: tuple[Occupant, Occupant]
    winner: Occupant = None
    loser: Occupant = None
    played_in: int | None = None
    void: bool = False
    walkover: bool = False


def duel(result: TableResult, seeds: Mapping[int, int]) -> tuple[int, int]:
    """(winner, loser) of a two-player table: the better place, on a tie the better seed.

    >>> duel(TableResult((3, 8), (2, 1), (120, 510)), {3: 3, 8: 8})
    (8, 3)
    >>> duel(TableResult((3, 8), (2, 2), (0, 0)), {3: 3, 8: 8})
    (3, 8)
    """
    a, b = result.players
    pa, pb = result.places
    if pa < pb or (pa == pb and seeds[a] < seeds[b]):
        return a, b
    return b, a


def played_matches(played: Sequence[PlayedRound]) -> dict[str, tuple[int, TableResult]]:
    """Each played match's key with (event round, result)."""
    out: dict[str, tuple[int, TableResult]] = {}
    for done in played:
        for table, result in zip(done.plan.tables, done.results, strict=True):
            if table.key in out:
                raise FormatError(f"match {table.key} is played twice")
            out[table.key] = (done.plan.number, result)
    return out


def _fed(feed: Feed, states: Mapping[str, State], by_seed: Mapping[int, int]) -> Occupant:
    if feed.kind == "seed":
        return by_seed.get(feed.seed, BYE)
    state = states[feed.match]
    return state.winner if feed.kind == "winner" else state.loser


def _occupants(spec: Spec, states: Mapping[str, State], by_seed: Mapping[int, int]) -> State:
    if spec.reset_of:
        final = states[spec.reset_of]
        if final.winner is None:
            return State((None, None))
        return State(final.occupants, void=final.walkover or final.winner == final.occupants[0])
    a, b = (_fed(f, states, by_seed) for f in spec.feeds)
    return State((a, b))


def walkover(
    a: int, b: int, gone: frozenset[int], order: Mapping[int, tuple[int, int]]
) -> tuple[int, int]:
    """(winner, loser) of a match a player who has left will not play: the one still in wins.
    When both have left, the one ``order`` puts higher: the later round they were last seated
    in, then the better seed. That keeps the winner the match had while only the other had left,
    whenever it matters: the winner could play on only if seated after the other had left.

    >>> order = {3: (2, -3), 8: (1, -8)}
    >>> walkover(3, 8, frozenset({3}), order), walkover(3, 8, frozenset({3, 8}), order)
    ((8, 3), (3, 8))
    """
    if (a in gone) != (b in gone):
        return (b, a) if a in gone else (a, b)
    return (a, b) if order[a] > order[b] else (b, a)


def resolve(
    specs: Sequence[Spec],
    entrants: Sequence[Entrant],
    played: Sequence[PlayedRound],
    gone: frozenset[int] = frozenset(),
) -> dict[str, State]:
    """Every match's state given the rounds played and the players who have left.

    :raises FormatError: a played match the bracket does not have ready, or with other players.
    """
    by_seed = {e.seed: e.id for e in entrants}
    seeds = {e.id: e.seed for e in entrants}
    results = played_matches(played)
    last = {p: done.plan.number for done in played for t in done.plan.tables for p in t.players}
    order = {e.id: (last.get(e.id, 0), -e.seed) for e in entrants}
    states: dict[str, State] = {}
    for spec in specs:
        state = _occupants(spec, states, by_seed)
        a, b = state.occupants
        if state.void or a is None or b is None:
            pass
        elif a is BYE or b is BYE:
            state.winner, state.loser = (b, a) if a is BYE else (a, b)
        elif spec.key in results:
            number, result = results.pop(spec.key)
            if set(result.players) != {a, b}:
                raise FormatError(f"match {spec.key} was played by {result.players}, not {a}, {b}")
            state.winner, state.loser = duel(result, seeds)
            state.played_in = number
        elif a in gone or b in gone:
            state.winner, state.loser = walkover(a, b, gone, order)
            state.walkover = True
        states[spec.key] = state
    if results:
        raise FormatError(f"match {min(results)} is not ready in the bracket")
    return states


def ready(specs: Sequence[Spec], states: Mapping[str, State]) -> list[Spec]:
    """Matches whose two players are known and that are not decided yet, in play order."""
    out = []
    for spec in specs:
        state = states[spec.key]
        a, b = state.occupants
        if isinstance(a, int) and isinstance(b, int) and state.winner is None and not state.void:
            out.append(spec)
    return out


def _slot(feed: Feed, occupant: Occupant) -> Slot:
    entrant = occupant if isinstance(occupant, int) else None
    if feed.kind == "seed":
        source = "bye" if occupant is BYE else f"seed {feed.seed}"
    else:
        source = f"{feed.kind} of {feed.match}"
    return Slot(entrant, source, occupant is BYE)


def drawn(specs: Sequence[Spec], states: Mapping[str, State]) -> Bracket:
    """The ``Bracket`` of these states; a grand-final reset that will not be played is left out."""
    matches = []
    for spec in specs:
        s = states[spec.key]
        if s.void:
            continue
        a, b = s.occupants
        slots = (_slot(spec.feeds[0], a), _slot(spec.feeds[1], b))
        winner = s.winner if isinstance(s.winner, int) else None
        loser = s.loser if isinstance(s.loser, int) else None
        bye = s.winner is not None and s.played_in is None and not s.walkover
        matches.append(
            BracketMatch(
                spec.key, spec.round, spec.side, slots, winner, loser, bye, s.played_in, s.walkover
            )
        )
    return Bracket(tuple(matches))


def wins_and_losses(states: Mapping[str, State]) -> tuple[dict[int, int], dict[int, int]]:
    """Matches won (a bye or a walkover counting as a win) and matches lost (played, or by
    walkover), per entrant."""
    wins: dict[int, int] = {}
    losses: dict[int, int] = {}
    for s in states.values():
        if isinstance(s.winner, int):
            wins[s.winner] = wins.get(s.winner, 0) + 1
        if isinstance(s.loser, int):
            losses[s.loser] = losses.get(s.loser, 0) + 1
    return wins, losses


def seeding_order(size: int) -> list[int]:
    """Seeds in bracket order for a power-of-two ``size``: 1 meets ``size``, and the top seeds
    can only meet in the last rounds.

    >>> seeding_order(8)
    [1, 8, 4, 5, 2, 7, 3, 6]
    """
    order = [1]
    while len(order) < size:
        n = 2 * len(order)
        order = [s for seed in order for s in (seed, n + 1 - seed)]
    return order


def winners_specs(players: int, side: Side = "winners") -> list[Spec]:
    """The winners bracket for ``players`` (two or more): the next power of two, seeded by
    ``seeding_order``, byes to the top seeds. Keys ``W<round>-<match>``."""
    size = 1 << (players - 1).bit_length()
    order = seeding_order(size)
    specs = [
        Spec(f"W1-{m + 1}", 1, side, (Feed("seed", order[2 * m]), Feed("seed", order[2 * m + 1])))
        for m in range(size // 2)
    ]
    count, rnd = size // 4, 2
    while count >= 1:
        specs += [
            Spec(
                f"W{rnd}-{m}",
                rnd,
                side,
                (winner(f"W{rnd - 1}-{2 * m - 1}"), winner(f"W{rnd - 1}-{2 * m}")),
            )
            for m in range(1, count + 1)
        ]
        count, rnd = count // 2, rnd + 1
    return specs


def winner(key: str) -> Feed:
    """The feed of ``key``'s winner."""
    return Feed("winner", match=key)


def loser(key: str) -> Feed:
    """The feed of ``key``'s loser."""
    return Feed("loser", match=key)


def seated(state: State) -> tuple[int, ...]:
    """The entrants known in a match's slots."""
    return tuple(p for p in state.occupants if isinstance(p, int))
