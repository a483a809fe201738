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

Players who have left (``gone``) are not seated. In round 1 the others are dealt as above; a
player who has left gives up their place in the next round to the best of the rest still in (in
the wildcards' order), so the next field keeps its size while enough players are still in, and
is everyone still in when not. Should that field be one the balanced split cannot seat, it sits
at the same fewest balanced tables below ``min_table`` (``common.seat_sizes``); one that fits a
table is the final table; a single player still in wins without another table, and with nobody
still in the event ends with the best of the last round. A round planned before a player left
still seats them (``fields`` checks each round against the field the format draws without the
players who had left by then: those it did not seat).

Standings: by the round reached, then place at the last table played, then game points there;
players equal on all three share a rank. The tiebreaks are ``last_place`` (lower is better) and
``last_game_points``. Live standings count the players still in as having
reached the next round. ``points`` is the round reached (0 for a player who left before round
1). Players who have left are ranked as their results stand and marked ``eliminated``; the
champion is the best of the final table still in (one who has left only when all of it has).

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
    check_gone,
    check_history,
    check_multi_seat,
    field_by_id,
    first_still_in,
    ranked,
    seat_sizes,
    seatable,
    snake,
    table_order,
)


def next_field(players: int, settings: Settings) -> int | None:
    """How many players the round after a round of ``players`` seats (at ``seat_sizes``'s
    tables), or ``None`` when that round is the final table.

    >>> s = Settings(table_size=4, advance=1)
    >>> next_field(16, s), next_field(20, s), next_field(4, s)
    (4, 6, None)
    """
    size, smallest = settings.table_size, settings.min_table
    if players <= size:
        return None
    want = len(seat_sizes(players, settings)) * settings.advance
    up = next((n for n in range(want, players) if seatable(n, size, smallest)), None)
    if up is not None:
        return up
    return next(n for n in range(want, 1, -1) if seatable(n, size, smallest))


def qualification_order(done: PlayedRound, seeds: dict[int, int]) -> list[int]:
    """A played round's players best first: by position at their table, then game points, then
    seed (the first ``next_field`` of them go on; the rest are the wildcards, in order)."""
    rows = []
    for result in done.results:
        points = dict(zip(result.players, result.points, strict=True))
        for position, p in enumerate(table_order(result, seeds)):
            rows.append((position, -points[p], seeds[p], p))
    return [p for *_, p in sorted(rows)]


def _pick(order: Sequence[int], count: int, gone: frozenset[int]) -> list[int]:
    """The first ``count`` of ``order`` who are not in ``gone`` (all of them, if fewer)."""
    return [p for p in order if p not in gone][:count]


def fields(
    entrants: Sequence[Entrant],
    played: Sequence[PlayedRound],
    settings: Settings,
    gone: frozenset[int] = frozenset(),
) -> list[list[int]]:
    """The players of each round so far and of the next one (absent once the final is played),
    by seed: the first of the previous round's order still in (``qualification_order``), as
    many as ``next_field`` says, or all of them if fewer.

    Each round played must seat the field drawn without the players who had left when it was
    planned: those of ``gone`` it does not seat. (Drawn without more of them, the field is the
    same: those who left later were not in it, and they would only have been passed over.)

    :raises FormatError: a round that seated other players than the format chose.
    """
    seeds = {e.id: e.seed for e in entrants}
    order, count = sorted(seeds, key=seeds.__getitem__), len(seeds)
    rounds = []
    for done in played:
        seated = {p for t in done.plan.tables for p in t.players}
        field = sorted(seated, key=seeds.__getitem__)
        if _pick(order, count, gone - seated) != [p for p in order if p in seated]:
            raise FormatError(f"round {done.plan.number} seats other players than the field")
        rounds.append(field)
        following = next_field(len(field), settings)
        if following is None:
            return rounds
        order, count = qualification_order(done, seeds), following
    rounds.append(sorted(_pick(order, count, gone), key=seeds.__getitem__))
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
        self,
        entrants: Sequence[Entrant],
        played: Sequence[PlayedRound],
        settings: Settings,
        gone: frozenset[int],
    ) -> list[list[int]]:
        ids = field_by_id(entrants)
        check_history(played, ids)
        check_gone(gone, ids)
        self.check(len(entrants), settings)
        return fields(entrants, played, settings, gone)

    def next_round(
        self,
        entrants: Sequence[Entrant],
        played: Sequence[PlayedRound],
        settings: Settings,
        *,
        gone: frozenset[int] = frozenset(),
    ) -> RoundPlan | None:
        """The next round's tables of the players still in, or ``None`` once the final table is
        played or fewer than two players are left to seat.

        :raises FormatError: a bad field, settings or history, or ``gone`` not entrants.
        """
        rounds = self._fields(entrants, played, settings, gone)
        if _over(rounds, played):
            return None
        players, number = rounds[-1], len(played) + 1
        if len(players) <= settings.table_size:
            return RoundPlan(number, "Final table", (Seating(tuple(players), "final"),))
        sizes = seat_sizes(len(players), settings)
        tables = tuple(Seating(tuple(t), f"T{n}") for n, t in enumerate(snake(players, sizes), 1))
        return RoundPlan(number, f"Round {number}", tables)

    def standings(
        self,
        entrants: Sequence[Entrant],
        played: Sequence[PlayedRound],
        settings: Settings,
        *,
        gone: frozenset[int] = frozenset(),
    ) -> list[Standing]:
        """Round reached, place at the last table, game points there; live or final.

        :raises FormatError: as ``next_round``.
        """
        rounds = self._fields(entrants, played, settings, gone)
        reached = {p: n for n, players in enumerate(rounds, 1) for p in players}
        last: dict[int, tuple[int, int]] = {}  # place and game points at the last table
        for done in played:
            for r in done.results:
                last.update(zip(r.players, zip(r.places, r.points, strict=True), strict=True))
        over = _over(rounds, played)
        still_in = set() if over else set(rounds[-1])
        champion = _winner(entrants, played, gone) if over else None

        def key(e: Entrant) -> tuple[float, ...]:
            place, points = last.get(e.id, (0, 0))
            return (reached.get(e.id, 0), -place, points)

        return [
            Standing(
                e.id,
                rank,
                float(reached.get(e.id, 0)),
                {"last_place": float(-key(e)[1]), "last_game_points": float(key(e)[2])},
                e.id not in still_in and e.id != champion,
            )
            for rank, e in ranked(entrants, key)
        ]

    def champion(
        self,
        entrants: Sequence[Entrant],
        played: Sequence[PlayedRound],
        settings: Settings,
        *,
        gone: frozenset[int] = frozenset(),
    ) -> int | None:
        """The best of the final table still in once it is played (the one player left, when
        leaving ended the event early), else ``None``."""
        rounds = self._fields(entrants, played, settings, gone)
        return _winner(entrants, played, gone) if _over(rounds, played) else None


def _over(rounds: list[list[int]], played: Sequence[PlayedRound]) -> bool:
    """The final table is played, or fewer than two players are left to seat."""
    return len(rounds) == len(played) or len(rounds[-1]) < 2


def _winner(
    entrants: Sequence[Entrant], played: Sequence[PlayedRound], gone: frozenset[int]
) -> int:
    """The best player still in of the last round played (of the field, before any), by the
    order that sends players on; someone who has left only when all of it has."""
    seeds = {e.id: e.seed for e in entrants}
    order = (
        qualification_order(played[-1], seeds) if played else sorted(seeds, key=seeds.__getitem__)
    )
    return first_still_in(order, gone)
