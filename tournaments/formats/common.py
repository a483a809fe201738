"""Helpers every format shares: checking the field, the history and the players who left,
scoring a table, ranking with shared ranks, and splitting a field into balanced tables.

Scoring rule for every format: a table's players are sorted by place; players who tie share the
average of the scores of the positions they cover. A two-player table scores ``(1, 0)``, so a
tie is half a point each.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from itertools import pairwise

from .base import Entrant, FormatError, PlayedRound, Settings, TableResult

#: A two-player table: the winner scores 1, the loser 0, a tie half each.
DUEL_SCORES = (1, 0)


def field_by_id(entrants: Sequence[Entrant]) -> dict[int, Entrant]:
    """The entrants by id, once ids are unique and seeds are exactly 1..N.

    :raises FormatError: a repeated id, or seeds that are not 1..N.

    >>> sorted(field_by_id([Entrant(7, 2, 1500.0), Entrant(3, 1, 1600.0)]))
    [3, 7]
    """
    by_id = {e.id: e for e in entrants}
    if len(by_id) != len(entrants):
        raise FormatError("entrant ids repeat")
    if sorted(e.seed for e in entrants) != list(range(1, len(entrants) + 1)):
        raise FormatError(f"seeds must be 1..{len(entrants)}, each once")
    return by_id


def check_history(played: Sequence[PlayedRound], ids: Mapping[int, Entrant]) -> None:
    """Refuse a history the formats cannot read: rounds out of order, results that do not match
    their tables, unknown entrants, or an entrant twice in one round.

    :raises FormatError: naming the round and the problem.
    """
    for number, done in enumerate(played, 1):
        plan = done.plan
        if plan.number != number:
            raise FormatError(f"round {number} is numbered {plan.number}")
        if len(done.results) != len(plan.tables):
            raise FormatError(
                f"round {number} has {len(done.results)} results for {len(plan.tables)} tables"
            )
        seen: set[int] = set(plan.byes)
        for table, result in zip(plan.tables, done.results, strict=True):
            n = len(table.players)
            if (
                result.players != table.players
                or len(result.places) != n
                or len(result.points) != n
            ):
                raise FormatError(f"round {number} table {table.key!r}: results do not match")
            seen.update(table.players)
        if len(seen) != len(plan.byes) + sum(len(t.players) for t in plan.tables):
            raise FormatError(f"round {number} seats an entrant twice")
        if not seen <= ids.keys():
            raise FormatError(f"round {number} seats someone who is not an entrant")


def check_gone(gone: frozenset[int], ids: Mapping[int, Entrant]) -> None:
    """Refuse players who left but are not entrants.

    :raises FormatError: naming them.

    >>> check_gone(frozenset({4}), {1: Entrant(1, 1, 0.0)})
    Traceback (most recent call last):
    ...
    tournaments.formats.base.FormatError: players who left are not entrants: [4]
    """
    if not gone <= ids.keys():
        raise FormatError(f"players who left are not entrants: {sorted(gone - ids.keys())}")


def first_still_in(order: Sequence[int], gone: frozenset[int]) -> int:
    """The first of ``order`` (not empty) who has not left; its first when all of it has.

    >>> first_still_in([3, 1, 2], frozenset({3})), first_still_in([3], frozenset({3}))
    (1, 3)
    """
    return next((p for p in order if p not in gone), order[0])


def table_scores(result: TableResult, scale: Sequence[float]) -> dict[int, float]:
    """Each player's score at a table: ``scale`` by position (positions beyond it score 0),
    players who tie sharing the average of the positions they cover.

    >>> table_scores(TableResult((5, 6, 7, 8), (2, 1, 2, 4), (0, 0, 0, 0)), (4, 2, 1, 0))
    {6: 4.0, 5: 1.5, 7: 1.5, 8: 0.0}
    >>> table_scores(TableResult((1, 2), (1, 1), (0, 0)), DUEL_SCORES)
    {1: 0.5, 2: 0.5}
    """
    order = sorted(range(len(result.players)), key=lambda i: result.places[i])
    scores: dict[int, float] = {}
    start = 0
    while start < len(order):
        end = start
        while end < len(order) and result.places[order[end]] == result.places[order[start]]:
            end += 1
        share = sum(scale[p] if p < len(scale) else 0 for p in range(start, end)) / (end - start)
        for i in order[start:end]:
            scores[result.players[i]] = share
        start = end
    return scores


def table_order(result: TableResult, seeds: dict[int, int]) -> list[int]:
    """A table's players best first: by place, then game points, then the better seed.

    >>> table_order(TableResult((4, 9, 2), (2, 1, 2), (30, 80, 50)), {4: 1, 9: 3, 2: 2})
    [9, 2, 4]
    """
    rows = zip(result.players, result.places, result.points, strict=True)
    return [p for p, _, _ in sorted(rows, key=lambda r: (r[1], -r[2], seeds[r[0]]))]


Key = tuple[float, ...]


def ranked(entrants: Sequence[Entrant], key: Callable[[Entrant], Key]) -> list[tuple[int, Entrant]]:
    """Entrants best first (``key`` descending, then seed), each with its rank; equal keys share
    a rank and the next rank skips (1, 1, 3).

    >>> field = [Entrant(1, 1, 0.0), Entrant(2, 2, 0.0), Entrant(3, 3, 0.0)]
    >>> [(r, e.id) for r, e in ranked(field, lambda e: (float(e.id != 1),))]
    [(1, 2), (1, 3), (3, 1)]
    """
    order = sorted(sorted(entrants, key=lambda e: e.seed), key=key, reverse=True)
    out: list[tuple[int, Entrant]] = []
    previous: Key | None = None
    rank = 0
    for position, entrant in enumerate(order, 1):
        current = key(entrant)
        if current != previous:
            rank, previous = position, current
        out.append((rank, entrant))
    return out


def table_sizes(players: int, size: int, smallest: int) -> list[int]:
    """Balanced tables for a field: the fewest tables of at most ``size`` seats, sizes differing
    by at most one (larger first), none below ``smallest``. A field that fits one table sits at
    one table, whatever ``smallest`` says.

    :raises FormatError: when no such split exists (5 players at tables of 3 or 4).

    >>> table_sizes(10, 4, 3), table_sizes(9, 4, 3), table_sizes(2, 4, 3)
    ([4, 3, 3], [3, 3, 3], [2])
    """
    if players <= size:
        return [players]
    tables = math.ceil(players / size)
    if tables * smallest > players:
        raise FormatError(
            f"{players} players cannot be seated at balanced tables of {smallest} to {size} seats"
        )
    base, extra = divmod(players, tables)
    return [base + 1] * extra + [base] * (tables - extra)


def seatable(players: int, size: int, smallest: int) -> bool:
    """Whether ``table_sizes`` can seat this many players (two or more)."""
    return players >= 2 and (players <= size or math.ceil(players / size) * smallest <= players)


def seat_sizes(players: int, settings: Settings) -> list[int]:
    """``table_sizes`` for the players still in (two or more). A field that players leaving has
    made one the balanced split cannot seat (5 at tables of 3 to 4) sits at the same fewest
    balanced tables below ``min_table``: never below two, since more players than one table holds
    spread over the fewest tables of ``table_size`` seats fill each with at least two.

    >>> seat_sizes(5, Settings(table_size=4)), seat_sizes(10, Settings(table_size=4))
    ([3, 2], [4, 3, 3])
    """
    size, smallest = settings.table_size, settings.min_table
    return table_sizes(players, size, smallest if seatable(players, size, smallest) else 2)


def snake(players: Sequence[int], sizes: Sequence[int]) -> list[list[int]]:
    """Deal ``players`` (best first) to tables of ``sizes`` in snake order: 1, 2, ..., T, T, ...,
    1, 1, 2, ... skipping full tables.

    >>> snake(range(1, 11), [4, 3, 3])
    [[1, 6, 7, 10], [2, 5, 8], [3, 4, 9]]
    """
    tables: list[list[int]] = [[] for _ in sizes]
    forward = list(range(len(sizes)))
    passes = [forward, forward[::-1]]
    dealt = 0
    while dealt < len(players):
        for t in passes[0]:
            if dealt < len(players) and len(tables[t]) < sizes[t]:
                tables[t].append(players[dealt])
                dealt += 1
        passes.reverse()
    return tables


def check_multi_seat(players: int, settings: Settings, what: str) -> None:
    """The checks every multi-seat format shares: 3 to 8 seats, a sound smallest table, a
    field of two or more that the balanced split can seat.

    :raises FormatError: naming the setting.
    """
    if not 3 <= settings.table_size <= 8:
        raise FormatError(f"{what} needs a table size of 3 to 8, not {settings.table_size}")
    if not 2 <= settings.min_table <= settings.table_size:
        raise FormatError(
            f"the smallest table must be 2 to {settings.table_size} seats, not {settings.min_table}"
        )
    if players < 2:
        raise FormatError(f"{what} needs at least 2 players, not {players}")
    table_sizes(players, settings.table_size, settings.min_table)


def check_duel(players: int, settings: Settings, what: str) -> None:
    """The checks every two-player format shares.

    :raises FormatError: a table size other than 2, or fewer than 2 players.
    """
    if settings.table_size != 2:
        raise FormatError(f"{what} is for two-player tables, not {settings.table_size} seats")
    if players < 2:
        raise FormatError(f"{what} needs at least 2 players, not {players}")


def check_placement_points(settings: Settings) -> None:
    """Placement points must not reward a worse place more than a better one.

    :raises FormatError: placement points that rise.
    """
    scale = settings.placement_points
    if any(a < b for a, b in pairwise(scale)):
        raise FormatError(f"placement points must not rise from a place to the next: {scale}")
