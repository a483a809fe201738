"""Elo for tables of 2 to 8 players: pure, typed, no Django.

A table of N players is read as N - 1 two-player games per player (each pair once, both ways),
and each player's change is scaled by ``1 / (N - 1)`` so that a table moves a rating about as far
as one two-player game: the same K means the same volatility whatever the table size, and two
players reduce to classic Elo.

>>> [round(r, 4) for r in rate_table([1500, 1500], [1, 2], [32, 32])]
[1516.0, 1484.0]
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

#: Games a player counts as provisional in a pool: hidden from the leaderboards by default, and
#: rated with the larger K_PROVISIONAL while the rating finds its level.
PROVISIONAL_GAMES = 20

#: K while provisional: large, so a new player's first games find their level quickly. Issue 6
#: proposed 40; bench/rating_quality.py, on Elo-MMR-style synthetic players, found 60 orders
#: more pairs correctly at every skill drift it tried (+0.0005, +0.0024 and +0.0026 pair
#: accuracy at drift 35, 10 and 0, each more than three standard errors) and brings a newcomer
#: within 100 points of their level in fewer games (median 33 instead of 40 at drift 35), so 60
#: it is. 80 did better still when skills hardly drift but not when they do.
K_PROVISIONAL = 60.0

#: K once established: half as large, so one lucky or unlucky table moves a settled rating by at
#: most 20 points and the leaderboard is not reshuffled by noise.
K_ESTABLISHED = 20.0

#: K for anyone who has ever reached MASTER_RATING: the top of the list moves slowly, as FIDE
#: does at 2400, so a title-level rating reflects a long record rather than a good evening.
K_MASTER = 10.0

#: The peak rating after which K_MASTER applies for good (FIDE's threshold for K 10).
MASTER_RATING = 2400.0


def expected(ra: float, rb: float) -> float:
    """The share of a game between them that a player rated ``ra`` is expected to score
    against one rated ``rb``.

    >>> expected(1500, 1500)
    0.5
    >>> round(expected(1900, 1500), 4)
    0.9091
    """
    return 1.0 / (1.0 + math.pow(10.0, (rb - ra) / SCALE))


def k_factor(games: int, peak: float) -> float:
    """K for a player with ``games`` rated games in the pool and the given peak rating there.

    >>> k_factor(0, 1500), k_factor(20, 1600), k_factor(300, 2400)
    (60.0, 20.0, 10.0)
    """
    if peak >= MASTER_RATING:
        return K_MASTER
    if games < PROVISIONAL_GAMES:
        return K_PROVISIONAL
    return K_ESTABLISHED


def rate_table(ratings: Sequence[float], places: Sequence[int], k: Sequence[float]) -> list[float]:
    """New ratings after one table: ``places`` are 1 for first, equal numbers for a tie.

    ``new_i = r_i + k_i / (N - 1) * sum over j != i of (S_ij - expected(r_i, r_j))`` where
    ``S_ij`` is 1 if i placed better than j, 0.5 if equal, 0 if worse.

    :raises ValueError: fewer than two players, or sequences of different lengths.

    >>> [round(r, 4) for r in rate_table([1500] * 4, [1, 2, 3, 4], [32] * 4)]
    [1516.0, 1505.3333, 1494.6667, 1484.0]
    """
    n = len(ratings)
    if n < 2:
        raise ValueError("a rated table needs at least two players")
    if len(places) != n or len(k) != n:
        raise ValueError("ratings, places and k must have one entry per player")
    out = []
    for i in range(n):
        total = 0.0
        for j in range(n):
            if j != i:
                total += _score(places[i], places[j]) - expected(ratings[i], ratings[j])
        out.append(ratings[i] + k[i] / (n - 1) * total)
    return out


def _score(mine: int, theirs: int) -> float:
    if mine < theirs:
        return 1.0
    if mine == theirs:
        return 0.5
    return 0.0


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
