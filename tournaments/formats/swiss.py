"""Swiss for two-player tables.

Each round pairs players with equal or near scores who have not met (``swiss_pairing``: score
groups, top half against bottom half, floats down, no rematches while a pairing without them
exists). Players are ranked for pairing by score, then seed. In an odd field the lowest-ranked
player who has not had a bye sits out and scores ``BYE_SCORE``; nobody has two byes, since
``check`` allows at most as many rounds as an odd field has players. A win scores 1, a tie
(equal places) half each. Rounds: ``settings.rounds``, by default ``ceil(log2 N)`` (``N`` the
seeded field, whoever has left since).

Players who have left (``gone``) are neither paired nor given the bye: the rest are paired as
above, and in an odd number of them the bye goes to the lowest-ranked player still in who has not
had one (a field that has shrunk may run out of such players: the lowest-ranked has a second).
With fewer than two players still in, the event ends there.

Standings: score, then Buchholz (the sum of the scores of every opponent met), then
Sonneborn-Berger (the scores of opponents beaten plus half those of opponents tied with); a bye
adds nothing to either. Players equal on all three share a rank; the champion is the better
seed among them. A player who has left keeps their results: they are ranked by them, and their
score as it stands counts in the Buchholz and Sonneborn-Berger of everyone they met; the
champion is the best player still in.

>>> from .seeding import seed_by_rating
>>> field = seed_by_rating([(i, 2000.0 - i) for i in range(1, 8)])
>>> plan = Swiss().next_round(field, [], Settings())
>>> [t.players for t in plan.tables], plan.byes
([(1, 4), (2, 5), (3, 6)], (7,))
>>> plan = Swiss().next_round(field, [], Settings(), gone=frozenset({2}))
>>> [t.players for t in plan.tables], plan.byes
([(1, 5), (3, 6), (4, 7)], ())
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from .base import Entrant, FormatError, PlayedRound, RoundPlan, Seating, Settings
from .common import check_duel
from .swiss_pairing import pair_round
from .tally import Tally, TallyFormat

#: A bye is worth a win, the usual Swiss convention: the player was ready to play.
BYE_SCORE = 1.0


def default_rounds(players: int) -> int:
    """``ceil(log2 N)``: enough rounds for one player to be the only one with every win.

    >>> default_rounds(2), default_rounds(8), default_rounds(9), default_rounds(10_000)
    (1, 3, 4, 14)
    """
    return max(1, math.ceil(math.log2(players)))


def rounds_of(players: int, settings: Settings) -> int:
    """The event's rounds: ``settings.rounds``, or ``default_rounds`` when it is ``None``."""
    return default_rounds(players) if settings.rounds is None else settings.rounds


class Swiss(TallyFormat):
    """The ``swiss`` format (see the module)."""

    slug = "swiss"
    name = "Swiss"
    bye_score = BYE_SCORE

    def check(self, entrants: int, settings: Settings) -> None:
        """:raises FormatError: a table size other than 2, fewer than 2 players, or rounds
        outside 1 to N - 1 (to N in an odd field)."""
        check_duel(entrants, settings, self.name)
        rounds = rounds_of(entrants, settings)
        most = entrants if entrants % 2 else entrants - 1
        if not 1 <= rounds <= most:
            raise FormatError(f"{entrants} players can play 1 to {most} Swiss rounds, not {rounds}")

    def next_round(
        self,
        entrants: Sequence[Entrant],
        played: Sequence[PlayedRound],
        settings: Settings,
        *,
        gone: frozenset[int] = frozenset(),
    ) -> RoundPlan | None:
        """The next round's pairings and bye among the players still in, or ``None`` after the
        last round (or with fewer than two players still in).

        :raises FormatError: a bad field, settings or history, or ``gone`` not entrants.
        """
        t = self._tally(entrants, played, settings, gone)
        still_in = [e for e in entrants if e.id not in gone]
        if len(played) >= rounds_of(len(entrants), settings) or len(still_in) < 2:
            return None
        order = [e.id for e in sorted(still_in, key=lambda e: (-t.score[e.id], e.seed))]
        byes: tuple[int, ...] = ()
        if len(order) % 2:
            bye = next((p for p in reversed(order) if not t.byes[p]), order[-1])
            order.remove(bye)
            byes = (bye,)
        pairs = pair_round(order, t.score, t.met)
        tables = tuple(Seating(pair, f"T{n}") for n, pair in enumerate(pairs, 1))
        number = len(played) + 1
        return RoundPlan(number, f"Round {number}", tables, byes)

    def _tiebreaks(self, t: Tally, entrant: int, settings: Settings) -> dict[str, float]:
        """Buchholz, then Sonneborn-Berger."""
        return {"buchholz": t.buchholz(entrant), "sonneborn_berger": t.sonneborn_berger(entrant)}
