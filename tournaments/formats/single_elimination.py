"""Single elimination for two-player tables.

The bracket is the next power of two above the field, seeded so that 1 meets 8, 4 meets 5, 2
meets 7 and 3 meets 6 in a field of eight, and the top seeds can meet only late; the missing
seeds are byes, so byes go to the top seeds. A bye is not a table: it is decided without play,
and round 1 holds the other first-round matches only. Round ``r`` of the event is bracket round
``r``; matches are keyed ``W<round>-<match>``. With ``third_place`` the semi-final losers play a
match keyed ``3rd`` in the final round (in a field of three it goes to the one semi-final loser
without play). A tie on places sends the better seed through.

A player who has left the event loses each match of theirs not yet played by walkover
(``bracket``): their opponent goes through without a table, and a third-place match they would
have played goes to the other semi-final loser.

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

from . import bracket as b
from .base import Settings
from .elimination import Elimination


def _round_name(rnd: int, last: int) -> str:
    names = {last: "Final", last - 1: "Semi-finals", last - 2: "Quarter-finals"}
    return names.get(rnd, f"Round {rnd}")


class SingleElimination(Elimination):
    """The ``single_elimination`` format (see the module)."""

    slug = "single_elimination"
    name = "Single elimination"

    def _specs(self, players: int, settings: Settings) -> list[b.Spec]:
        specs = b.winners_specs(players)
        last = specs[-1].round
        if settings.third_place and last >= 2:
            semis = [s.key for s in specs if s.round == last - 1]
            specs.append(b.Spec("3rd", last, "third", (b.loser(semis[0]), b.loser(semis[1]))))
        return specs

    def _round(self, ready: list[b.Spec], specs: list[b.Spec]) -> tuple[list[b.Spec], str]:
        """The ready matches of the earliest bracket round not yet played."""
        rnd = min(s.round for s in ready)
        return [s for s in ready if s.round == rnd], _round_name(rnd, specs[-1].round)

    def _out(
        self, specs: list[b.Spec], states: dict[str, b.State], settings: Settings
    ) -> dict[int, tuple[int, int]]:
        """The round each loser lost in; the third-place match's winner gets a bonus."""
        out: dict[int, tuple[int, int]] = {}
        for spec in specs:
            s = states[spec.key]
            if spec.side == "third":
                if isinstance(s.winner, int):
                    out[s.winner] = (out[s.winner][0], 1)
            elif isinstance(s.loser, int):
                out[s.loser] = (spec.round, 0)
        return out
