"""Round robin: everyone meets everyone.

Two-player tables: the circle method. Players stand in seed order; the first stays and the rest
rotate one place each round; the ``i``-th from the front plays the ``i``-th from the back. An odd
field adds a dummy and whoever meets it has the round's bye (every player gets exactly one bye
per cycle, so a bye scores nothing). ``N - 1`` rounds for an even field, ``N`` for an odd one.

Tables of 3 to 8 seats: there is no circle method. Schedules where every pair meets exactly once
(Kirkman's schoolgirls) exist only for special field sizes, so the schedule here guarantees
instead that every two players share a table at least once, and then the event ends. Each round
splits the field into balanced tables (``common.table_sizes``) and fills them greedily: the
player with the most players still to meet (then the better seed) opens a table, and each seat
goes to the first player, in that same order, who has met nobody at the table, or failing that to
whoever has met the fewest there. Then ``seating.swap_pass`` swaps players between tables up to
``SWAP_WINDOW`` apart while that seats fewer pairs who have met; seats at a table go by seed.
The first table always meets a new pair (swaps only add new pairs), so every round does and the
event ends. The tests measure its rounds against the lower bound ``ceil((N - 1) / (largest
table - 1))``: 9 players at tables of 3 take 4 rounds, the bound; 40 at tables of 4 take 17
against 13, 24 at tables of 6 take 8 against 5 (the worst case measured, 1.6 times).

``double_round`` plays the whole schedule twice (the second cycle with the seats of each
two-player table swapped; at multi-seat tables the same tables again). Standings: points (a win
1, a tie half; at multi-seat tables the placement points), then at two seats Sonneborn-Berger,
then game points.

Players who have left (``gone``) keep the schedule but play none of their remaining games.
Two seats: their pairs are left out of the circle's rounds (their opponent sits the round out,
listed with the byes and scoring nothing), and a round with no game left is skipped. Multi-seat
tables: the first cycle's rounds are drawn as above over the players still in (balanced tables;
``common.seat_sizes`` when their leaving makes the field one the balanced split cannot seat), and
the cycle ends once every two players still in have shared a table; the second cycle's tables
lose the players who have left, a table left with fewer than two is dropped (its player sits
out) and a round with no table left is skipped. With fewer than two players still in, the event
ends. Which round of the schedule comes next is read from the history: each round played took the
first round of the schedule, after the one before it, that had a game without the players who
had left by then (those it neither seated nor listed with the byes). Results so far count.

>>> [[t.players for t in circle_round([1, 2, 3, 4], r)] for r in range(3)]
[[(1, 4), (2, 3)], [(1, 3), (4, 2)], [(1, 2), (3, 4)]]
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from .base import Entrant, PlayedRound, RoundPlan, Seating, Settings
from .common import (
    check_duel,
    check_gone,
    check_history,
    check_multi_seat,
    check_placement_points,
    field_by_id,
    seat_sizes,
)
from .seating import swap_pass
from .tally import Tally, TallyFormat

#: How many tables either way a swap looks: every table in a field of up to 33 tables (132
#: players at four seats), and a bounded cost per player in bigger fields.
SWAP_WINDOW = 16


def circle_round(players: Sequence[int | None], index: int) -> list[Seating]:
    """Round ``index`` (from 0) of the circle method over an even list, ``None`` being the dummy;
    a pair with the dummy is left out.

    >>> [t.players for t in circle_round([1, 2, 3, None], 0)]
    [(2, 3)]
    """
    m = len(players)
    rest = list(players[1:])
    shift = index % (m - 1)
    arranged = [players[0], *rest[m - 1 - shift :], *rest[: m - 1 - shift]]
    pairs = [(arranged[i], arranged[m - 1 - i]) for i in range(m // 2)]
    return [
        Seating((a, b), f"T{n}")
        for n, (a, b) in enumerate(pairs, 1)
        if a is not None and b is not None
    ]


#: The games of the schedule's round at an index without the players in a set.
Games = Callable[[int, frozenset[int]], list[Seating]]


def present(plan: RoundPlan) -> set[int]:
    """Everyone a round seated or gave a bye: the players still in when it was planned."""
    return {p for t in plan.tables for p in t.players} | set(plan.byes)


def next_index(
    played: Sequence[PlayedRound],
    order: Sequence[int],
    gone: frozenset[int],
    end: int,
    games: Games,
) -> int:
    """The schedule index of the round after ``played`` (``end`` once past the schedule): each
    round took the first index after the one before it with a game left without the players
    who had left when it was planned; the next one, without ``gone``.

    >>> def pair(index: int, left: frozenset[int]) -> list[Seating]:
    ...     return [] if left else [Seating((1, 2))]
    >>> [next_index([], [1, 2], frozenset(gone), 3, pair) for gone in ({}, {2})]
    [0, 3]
    """
    index = -1
    everyone = frozenset(order)
    for left in [*(everyone - present(done.plan) for done in played), gone]:
        if not left:  # nobody left out: every round of the schedule has its games
            index = min(index + 1, end)
        else:
            index = next((i for i in range(index + 1, end) if games(i, left)), end)
    return index


def without(tables: Sequence[Seating], left: frozenset[int]) -> list[Seating]:
    """``tables`` without the players in ``left``; a table left with fewer than two is dropped.

    >>> [t.players for t in without([Seating((1, 2, 3)), Seating((4, 5))], frozenset({2, 4}))]
    [(1, 3)]
    """
    kept = (Seating(tuple(p for p in t.players if p not in left), t.key) for t in tables)
    return [t for t in kept if len(t.players) >= 2]


def _plan(
    number: int, tables: list[Seating], order: Sequence[int], gone: frozenset[int]
) -> RoundPlan:
    """Round ``number``: ``tables``, and whoever still in they do not seat sits out."""
    seated = {p for t in tables for p in t.players}
    byes = tuple(p for p in order if p not in seated and p not in gone)
    return RoundPlan(number, f"Round {number}", tuple(tables), byes)


def _circle_plan(
    order: list[int], played: Sequence[PlayedRound], settings: Settings, gone: frozenset[int]
) -> RoundPlan | None:
    players: list[int | None] = [*order, None] if len(order) % 2 else list(order)
    cycle = len(players) - 1

    def games(index: int, left: frozenset[int]) -> list[Seating]:
        tables = circle_round(players, index % cycle)
        if index >= cycle:
            tables = [Seating(t.players[::-1], t.key) for t in tables]
        return [t for t in tables if left.isdisjoint(t.players)]

    end = cycle * (2 if settings.double_round else 1)
    index = next_index(played, order, gone, end, games)
    if index == end:
        return None
    return _plan(len(played) + 1, games(index, gone), order, gone)


def cover_round(
    order: list[int], sizes: Sequence[int], met: dict[int, set[int]]
) -> list[list[int]]:
    """Greedy tables of ``sizes`` meeting as many new pairs as it finds (see the module);
    ``order`` lists the players most-to-meet first.

    >>> cover_round([1, 2, 3, 4, 5, 6], [3, 3], {1: {2}, 2: {1}, 3: set(), 4: set(),
    ...                                          5: set(), 6: set()})
    [[1, 3, 4], [2, 5, 6]]
    """
    free = list(order)
    tables = []
    for size in sizes:
        table = [free.pop(0)]
        while len(table) < size:
            best, best_new = 0, -1
            for i, candidate in enumerate(free):
                new = sum(1 for p in table if candidate not in met[p])
                if new > best_new:
                    best, best_new = i, new
                if new == len(table):
                    break
            table.append(free.pop(best))
        tables.append(table)
    return tables


def _first_cycle(
    played: Sequence[PlayedRound], order: Sequence[int], gone: frozenset[int]
) -> tuple[int, dict[int, set[int]]]:
    """The round that ended the first cycle (0: not yet), and who has sat with whom. A round ends
    it once every two players still in when the round after it was planned (everyone now, after
    the last one) have shared a table."""
    met: dict[int, set[int]] = {p: set() for p in order}
    cycle = 0
    for number, done in enumerate(played, 1):
        for table in done.plan.tables:
            for p in table.players:
                met[p].update(q for q in table.players if q != p)
        if not cycle:
            later = present(played[number].plan) if number < len(played) else set(order) - gone
            if all(len(met[p] & later) == len(later) - 1 for p in later):
                cycle = number
    return cycle, met


def _cover_plan(
    entrants: Sequence[Entrant],
    played: Sequence[PlayedRound],
    settings: Settings,
    gone: frozenset[int],
) -> RoundPlan | None:
    number = len(played) + 1
    seed = {e.id: e.seed for e in entrants}
    order = sorted(seed, key=seed.__getitem__)
    cycle, met = _first_cycle(played, order, gone)
    if cycle:
        if not settings.double_round:
            return None
        first = played[:cycle]

        def games(index: int, left: frozenset[int]) -> list[Seating]:
            return without(first[index].plan.tables, left)

        index = next_index(played[cycle:], order, gone, cycle, games)
        return None if index == cycle else _plan(number, games(index, gone), order, gone)
    still_in = {p for p in order if p not in gone}
    by_need = sorted(still_in, key=lambda p: (len(met[p] & still_in), seed[p]))
    tables = cover_round(by_need, seat_sizes(len(by_need), settings), met)
    swap_pass(tables, met, SWAP_WINDOW)
    seats = tuple(
        Seating(tuple(sorted(t, key=seed.__getitem__)), f"T{n}") for n, t in enumerate(tables, 1)
    )
    return RoundPlan(number, f"Round {number}", seats)


class RoundRobin(TallyFormat):
    """The ``round_robin`` format (see the module)."""

    slug = "round_robin"
    name = "Round robin"

    def check(self, entrants: int, settings: Settings) -> None:
        """:raises FormatError: fewer than 2 players, a bad table size or smallest table, or a
        field the balanced split cannot seat."""
        if settings.table_size == 2:
            check_duel(entrants, settings, self.name)
        else:
            check_multi_seat(entrants, settings, self.name)
            check_placement_points(settings)

    def next_round(
        self,
        entrants: Sequence[Entrant],
        played: Sequence[PlayedRound],
        settings: Settings,
        *,
        gone: frozenset[int] = frozenset(),
    ) -> RoundPlan | None:
        """The schedule's next round without the players who have left, or ``None`` once it is
        complete or fewer than two players are still in (see the module).

        :raises FormatError: a bad field, settings or history, or ``gone`` not entrants.
        """
        ids = field_by_id(entrants)
        check_history(played, ids)
        check_gone(gone, ids)
        self.check(len(entrants), settings)
        if len(entrants) - len(gone) < 2:
            return None
        if settings.table_size > 2:
            return _cover_plan(entrants, played, settings, gone)
        order = [e.id for e in sorted(entrants, key=lambda e: e.seed)]
        return _circle_plan(order, played, settings, gone)

    def _tiebreaks(self, t: Tally, entrant: int, settings: Settings) -> dict[str, float]:
        """Sonneborn-Berger (two seats only), then game points."""
        if settings.table_size == 2:
            return {
                "sonneborn_berger": t.sonneborn_berger(entrant),
                "game_points": t.game_points[entrant],
            }
        return {"game_points": t.game_points[entrant]}
