"""Ratings that know how sure they are: a multiplayer Glicko-2 updated after every game.

Pure, typed, no Django. Each player has a **rating** on Elo's scale (1500 to start) and a
**deviation**, how far off the rating may be (350 to start: the spread of the players themselves).
After a game of N players each player is rated as in one Glicko-2 rating period (Glickman,
"Example of the Glicko-2 system") holding one result against each other player at the table, with
three departures, each measured on ``bench/rating_quality.py`` (docs/ratings.md has the figures):

1. **A game is a period.** There are no rating periods: before each game the deviation grows by
   ``DRIFT`` (in quadrature, Glicko-2's step 6 with the volatility held), because a player's skill
   moves between one game and the next; and by ``AWAY`` per day since their last game, because it
   moves more the longer they are away (``before_game``).
2. **A table's pairs are weighted.** The N - 1 results of one table come from one performance, so
   they are not independent games: each counts ``(N - 1) ** -PAIR_EXPONENT`` of one (all of one at
   two players). (Weighting pairs by how far apart they finished as well measured slightly better
   but broke a rule players rely on: finishing higher never gains less.)
3. **A steeper scale for a table's pairs.** The expected score against each opponent is
   ``1 / (1 + exp(-STEEPNESS g (mu - mu_j)))``: ``STEEPNESS`` below 1 says a place at a card table
   is noisier than a chess result, and keeps the ratings as widely spread as the players' skills.

With two players, ``STEEPNESS`` 1 and a ``DRIFT`` of the volatility in points, ``rate_table`` is
exactly one Glicko-2 period of one game with the volatility held (``tests/ratings/test_glicko.py``
checks Glickman's published example).

>>> [round(s.rating, 2) for s in rate_table([Skill(1500, 350), Skill(1500, 350)], [1, 2])]
[1650.97, 1349.03]
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from typing import NamedTuple

from ratings.elo import START

#: Rating points per unit of Glicko-2's internal scale (400 / ln 10): Elo's logistic scale.
GLICKO_SCALE = 400.0 / math.log(10.0)

#: A newcomer's deviation: about the spread of the players' ratings, so their first games move
#: them fast. Also the most time away can bring a deviation back to.
START_DEVIATION = 350.0

#: How far a skill moves from one game to the next, in rating points (a volatility of 0.22 on
#: Glicko-2's scale), added in quadrature before each game. It keeps a settled deviation from
#: shrinking below about 100, so a rating keeps following a player who improves.
DRIFT = 0.22 * GLICKO_SCALE

#: Variance (points squared) added per day away: a settled deviation of 120 comes back to 350 in
#: about two years, 150 after 3 months away, 200 after 8 (lichess's deviation grows similarly).
AWAY_PER_DAY = (START_DEVIATION**2 - 120.0**2) / 730.0

#: A table's pairs: each of the N - 1 results counts ``(N - 1) ** -PAIR_EXPONENT`` of a game.
PAIR_EXPONENT = 0.4

#: The expected score's steepness against Elo's (1 is Glicko-2's).
STEEPNESS = 0.85

#: A rating whose deviation is above this is provisional: shown with a "?", hidden from the
#: leaderboards by default. A newcomer's deviation falls below it after 3 games at tables of six
#: to eight, 5 at four, 10 at two (a regular's settles at about 95 to 128, big tables to two).
PROVISIONAL_DEVIATION = 150.0


class Skill(NamedTuple):
    """A rating and its deviation, in rating points (a named tuple: the recompute makes two for
    every player of every game, and a tuple is several times quicker to make than a frozen
    dataclass)."""

    rating: float = START
    deviation: float = START_DEVIATION


def provisional(deviation: float) -> bool:
    """Whether a rating with this deviation is still a guess.

    >>> provisional(START_DEVIATION), provisional(100.0)
    (True, False)
    """
    return deviation > PROVISIONAL_DEVIATION


def before_game(deviation: float, days_away: float, drift: float = DRIFT) -> float:
    """The deviation a player brings to a game: grown by ``drift`` (one game's move) and by
    ``AWAY_PER_DAY`` for each day since their last game, never above ``START_DEVIATION``
    (and never below what it was: a deviation above the start is kept).

    >>> round(before_game(100.0, 0.0), 2)
    107.05
    >>> before_game(300.0, 10_000.0)
    350.0
    """
    grown = math.sqrt(deviation * deviation + drift * drift + AWAY_PER_DAY * max(0.0, days_away))
    return max(deviation, min(grown, START_DEVIATION))


def _g(phi: float) -> float:
    """Glicko's weight for an opponent whose rating is uncertain by ``phi``."""
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / (math.pi * math.pi))


