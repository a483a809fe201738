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

>>> [[t.players for t in circle_round([1, 2, 3, 4], r)] for r in range(3)]
[[(1, 4), (2, 3)], [(1, 3), (4, 2)], [(1, 2), (3, 4)]]
"""

from __future__ import annotations

from collections.abc import Sequence

from .base import Entrant, PlayedRound, RoundPlan, Seating, Settings
from .common import (
    check_duel,
    check_history,
    check_multi_seat,
    check_placement_points,
    field_by_id,
    table_sizes,
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


def _circle_plan(order: list[int], number: int, settings: Settings) -> RoundPlan | None:
    players: list[int | None] = [*order, None] if len(order) % 2 else list(order)
    cycle = len(players) - 1
    if number > cycle * (2 if settings.double_round else 1):
        return None
    tables = circle_round(players, (number - 1) % cycle)
    if number > cycle:
        tables = [Seating(t.players[::-1], t.key) for t in tables]
    seated = {p for t in tables for p in t.players}
    byes = tuple(p for p in order if p not in seated)
    return RoundPlan(number, f"Round {number}", tuple(tables), byes)


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


def _cover_plan(
    entrants: Sequence[Entrant], played: Sequence[PlayedRound], settings: Settings
) -> RoundPlan | None:
    number = len(played) + 1
    met: dict[int, set[int]] = {e.id: set() for e in entrants}
    cycle = 0
    for done in played:
        for table in done.plan.tables:
            for p in table.players:
                met[p].update(q for q in table.players if q != p)
        if not cycle and all(len(s) == len(entrants) - 1 for s in met.values()):
            cycle = done.plan.number
    if cycle:
        if not settings.double_round or number > 2 * cycle:
            return None
        return RoundPlan(number, f"Round {number}", played[number - cycle - 1].plan.tables)
    order = [e.id for e in sorted(entrants, key=lambda e: (len(met[e.id]), e.seed))]
    sizes = table_sizes(len(entrants), settings.table_size, settings.min_table)
    tables = cover_round(order, sizes, met)
    swap_pass(tables, met, SWAP_WINDOW)
    seed = {e.id: e.seed for e in entrants}
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
        self, entrants: Sequence[Entrant], played: Sequence[PlayedRound], settings: Settings
    ) -> RoundPlan | None:
        """The schedule's next round, or ``None`` once it is complete (see the module).

        :raises FormatError: a bad field, settings or history.
        """
        check_history(played, field_by_id(entrants))
        self.check(len(entrants), settings)
        if settings.table_size > 2:
            return _cover_plan(entrants, played, settings)
        order = [e.id for e in sorted(entrants, key=lambda e: e.seed)]
        return _circle_plan(order, len(played) + 1, settings)

    def _tiebreaks(self, t: Tally, entrant: int, settings: Settings) -> dict[str, float]:
        """Sonneborn-Berger (two seats only), then game points."""
        if settings.table_size == 2:
            return {
                "sonneborn_berger": t.sonneborn_berger(entrant),
                "game_points": t.game_points[entrant],
            }
        return {"game_points": t.game_points[entrant]}
