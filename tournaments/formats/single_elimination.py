"""Single elimination for two-player tables.

The bracket is the next power of two above the field, seeded so that 1 meets 8, 4 meets 5, 2
meets 7 and 3 meets 6 in a field of eight, and the top seeds can meet only late; the missing
seeds are byes, so byes go to the top seeds. A bye is not a table: it is decided without play,
and round 1 holds the other first-round matches only. Round ``r`` of the event is bracket round
``r``; matches are keyed ``W<round>-<match>``. With ``third_place`` the semi-final losers play a
match keyed ``3rd`` in the final round (in a field of three it goes to the one semi-final loser
without play). A tie on places sends the better seed through.

Standings: the champion, then by how far each player got (a later loss ranks higher; the
third-place match splits its two), players who went out in the same round sharing a rank. Live
standings put the players still in above those out, by matches won. ``points`` is matches won,
a bye counting as a win.

>>> from .seeding import seed_by_rating
>>> field = seed_by_rating([(i, 2000.0 - i) for i in range(1, 9)])
>>> [t.players for t in SingleElimination().next_round(field, [], Settings()).tables]
[(1, 8), (4, 5), (2, 7), (3, 6)]
"""

from __future__ import annotations

from collections.abc import Sequence

from . import bracket as b
from .base import Entrant, PlayedRound, RoundPlan, Seating, Settings, Standing
from .common import check_duel, check_history, field_by_id, ranked


def _specs(players: int, settings: Settings) -> list[b.Spec]:
    specs = b.winners_specs(players)
    last = specs[-1].round
    if settings.third_place and last >= 2:
        semis = [s.key for s in specs if s.round == last - 1]
        specs.append(b.Spec("3rd", last, "third", (b.loser(semis[0]), b.loser(semis[1]))))
    return specs


def _round_name(rnd: int, last: int) -> str:
    names = {last: "Final", last - 1: "Semi-finals", last - 2: "Quarter-finals"}
    return names.get(rnd, f"Round {rnd}")


class SingleElimination:
    """The ``single_elimination`` format (see the module)."""

    slug = "single_elimination"
    name = "Single elimination"

    def check(self, entrants: int, settings: Settings) -> None:
        """:raises FormatError: a table size other than 2, or fewer than 2 players."""
        check_duel(entrants, settings, self.name)

    def _states(
        self, entrants: Sequence[Entrant], played: Sequence[PlayedRound], settings: Settings
    ) -> tuple[list[b.Spec], dict[str, b.State]]:
        check_history(played, field_by_id(entrants))
        self.check(len(entrants), settings)
        specs = _specs(len(entrants), settings)
        return specs, b.resolve(specs, entrants, played)

    def bracket(
        self, entrants: Sequence[Entrant], played: Sequence[PlayedRound], settings: Settings
    ) -> b.Bracket:
        """Every match of the event, decided or not.

        :raises FormatError: as ``next_round``.
        """
        return b.drawn(*self._states(entrants, played, settings))

    def next_round(
        self, entrants: Sequence[Entrant], played: Sequence[PlayedRound], settings: Settings
    ) -> RoundPlan | None:
        """The ready matches of the earliest bracket round not yet played, or ``None``.

        :raises FormatError: a bad field, settings or history.
        """
        specs, states = self._states(entrants, played, settings)
        ready = b.ready(specs, states)
        if not ready:
            return None
        rnd = min(s.round for s in ready)
        tables = tuple(Seating(_players(states[s.key]), s.key) for s in ready if s.round == rnd)
        return RoundPlan(len(played) + 1, _round_name(rnd, specs[-1].round), tables)

    def standings(
        self, entrants: Sequence[Entrant], played: Sequence[PlayedRound], settings: Settings
    ) -> list[Standing]:
        """Final standings once over, live before (see the module).

        :raises FormatError: as ``next_round``.
        """
        specs, states = self._states(entrants, played, settings)
        wins, _ = b.wins_and_losses(states)
        out_in: dict[int, tuple[int, int]] = {}  # loser -> (round lost, third-place bonus)
        for spec in specs:
            s = states[spec.key]
            if spec.side == "third":
                if isinstance(s.winner, int):
                    out_in[s.winner] = (out_in[s.winner][0], 1)
            elif isinstance(s.loser, int):
                out_in[s.loser] = (spec.round, 0)

        def key(e: Entrant) -> tuple[float, ...]:
            if e.id in out_in:
                return (0, *out_in[e.id], 0)
            return (1, 0, 0, wins.get(e.id, 0))

        return [
            Standing(e.id, rank, float(wins.get(e.id, 0)), {}, e.id in out_in)
            for rank, e in ranked(entrants, key)
        ]

    def champion(
        self, entrants: Sequence[Entrant], played: Sequence[PlayedRound], settings: Settings
    ) -> int | None:
        """The final's winner once the event is over, else ``None``."""
        specs, states = self._states(entrants, played, settings)
        if b.ready(specs, states):
            return None
        final = states[next(s.key for s in reversed(specs) if s.side == "winners")]
        return final.winner if isinstance(final.winner, int) else None


def _players(state: b.State) -> tuple[int, ...]:
    return tuple(p for p in state.occupants if isinstance(p, int))
