"""Adding up the rounds played: scores, game points, opponents and who sat with whom.

The table score follows ``common.table_scores`` (ties share the average); a bye scores the
format's bye value and counts as no opponent (it adds nothing to Buchholz or Sonneborn-Berger).

``TallyFormat`` is what the formats ranked by such a tally share (round robin, Swiss, Swiss
tables): standings by score, then the format's tiebreaks; the champion tops the final standings.
Players who have left (``gone``) keep their results, for their own line and for everyone's
tiebreaks (their score as it stands), and are ranked by them, marked ``eliminated``; the champion
is the best player still in, a player who has left only when nobody is.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from .base import Entrant, PlayedRound, RoundPlan, Settings, Standing
from .common import (
    DUEL_SCORES,
    check_gone,
    check_history,
    field_by_id,
    first_still_in,
    ranked,
    table_scores,
)


@dataclass(slots=True)
class Tally:
    """Per entrant: score, game points, byes, everyone sat with, and for two-player tables each
    opponent with the share of the point won against them (1, 0.5 or 0)."""

    score: dict[int, float]
    game_points: dict[int, float]
    byes: dict[int, int]
    met: dict[int, set[int]]
    duels: dict[int, list[tuple[int, float]]] = field(default_factory=dict)

    def buchholz(self, entrant: int) -> float:
        """The sum of the scores of every opponent met (one term per game)."""
        return sum(self.score[o] for o, _ in self.duels.get(entrant, ()))

    def sonneborn_berger(self, entrant: int) -> float:
        """The scores of opponents beaten, plus half the scores of opponents drawn with."""
        return sum(self.score[o] * share for o, share in self.duels.get(entrant, ()))

    def repeats(self, tables: Iterable[Sequence[int]]) -> int:
        """How many pairs at these tables have sat together before."""
        return sum(
            1 for t in tables for i, a in enumerate(t) for b in t[i + 1 :] if b in self.met[a]
        )


def scale_of(settings: Settings) -> tuple[int, ...]:
    """The score by position at a table: ``(1, 0)`` at two seats, else the placement points."""
    return DUEL_SCORES if settings.table_size == 2 else settings.placement_points


def tally(
    ids: Iterable[int], played: Sequence[PlayedRound], scale: Sequence[float], bye: float
) -> Tally:
    """Add up ``played`` for ``ids``: each table scored by ``scale``, each bye worth ``bye``.

    >>> from .base import RoundPlan, Seating, TableResult
    >>> plan = RoundPlan(1, "Round 1", (Seating((1, 2)),), byes=(3,))
    >>> t = tally([1, 2, 3], [PlayedRound(plan, (TableResult((1, 2), (2, 1), (90, 500)),))],
    ...           DUEL_SCORES, 1.0)
    >>> t.score, t.duels[2]
    ({1: 0.0, 2: 1.0, 3: 1.0}, [(1, 1.0)])
    """
    ids = list(ids)
    t = Tally(
        dict.fromkeys(ids, 0.0),
        dict.fromkeys(ids, 0.0),
        dict.fromkeys(ids, 0),
        {i: set() for i in ids},
        {i: [] for i in ids},
    )
    for done in played:
        for p in done.plan.byes:
            t.score[p] += bye
            t.byes[p] += 1
        for result in done.results:
            scores = table_scores(result, scale)
            for p, points in zip(result.players, result.points, strict=True):
                t.score[p] += scores[p]
                t.game_points[p] += points
                t.met[p].update(q for q in result.players if q != p)
            if len(result.players) == 2:
                a, b = result.players
                t.duels[a].append((b, scores[a]))
                t.duels[b].append((a, scores[b]))
    return t


class TallyFormat(ABC):
    """A format ranked by its tally: score, then the tiebreaks ``_tiebreaks`` names, in order
    (equal on all of them shares a rank; the better seed is listed first)."""

    name: str
    #: What a bye scores.
    bye_score = 0.0

    @abstractmethod
    def check(self, entrants: int, settings: Settings) -> None:
        """:raises FormatError: a field or settings the format cannot run."""

    @abstractmethod
    def next_round(
        self,
        entrants: Sequence[Entrant],
        played: Sequence[PlayedRound],
        settings: Settings,
        *,
        gone: frozenset[int] = frozenset(),
    ) -> RoundPlan | None:
        """The next round's plan, seating nobody ``gone``, or ``None`` once the event is over."""

    @abstractmethod
    def _tiebreaks(self, t: Tally, entrant: int, settings: Settings) -> dict[str, float]:
        """One entrant's tiebreaks, in their order of application."""

    def _tally(
        self,
        entrants: Sequence[Entrant],
        played: Sequence[PlayedRound],
        settings: Settings,
        gone: frozenset[int],
    ) -> Tally:
        ids = field_by_id(entrants)
        check_history(played, ids)
        check_gone(gone, ids)
        self.check(len(entrants), settings)
        return tally((e.id for e in entrants), played, scale_of(settings), self.bye_score)

    def standings(
        self,
        entrants: Sequence[Entrant],
        played: Sequence[PlayedRound],
        settings: Settings,
        *,
        gone: frozenset[int] = frozenset(),
    ) -> list[Standing]:
        """Score, then the format's tiebreaks; live or final. Players who have left are ranked by
        their results and marked ``eliminated`` (all but the top when nobody is still in).

        :raises FormatError: as ``next_round``.
        """
        t = self._tally(entrants, played, settings, gone)
        lines = {e.id: self._tiebreaks(t, e.id, settings) for e in entrants}
        key = {e.id: (t.score[e.id], *lines[e.id].values()) for e in entrants}
        order = ranked(entrants, lambda e: key[e.id])
        leader = first_still_in([e.id for _, e in order], gone)
        return [
            Standing(e.id, rank, t.score[e.id], lines[e.id], e.id in gone and e.id != leader)
            for rank, e in order
        ]

    def champion(
        self,
        entrants: Sequence[Entrant],
        played: Sequence[PlayedRound],
        settings: Settings,
        *,
        gone: frozenset[int] = frozenset(),
    ) -> int | None:
        """The best player still in (a tie on everything: the better seed) once the last round is
        played, else ``None``; a player who has left only when nobody is still in."""
        if self.next_round(entrants, played, settings, gone=gone) is not None:
            return None
        lines = self.standings(entrants, played, settings, gone=gone)
        return first_still_in([s.entrant for s in lines], gone)
