"""Improving a round's seating: swapping players between nearby tables so that fewer pairs who
have already sat together sit together again.

``swap_pass`` is a plain hill climb: for every player with a repeat table-mate it tries every
player at the tables within ``window`` tables of its own, and makes the first swap that lowers
the round's repeats. Each swap lowers them by at least one, so it stops; swaps never change a
table's size.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence


def repeats_of(player: int, table: Sequence[int], met: Mapping[int, set[int]]) -> int:
    """How many of ``table`` (``player`` aside) ``player`` has sat with before."""
    seen = met[player]
    return sum(1 for q in table if q != player and q in seen)


def _gain(p: int, q: int, tp: list[int], tq: list[int], met: Mapping[int, set[int]]) -> int:
    """Repeats removed by swapping ``p`` (at ``tp``) with ``q`` (at ``tq``)."""
    before = repeats_of(p, tp, met) + repeats_of(q, tq, met)
    after = sum(1 for x in tp if x != p and x in met[q])
    after += sum(1 for x in tq if x != q and x in met[p])
    return before - after


def _try_swap(
    tables: list[list[int]], t: int, seat: int, window: int, met: Mapping[int, set[int]]
) -> bool:
    p = tables[t][seat]
    lo, hi = max(0, t - window), min(len(tables), t + window + 1)
    for u in range(lo, hi):
        if u == t:
            continue
        for other, q in enumerate(tables[u]):
            if _gain(p, q, tables[t], tables[u], met) > 0:
                tables[t][seat], tables[u][other] = q, p
                return True
    return False


def swap_pass(tables: list[list[int]], met: Mapping[int, set[int]], window: int) -> int:
    """Swap players between tables at most ``window`` apart while a swap lowers the number of
    repeat pairs; ``tables`` is changed in place. Returns the swaps made.

    >>> tables = [[1, 2], [3, 4]]
    >>> swap_pass(tables, {1: {2}, 2: {1}, 3: set(), 4: set()}, 1), tables
    (1, [[3, 2], [1, 4]])
    """
    swaps = 0
    improved = True
    while improved:
        improved = False
        for t, table in enumerate(tables):
            for seat in range(len(table)):
                if repeats_of(table[seat], table, met) and _try_swap(tables, t, seat, window, met):
                    swaps += 1
                    improved = True
    return swaps
