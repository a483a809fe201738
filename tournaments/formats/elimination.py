"""What the two elimination formats share: the checks, the bracket resolved from the history
(``bracket.resolve``, walkovers of the players who have left included) and drawn, the rounds'
tables, the champion and the shape of the standings.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence

from .base import Entrant, PlayedRound, RoundPlan, Seating, Settings, Standing
from .bracket import Bracket, Spec, State, drawn, ready, resolve, seated, wins_and_losses
from .common import Key, check_duel, check_gone, check_history, field_by_id, ranked


class Elimination(ABC):
    """A two-player elimination format: a subclass names its matches (``_specs``), picks each
    round's matches (``_round``) and says how far each eliminated entrant got (``_out``).

    Standings: the eliminated below the players still in, by how far they got; the players still
    in by fewer losses, then more wins. ``points`` is matches won, a bye counting as a win. A
    player who has left is ranked by their results as they stand (with the players still in until
    their walkover is decided) and marked ``eliminated``.
    """

    slug: str
    name: str

    @abstractmethod
    def _specs(self, players: int, settings: Settings) -> list[Spec]:
        """The bracket's matches for ``players`` entrants, in play order."""

    @abstractmethod
    def _round(self, ready: list[Spec], specs: list[Spec]) -> tuple[list[Spec], str]:
        """The matches of the next round out of the ``ready`` ones (never empty), and its name."""

    @abstractmethod
    def _out(
        self, specs: list[Spec], states: dict[str, State], settings: Settings
    ) -> dict[int, tuple[int, int]]:
        """The eliminated entrants, each with how far it got (higher is further), then a bonus
        that splits those who got as far."""

    def check(self, entrants: int, settings: Settings) -> None:
        """:raises FormatError: a table size other than 2, or fewer than 2 players."""
        check_duel(entrants, settings, self.name)

    def _states(
        self,
        entrants: Sequence[Entrant],
        played: Sequence[PlayedRound],
        settings: Settings,
        gone: frozenset[int],
    ) -> tuple[list[Spec], dict[str, State]]:
        ids = field_by_id(entrants)
        check_history(played, ids)
        check_gone(gone, ids)
        self.check(len(entrants), settings)
        specs = self._specs(len(entrants), settings)
        return specs, resolve(specs, entrants, played, gone)

    def bracket(
        self,
        entrants: Sequence[Entrant],
        played: Sequence[PlayedRound],
        settings: Settings,
        *,
        gone: frozenset[int] = frozenset(),
    ) -> Bracket:
        """Every match of the event, decided or not (a grand-final reset while it may still be
        played); the walkovers of the players who have left are decided.

        :raises FormatError: as ``next_round``.
        """
        return drawn(*self._states(entrants, played, settings, gone))

    def next_round(
        self,
        entrants: Sequence[Entrant],
        played: Sequence[PlayedRound],
        settings: Settings,
        *,
        gone: frozenset[int] = frozenset(),
    ) -> RoundPlan | None:
        """The next round's ready matches (which ones: see the format), or ``None`` once the
        event is over. A match of a player who has left is a walkover, never a table.

        :raises FormatError: a bad field, settings or history, or ``gone`` not entrants.
        """
        specs, states = self._states(entrants, played, settings, gone)
        waiting = ready(specs, states)
        if not waiting:
            return None
        matches, name = self._round(waiting, specs)
        tables = tuple(Seating(seated(states[s.key]), s.key) for s in matches)
        return RoundPlan(len(played) + 1, name, tables)

    def standings(
        self,
        entrants: Sequence[Entrant],
        played: Sequence[PlayedRound],
        settings: Settings,
        *,
        gone: frozenset[int] = frozenset(),
    ) -> list[Standing]:
        """Final standings once over, live before (see the class).

        :raises FormatError: as ``next_round``.
        """
        specs, states = self._states(entrants, played, settings, gone)
        wins, losses = wins_and_losses(states)
        out = self._out(specs, states, settings)
        champion = _champion(specs, states)

        def key(e: Entrant) -> Key:
            if e.id in out:
                return (0, *out[e.id], 0)
            return (1, 0, -losses.get(e.id, 0), wins.get(e.id, 0))

        return [
            Standing(
                e.id,
                rank,
                float(wins.get(e.id, 0)),
                {},
                e.id in out or (e.id in gone and e.id != champion),
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
        """The winner of the last match of the winners bracket or the finals once the event is
        over (a grand-final reset only when it was played), else ``None``. It has left the event
        only if everyone who could still have won has: a walkover goes to a player still in."""
        return _champion(*self._states(entrants, played, settings, gone))


def _champion(specs: Sequence[Spec], states: Mapping[str, State]) -> int | None:
    if ready(specs, states):
        return None
    last = [
        states[s.key] for s in specs if s.side in ("winners", "final") and not states[s.key].void
    ][-1]
    return last.winner if isinstance(last.winner, int) else None
