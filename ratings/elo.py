"""Elo's scale, shared by every rating figure: the start, the logistic scale, the expected score,
and the places a game is rated by. Pure, typed, no Django.

The ratings themselves move by ``ratings.glicko`` (issue 19 replaced the fixed-K multiplayer Elo
that lived here; ``bench/ratings_bench/systems.py`` keeps it as the bench's comparison).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

#: Every player's first rating in every pool: the conventional Elo midpoint, so that ratings
#: read the way chess players expect (1500 average, 2000 strong, 2400 master).
START = 1500.0

#: The logistic scale: a 400-point gap means the stronger player is expected to score 10 to 1,
#: Elo's own convention (FIDE, lichess's Elo-era ratings).
SCALE = 400.0


def expected(ra: float, rb: float) -> float:
    """The share of a game between them that a player rated ``ra`` is expected to score
    against one rated ``rb``.

    >>> expected(1500, 1500)
    0.5
    >>> round(expected(1900, 1500), 4)
    0.9091
    """
    return 1.0 / (1.0 + math.pow(10.0, (rb - ra) / SCALE))


def rated_places(places: Sequence[int], absent: Sequence[bool]) -> list[int]:
    """Places for rating: players present keep their order (ties stay ties, renumbered 1, 1,
    3...), and absent players share the last place after them whatever they scored.

    >>> rated_places([1, 2, 3, 4], [False, True, False, True])
    [1, 3, 2, 3]
    >>> rated_places([1, 1, 3], [False, False, False])
    [1, 1, 3]
    """
    if len(places) != len(absent):
        raise ValueError("places and absent must have one entry per player")
    present = sorted(p for p, gone in zip(places, absent, strict=True) if not gone)
    last = len(present) + 1
    return [last if gone else 1 + present.index(p) for p, gone in zip(places, absent, strict=True)]