def pair_weight(players: int, exponent: float = PAIR_EXPONENT) -> float:
    """How much of a game each of a table's ``players - 1`` pair results counts for.

    >>> pair_weight(2), round(pair_weight(8), 4)
    (1.0, 0.4592)
    """
    return float(players - 1) ** -exponent


def rate_table(
    skills: Sequence[Skill],
    places: Sequence[int],
    *,
    exponent: float = PAIR_EXPONENT,
    steepness: float = STEEPNESS,
) -> list[Skill]:
    """Everyone's rating and deviation after one table, from those they brought to it
    (``before_game``'s deviations); ``places`` are 1 for first, equal numbers for a tie.

    For each player, against each other player ``j`` (scale: ``mu = (r - 1500) / GLICKO_SCALE``,
    ``phi = deviation / GLICKO_SCALE``, ``w = pair_weight(N)``, ``k = steepness``)::

        E_j = 1 / (1 + exp(-k g(phi_j) (mu - mu_j)))     s_j = 1, 1/2, 0: placed above, equal, below
        1/v = sum of w k^2 g(phi_j)^2 E_j (1 - E_j)
        phi' = 1 / sqrt(1 / phi^2 + 1 / v)
        mu' = mu + phi'^2 sum of w k g(phi_j) (s_j - E_j)

    :raises ValueError: fewer than two players, or ``places`` not one per player.
    """
    n = len(skills)
    if n < 2:
        raise ValueError("a rated table needs at least two players")
    if len(places) != n:
        raise ValueError("skills and places must have one entry per player")
    w = pair_weight(n, exponent)
    mus = [(s.rating - START) / GLICKO_SCALE for s in skills]
    phis = [s.deviation / GLICKO_SCALE for s in skills]
    gs = [steepness * _g(phi) for phi in phis]
    exp = math.exp
    out = []
    # The loops are written out (no helper calls per pair): ratings_recompute runs them for
    # every player of every game in every pool.
    for i in range(n):
        mu_i, place_i = mus[i], places[i]
        information = 0.0
        gain = 0.0
        for j in range(n):
            if j == i:
                continue
            g = gs[j]
            e = 1.0 / (1.0 + exp(g * (mus[j] - mu_i)))
            information += g * g * e * (1.0 - e)
            place_j = places[j]
            score = 1.0 if place_i < place_j else 0.5 if place_i == place_j else 0.0
            gain += g * (score - e)
        phi = 1.0 / math.sqrt(1.0 / (phis[i] * phis[i]) + w * information)
        mu = mu_i + phi * phi * w * gain
        out.append(Skill(START + GLICKO_SCALE * mu, GLICKO_SCALE * phi))
    return out


def effective_k(deviation_after: float, players: int) -> float:
    """The K of Elo's formula (``K / (N - 1) x sum of (score - expected)``) this system used:
    how far a whole game's surplus moved the rating, for a player whose deviation the game left
    at ``deviation_after`` (exact when the opponents' deviations are small).

    >>> round(effective_k(100.0, 2), 2)
    48.93
    """
    return deviation_after * deviation_after * _k_per_variance(players)


@functools.cache
def _k_per_variance(players: int) -> float:
    return STEEPNESS * pair_weight(players) * (players - 1) / GLICKO_SCALE


def win_chances(ratings: Sequence[float], steepness: float = STEEPNESS) -> list[float]:
    """Each player's chance of finishing first at a table of these ratings: Plackett-Luce
    strengths ``exp(steepness (r - 1500) / GLICKO_SCALE)``, so that two players get exactly the
    expected score of ``rate_table``'s scale between settled ratings (``bench/rating_quality.py``
    reports how well calibrated they are).

    >>> [round(p, 4) for p in win_chances([1500, 1500, 1500, 1500])]
    [0.25, 0.25, 0.25, 0.25]
    >>> [round(p, 4) for p in win_chances([1900, 1500])]
    [0.8762, 0.1238]
    """
    if not ratings:
        return []
    top = max(ratings)
    strengths = [math.exp(steepness * (r - top) / GLICKO_SCALE) for r in ratings]
    total = sum(strengths)
    return [s / total for s in strengths]
