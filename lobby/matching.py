"""Quick play's matching: which waiting players of one pool sit down together. Pure Python.

A pool seats ``seats`` players per table. Each waiter has a rating and a time waited; their
*window* (``window``) is how far apart in rating a table they sit at may be, and it widens the
longer they wait, until after ``WIDEST_AFTER`` seconds it has no limit. A group of ``seats``
waiters is *acceptable* when the spread of its ratings (highest minus lowest) is within the
window of at least one of them: whoever has waited longest vouches for the table, so a long
wait always ends once enough players are there.

``match`` forms tables closest ratings first: among every acceptable group it takes the one of
the smallest spread, then again among those left, until no acceptable group remains. Groups
holding someone who has waited ``WIDEST_AFTER`` come before all others (closest first among
them too), so a player far from everyone's rating is not left over, wait after wait, while
newcomers fill closer tables. Sorted by
rating, an acceptable group exists exactly when some run of ``seats`` neighbours is acceptable
(the players between a group's lowest and highest are no further apart than they, and any
run of them holding the voucher is vouched for too), so only runs are considered: a heap of
runs by spread, and a linked list of who is left, make it ``O(n * seats * log n)``.

What it guarantees (tests/lobby/test_matching.py checks each with hypothesis):
- every table has exactly ``seats`` waiters, and no waiter sits at two;
- every table is acceptable;
- nobody is left when an acceptable group remains among those left, so in particular fewer
  than ``seats`` are left waiting once everyone left has waited ``WIDEST_AFTER`` seconds.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Sequence
from dataclasses import dataclass

#: The rating window of a player who has just joined: 100 points is about a 64 % expected score
#: in the Elo scale of ``ratings.elo`` (400 points per factor of ten), an even enough game.
START_WINDOW = 100.0
#: How fast a window widens: five points a second, so a minute's wait triples it.
WIDEN_PER_SECOND = 5.0
#: After this long anyone will do: a full table now beats a closer one later.
WIDEST_AFTER = 60.0


@dataclass(frozen=True, slots=True)
class Waiter:
    """One player waiting in a pool: an id of the caller's, a rating, and seconds waited."""

    id: int
    rating: float
    waited: float


def window(waited: float) -> float:
    """How far apart in rating a table may be for a player who has waited ``waited`` seconds.

    >>> window(0), window(10), window(59.9) < window(60)
    (100.0, 150.0, True)
    >>> window(60)
    inf
    """
    if waited >= WIDEST_AFTER:
        return math.inf
    return START_WINDOW + WIDEN_PER_SECOND * max(0.0, waited)


def acceptable(group: Sequence[Waiter]) -> bool:
    """Whether ``group`` may sit together: its spread within one member's window.

    >>> acceptable([Waiter(1, 1500, 0), Waiter(2, 1590, 0)])
    True
    >>> acceptable([Waiter(1, 1500, 0), Waiter(2, 1700, 0)])
    False
    >>> acceptable([Waiter(1, 1500, 0), Waiter(2, 1700, 20)])
    True
    """
    ratings = [w.rating for w in group]
    spread = max(ratings) - min(ratings)
    return spread <= max(window(w.waited) for w in group)


def match(waiters: Sequence[Waiter], seats: int) -> list[tuple[int, ...]]:
    """Tables of ``seats`` waiters' ids, closest ratings first (see the module's docstring).

    Ids must be distinct. Within a table, ids are in rating order (lowest first).

    >>> pool = [Waiter(1, 1500, 0), Waiter(2, 1900, 0), Waiter(3, 1520, 0), Waiter(4, 1880, 0)]
    >>> match(pool, 2)
    [(1, 3), (4, 2)]
    >>> match([Waiter(1, 1500, 0), Waiter(2, 1900, 0)], 2)
    []
    >>> match([Waiter(1, 1500, 0), Waiter(2, 1900, 60)], 2)
    [(1, 2)]
    >>> match([Waiter(1, 1500, 0), Waiter(2, 1510, 0), Waiter(3, 2400, 70)], 2)  # 3 waited long
    [(2, 3)]

    :raises ValueError: ``seats`` below 2, or an id given twice.
    """
    if seats < 2:
        raise ValueError("a table has at least two seats")
    if len({w.id for w in waiters}) != len(waiters):
        raise ValueError("each waiter's id must be distinct")
    order = sorted(waiters, key=lambda w: (w.rating, -w.waited, w.id))
    return _Runs(order, seats).take_all()


class _Runs:
    """The waiters left, in rating order, as a linked list, and a heap of their runs."""

    def __init__(self, order: list[Waiter], seats: int) -> None:
        self.order = order
        self.seats = seats
        n = len(order)
        self.next = list(range(1, n + 1))  # n: the end
        self.prev = list(range(-1, n - 1))  # -1: the start
        self.left = [True] * n
        self.windows = [window(w.waited) for w in order]
        self.heap: list[tuple[int, float, int, tuple[int, ...]]] = []
        for start in range(n - seats + 1):
            self._offer(tuple(range(start, start + seats)))

    def _offer(self, run: tuple[int, ...]) -> None:
        spread = self.order[run[-1]].rating - self.order[run[0]].rating
        widest = max(self.windows[i] for i in run)
        if spread <= widest:
            overdue = 0 if widest == math.inf else 1  # the longest waits go first
            heapq.heappush(self.heap, (overdue, spread, run[0], run))

    def take_all(self) -> list[tuple[int, ...]]:
        tables = []
        while self.heap:
            *_, run = heapq.heappop(self.heap)
            if not all(self.left[i] for i in run):
                continue  # a member already sits elsewhere
            self._remove(run)
            tables.append(tuple(self.order[i].id for i in run))
        return tables

    def _remove(self, run: tuple[int, ...]) -> None:
        before, after = self.prev[run[0]], self.next[run[-1]]
        for i in run:
            self.left[i] = False
        if before >= 0:
            self.next[before] = after
        if after < len(self.order):
            self.prev[after] = before
        # The runs that now span the gap: those starting up to seats - 1 places before it.
        start = before
        for _ in range(self.seats - 2):
            if start < 0 or self.prev[start] < 0:
                break
            start = self.prev[start]
        while start >= 0:
            run_now = self._run_from(start)
            if run_now is None or run_now[0] > before:
                break
            if run_now[-1] >= after:
                self._offer(run_now)
            start = self.next[start]
            if start > before:
                break

    def _run_from(self, start: int) -> tuple[int, ...] | None:
        run = [start]
        while len(run) < self.seats:
            nxt = self.next[run[-1]]
            if nxt >= len(self.order):
                return None
            run.append(nxt)
        return tuple(run)
