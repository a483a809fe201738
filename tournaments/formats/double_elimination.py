"""Double elimination for two-player tables.

The winners bracket is single elimination's (keys ``W<round>-<match>``, byes to the top seeds).
A first loss drops a player into the losers bracket (keys ``L<round>-<match>``): losers round 1
pairs the first-round losers, then rounds alternate between the losers of the next winners round
dropping in (one per match) and the survivors playing each other. Droppers from winners round
``r`` come in reversed order when ``r`` is even and in order when it is odd, the usual
alternation that keeps a dropper from meeting at once the players their own half sent down. A
bye that drops passes as a bye: the match it reaches is decided without play. The grand final
(``GF``) sets the winners-bracket champion (first seat) against the losers-bracket champion; with
``grand_final_reset`` a second final (``GF2``) is played only if the losers-bracket champion
wins the first. A tie on places sends the better seed through.

A player who has left the event loses each match of theirs not yet played by walkover
(``bracket``): from the winners bracket they drop into the losers bracket and go out at their
next match there; a grand final they would have played goes to their opponent, with no reset.

Rounds: every round holds every match whose two players are known and that is not yet played,
so winners and losers matches share rounds (round 1 can already hold a second-round match
between two players who both had byes).

Standings: the champion, then by how far each player got (the grand-final loser, the losers
final's loser, ...), players out in the same losers round sharing a rank. Live standings put the
players still in above those out, by fewer losses, then more wins. ``points`` is matches won, a
bye counting as a win.

>>> from .seeding import seed_by_rating
>>> field = seed_by_rating([(i, 2000.0 - i) for i in range(1, 5)])
>>> [m.key for m in DoubleElimination().bracket(field, [], Settings()).matches]
['W1-1', 'W1-2', 'W2-1', 'L1-1', 'L2-1', 'GF', 'GF2']
"""

from __future__ import annotations

from collections.abc import Sequence

from . import bracket as b
from .base import Settings
from .elimination import Elimination


def _losers_specs(winners: list[b.Spec]) -> list[b.Spec]:
    """The losers bracket fed by ``winners`` (whose last round is ``k``): 2k - 2 rounds."""
    k = winners[-1].round
    first = [s.key for s in winners if s.round == 1]
    specs = [
        b.Spec(f"L1-{m + 1}", 1, "losers", (b.loser(first[2 * m]), b.loser(first[2 * m + 1])))
        for m in range(len(first) // 2)
    ]
    for j in range(2, k + 1):
        drop, survivors = 2 * j - 2, [s.key for s in specs if s.round == 2 * j - 3]
        droppers = [s.key for s in winners if s.round == j]
        if j % 2 == 0:
            droppers.reverse()
        specs += [
            b.Spec(f"L{drop}-{m + 1}", drop, "losers", (b.winner(sv), b.loser(dr)))
            for m, (sv, dr) in enumerate(zip(survivors, droppers, strict=True))
        ]
        if j < k:
            pairs = [s.key for s in specs if s.round == drop]
            specs += [
                b.Spec(
                    f"L{drop + 1}-{m + 1}",
                    drop + 1,
                    "losers",
                    (b.winner(pairs[2 * m]), b.winner(pairs[2 * m + 1])),
                )
                for m in range(len(pairs) // 2)
            ]
    return specs


def _round_name(ready: Sequence[b.Spec]) -> str:
    parts: list[str] = []
    for spec in ready:
        if spec.side == "final":
            part = "Grand final" if spec.key == "GF" else "Grand final reset"
        else:
            part = f"{spec.side.capitalize()} round {spec.round}"
        if part not in parts:
            parts.append(part)
    return " / ".join(parts)


def _no_reset(final: b.State, settings: Settings) -> bool:
    """Whether a decided grand final is the last: its first slot lost it, there is no reset,
    or it was a walkover."""
    return final.loser == final.occupants[1] or not settings.grand_final_reset or final.walkover


class DoubleElimination(Elimination):
    """The ``double_elimination`` format (see the module)."""

    slug = "double_elimination"
    name = "Double elimination"

    def _specs(self, players: int, settings: Settings) -> list[b.Spec]:
        winners = b.winners_specs(players)
        losers = _losers_specs(winners) if winners[-1].round > 1 else []
        top = winners[-1].key
        second = b.winner(losers[-1].key) if losers else b.loser(top)
        specs = [*winners, *losers, b.Spec("GF", 1, "final", (b.winner(top), second))]
        if settings.grand_final_reset:
            specs.append(b.Spec("GF2", 2, "final", specs[-1].feeds, reset_of="GF"))
        return specs

    def _round(self, ready: list[b.Spec], specs: list[b.Spec]) -> tuple[list[b.Spec], str]:
        """Every ready match."""
        return ready, _round_name(ready)

    def _out(
        self, specs: list[b.Spec], states: dict[str, b.State], settings: Settings
    ) -> dict[int, tuple[int, int]]:
        """The losers round each loser went out in; the finals are furthest."""
        depth = max((s.round for s in specs if s.side == "losers"), default=0) + 1
        out: dict[int, tuple[int, int]] = {}
        for spec in specs:
            s = states[spec.key]
            if not isinstance(s.loser, int):
                continue
            if spec.side == "losers":
                out[s.loser] = (spec.round, 0)
            elif spec.key == "GF2" or (spec.key == "GF" and _no_reset(s, settings)):
                out[s.loser] = (depth, 0)
        return out
