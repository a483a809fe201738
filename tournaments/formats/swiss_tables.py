"""Swiss tables: Swiss rounds at tables of 3 to 8 seats.

Round 1 deals the field by seed in snake order over balanced tables (``common.table_sizes``:
the fewest tables of at most ``table_size``, none below ``min_table``, sizes differing by at most
one), so every table gets a fair share of the strong players. Every later round ranks the field
by standing (placement points, game points, seed) and seats it in that order, the best players
together, larger tables first; then ``seating.swap_pass`` swaps players between neighbouring
tables while that seats fewer pairs who have sat together before. The tests measure the repeats
that remain. Seats at a table go by standing.

Each table scores ``placement_points`` by place (places beyond the tuple score 0; players who tie
share the average of the places they cover); game points are the tiebreak. Rounds:
``settings.rounds``, by default ``ceil(log N / log table_size) + 1``, one more than a knockout
that sends one player on from each table would take (``N`` the seeded field).

Players who have left (``gone``) are not seated: the balanced tables are drawn over the players
still in, the same way. Should their leaving make that field one the balanced split cannot seat
(5 players at tables of 3 to 4), it sits at the same fewest balanced tables, below ``min_table``
(``common.seat_sizes``). With fewer than two players still in, the event ends there. They keep
their results and are ranked by them; the champion is the best player still in.

>>> from .seeding import seed_by_rating
>>> field = seed_by_rating([(i, 2000.0 - i) for i in range(1, 9)])
>>> [t.players for t in SwissTables().next_round(field, [], Settings(table_size=4)).tables]
[(1, 4, 5, 8), (2, 3, 6, 7)]
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from .base import Entrant, FormatError, PlayedRound, RoundPlan, Seating, Settings
from .common import (
    check_multi_seat,
    check_placement_points,
    seat_sizes,
    snake,
)
from .seating import swap_pass
from .tally import Tally, TallyFormat

#: Swaps reach only the neighbouring tables, so players stay among those with near scores.
SWAP_WINDOW = 1


def default_rounds(players: int, table_size: int) -> int:
    """``ceil(log N / log table_size) + 1``.

    >>> default_rounds(16, 4), default_rounds(10_000, 4), default_rounds(3, 4)
    (3, 8, 2)
    """
    return math.ceil(math.log(players) / math.log(table_size) - 1e-9) + 1


def _by_standing(order: list[int], sizes: Sequence[int], t: Tally) -> list[list[int]]:
    tables, start = [], 0
    for size in sizes:
        tables.append(order[start : start + size])
        start += size
    swap_pass(tables, t.met, SWAP_WINDOW)
    rank = {p: i for i, p in enumerate(order)}
    return [sorted(table, key=rank.__getitem__) for table in tables]


class SwissTables(TallyFormat):
    """The ``swiss_tables`` format (see the module)."""

    slug = "swiss_tables"
    name = "Swiss tables"

    def check(self, entrants: int, settings: Settings) -> None:
        """:raises FormatError: a bad table size, smallest table or placement points, a field
        the balanced split cannot seat, or rounds below 1."""
        check_multi_seat(entrants, settings, self.name)
        check_placement_points(settings)
        if settings.rounds is not None and settings.rounds < 1:
            raise FormatError(f"Swiss tables need at least 1 round, not {settings.rounds}")

    def next_round(
        self,
        entrants: Sequence[Entrant],
        played: Sequence[PlayedRound],
        settings: Settings,
        *,
        gone: frozenset[int] = frozenset(),
    ) -> RoundPlan | None:
        """The next round's tables of the players still in, or ``None`` after the last round
        (or with fewer than two players still in).

        :raises FormatError: a bad field, settings or history, or ``gone`` not entrants.
        """
        t = self._tally(entrants, played, settings, gone)
        rounds = settings.rounds
        if rounds is None:
            rounds = default_rounds(len(entrants), settings.table_size)
        still_in = [e for e in entrants if e.id not in gone]
        if len(played) >= rounds or len(still_in) < 2:
            return None
        key = {e.id: (-t.score[e.id], -t.game_points[e.id], e.seed) for e in still_in}
        order = sorted(key, key=key.__getitem__)
        sizes = seat_sizes(len(order), settings)
        tables = _by_standing(order, sizes, t) if played else snake(order, sizes)
        number = len(played) + 1
        seats = tuple(Seating(tuple(table), f"T{n}") for n, table in enumerate(tables, 1))
        return RoundPlan(number, f"Round {number}", seats)

    def _tiebreaks(self, t: Tally, entrant: int, settings: Settings) -> dict[str, float]:
        """Game points."""
        return {"game_points": t.game_points[entrant]}
