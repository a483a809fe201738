"""Multi-table elimination for tables of 3 to 8 seats.

Each round seats the players still in at the fewest tables of at most ``table_size`` seats, none
below ``min_table``, sizes differing by at most one (``common.table_sizes``), dealt by seed in
snake order (1, 2, 3, 3, 2, 1, ...) so that every table gets a fair share of the strong players;
within a table, seats go by seed. The top ``advance`` of each table go on: a table's order is
place, then game points, then the better seed. When the next field cannot be seated (4 players at
tables of 3 to 4, say, because a field of 5 cannot be split), the best of the rest join it as
wildcards, ordered by their position at their table, then game points, then seed, up to the
smallest field that can be seated; and only when even that would not be smaller than the round
just played is the field cut instead, to the largest that can be seated, by the same order. This
repeats until one table holds everyone left: the final table (key ``final``), whose order is the
result. The final table may hold fewer than ``min_table`` players (a heads-up final).

Standings: by the round reached, then place at the last table played, then game points there;
players equal on all three share a rank. The tiebreaks are ``last_place`` (lower is better) and
``last_game_points``. Live standings count the players still in as having
reached the next round. ``points`` is the round reached.

>>> from .seeding import seed_by_rating
>>> field = seed_by_rating([(i, 2000.0 - i) for i in range(1, 11)])
>>> plan = MultiTableElimination().next_round(field, [], Settings(table_size=4))
>>> [t.players for t in plan.tables]
[(1, 6, 7, 10), (2, 5, 8), (3, 4, 9)]
"""

from __future__ import annotations

from collections.abc import Sequence

from .base import Entrant, FormatError, PlayedRound, RoundPlan, Seating, Settings, Standing
from .common import (
    check_history,
    check_multi_seat,
    field_by_id,
    ranked,
    seatable,
    snake,
    table_order,
    table_sizes,
)


def next_field(players: int, settings: Settings) -> int | None:
    """How many players the round after a round of ``players`` seats, or ``None`` when that
    round is the final table.

    >>> s = Settings(table_size=4, advance=1)
    >>> next_field(16, s), next_field(20, s), next_field(4, s)
    (4, 6, None)
    """
    size, smallest = settings.table_size, settings.min_table
    if players <= size:
        return None
    want = len(table_sizes(players, size, smallest)) * settings.advance
    up = next((n for n in range(want, players) if seatable(n, size, smallest)), None)
    if up is not None:
        return up
    return next(n for n in range(want, 1, -1) if seatable(n, size, smallest))


def _qualifiers(done: PlayedRound, count: int, seeds: dict[int, int]) -> list[int]:
    """The ``count`` best of a played round: by position at their table, game points, seed."""
    rows = []
    for result in done.results:
        points = dict(zip(result.players, result.points, strict=True))
        for position, p in enumerate(table_order(result, seeds)):
            rows.append((position, -points[p], seeds[p], p))
    return [p for *_, p in sorted(rows)[:count]]


def fields(
    entrants: Sequence[Entrant], played: Sequence[PlayedRound], settings: Settings
) -> list[list[int]]:
    """The players of each round so far and of the next one (absent once the final is played),
    by seed.

    :raises FormatError: a round that seated other players than the format chose.
    """
    seeds = {e.id: e.seed for e in entrants}
    rounds = [sorted(seeds, key=seeds.__getitem__)]
    for done in played:
        seated = sorted(p for t in done.plan.tables for p in t.players)
        if seated != sorted(rounds[-1]):
            raise FormatError(f"round {done.plan.number} seats other players than the field")
        count = next_field(len(rounds[-1]), settings)
        if count is None:
            break
        rounds.append(sorted(_qualifiers(done, count, seeds), key=seeds.__getitem__))
    return rounds


class MultiTableElimination:
    """The ``multi_table_elimination`` format (see the module)."""

    slug = "multi_table_elimination"
    name = "Multi-table elimination"

    def check(self, entrants: int, settings: Settings) -> None:
        """:raises FormatError: a bad table size or smallest table, a field the balanced split
        cannot seat, or ``advance`` outside 1 to ``min_table - 1``."""
        check_multi_seat(entrants, settings, self.name)
        if not 1 <= settings.advance < settings.min_table:
            raise FormatError(
                f"advance must be 1 to {settings.min_table - 1} "
                f"(fewer than the smallest table), not {settings.advance}"
            )

    def _fields(
        self, entrants: Sequence[Entrant], played: Sequence[PlayedRound], settings: Settings
    ) -> list[list[int]]:
        check_history(played, field_by_id(entrants))
        self.check(len(entrants), settings)
        return fields(entrants, played, settings)

    def next_round(
        self, entrants: Sequence[Entrant], played: Sequence[PlayedRound], settings: Settings
    ) -> RoundPlan | None:
        """The next round's tables, or ``None`` once the final table is played.

        :raises FormatError: a bad field, settings or history.
        """
        rounds = self._fields(entrants, played, settings)
        if len(rounds) == len(played):
            return None
        players, number = rounds[-1], len(played) + 1
        if len(players) <= settings.table_size:
            return RoundPlan(number, "Final table", (Seating(tuple(players), "final"),))
        sizes = table_sizes(len(players), settings.table_size, settings.min_table)
        tables = tuple(Seating(tuple(t), f"T{n}") for n, t in enumerate(snake(players, sizes), 1))
        return RoundPlan(number, f"Round {number}", tables)

    def standings(
        self, entrants: Sequence[Entrant], played: Sequence[PlayedRound], settings: Settings
    ) -> list[Standing]:
        """Round reached, place at the last table, game points there; live or final.

        :raises FormatError: as ``next_round``.
        """
        rounds = self._fields(entrants, played, settings)
        reached = {p: n for n, players in enumerate(rounds, 1) for p in players}
        last: dict[int, tuple[int, int]] = {}  # place and game points at the last table
        for done in played:
            for r in done.results:
                last.update(zip(r.players, zip(r.places, r.points, strict=True), strict=True))
        still_in = set(rounds[-1]) if len(rounds) > len(played) else set()
        seeds = {e.id: e.seed for e in entrants}
        champion = None if still_in else table_order(played[-1].results[0], seeds)[0]

        def key(e: Entrant) -> tuple[float, ...]:
            place, points = last.get(e.id, (0, 0))
            return (reached[e.id], -place, points)

        return [
            Standing(
                e.id,
                rank,
                float(reached[e.id]),
                {"last_place": float(-key(e)[1]), "last_game_points": float(key(e)[2])},
                e.id not in still_in and e.id != champion,
            )
            for rank, e in ranked(entrants, key)
        ]

    def champion(
        self, entrants: Sequence[Entrant], played: Sequence[PlayedRound], settings: Settings
    ) -> int | None:
        """The best of the final table once it is played, else ``None``."""
        if self.next_round(entrants, played, settings) is not None:
            return None
        seeds = {e.id: e.seed for e in entrants}
        return table_order(played[-1].results[0], seeds)[0]
