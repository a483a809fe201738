"""The best any rating system could do for newcomers on bench/rating_quality.py's populations;
prints one JSON object.

Run from the repository root: ``python bench/rating_bound.py [--runs N] [--seed N] [--drift S]
[--horizon N] [--quick]``.

An exact Bayesian oracle rates each newcomer the bench follows, knowing far more than a real
system can: every opponent's hidden skill at the moment of each game, the true model (a skill
drawn from N(1500, 350), a N(0, drift) step before each game, a performance of skill plus
logistic noise of SD 200, places in the performances' order) and nothing but the places. Its
belief about the newcomer's skill is a posterior on a grid of 20-point steps: before each game it
is spread by the drift, then multiplied by the exact probability of the whole finishing order
given the newcomer's skill (``order_likelihood``: the performances integrated out, on a grid of
20-point steps). Its rating is the posterior mean, on the bench's rating scale
(``points_per_skill``).

The figures are the bench's own convergence figures, from the same games: games until a
newcomer's rating is within 100 points of their level and stays so for 5 more games (median and
the share settled within 8 games), and the share never there within the horizon. No system
that rates from places can beat this oracle on average, since it sees the places and strictly
more; so an aim below its median cannot be met on these populations. Needs numpy.
"""

from __future__ import annotations

import argparse
import json
import math
import platform
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

# The repository root is on the path only now (E402).
from bench.rating_quality import (
    first_and_settled,
    newcomer_games,
    percentile,
    points_per_skill,
)
from bench.ratings_bench.systems import Population, simulate

STEP = 20.0  # the grids' step, in rating points
SKILLS = np.arange(-1600.0, 1600.0 + STEP, STEP)  # a skill's offset from 1500, rating points
PERFORMANCES = np.arange(-2800.0, 2800.0 + STEP, STEP)
WITHIN = 8  # the aim's games

Array = NDArray[np.float64]


def logistic_density(z: Array, scale: float) -> Array:
    e = np.exp(-np.abs(z) / scale)
    return e / (scale * (1.0 + e) ** 2)


def _above(density: Array) -> Array:
    """``P(performance > x)``-style tail sums over the performance grid (the last axis), by the
    trapezoid rule."""
    mass = density * STEP
    return np.cumsum(mass[..., ::-1], axis=-1)[..., ::-1] - 0.5 * mass


def order_likelihood(skills: Array, above: list[float], below: list[float], scale: float) -> Array:
    """For each candidate skill of one player, the probability of the whole finishing order:
    the players ``above`` them in their order (best first), then this player, then those
    ``below`` (best first); everyone's performance is their skill plus logistic noise of
    ``scale``. ``h(x)`` is the chance that the players so far finished in their order, all
    above ``x``; each next player's performance is integrated under it."""
    h = np.ones_like(PERFORMANCES)
    for s in above:
        h = _above(logistic_density(PERFORMANCES - s, scale) * h)
    m = _above(logistic_density(PERFORMANCES[None, :] - skills[:, None], scale) * h[None, :])
    for s in below:
        m = _above(logistic_density(PERFORMANCES - s, scale)[None, :] * m)
    return np.asarray(m[:, 0], dtype=np.float64)


def drift_kernel(sd: float) -> Array:
    reach = int(4.0 * sd / STEP) + 1
    offsets = np.arange(-reach, reach + 1) * STEP
    weights = np.exp(-0.5 * (offsets / sd) ** 2)
    return np.asarray(weights / weights.sum(), dtype=np.float64)


def one_population(p: Population, horizon: int) -> dict[str, Any]:
    """The oracle's figures on one population (the bench's newcomers, the bench's games)."""
    sim = simulate(p)
    followed = newcomer_games(sim, horizon)
    points = points_per_skill(p.noise)
    scale = p.noise * math.sqrt(3.0) / math.pi * points  # a performance's logistic scale
    kernel = drift_kernel(max(p.drift * points, STEP / 4))
    prior = np.exp(-0.5 * (SKILLS / (p.spread * points)) ** 2)
    prior /= prior.sum()
    beliefs: dict[int, Array] = {}
    errors: dict[int, list[float]] = {q: [] for q in followed}
    for game in sim.games:
        level = [points * (s - 1500.0) for s in game.skills]  # offsets on the rating scale
        order = sorted(range(len(game.players)), key=lambda i: game.places[i])
        for i, q in enumerate(game.players):
            if q not in followed or len(errors[q]) > horizon:
                continue
            if not errors[q]:
                errors[q].append(abs(level[i]))  # before their first game: rated 1500
            belief = np.convolve(beliefs.get(q, prior), kernel, mode="same")
            k = order.index(i)
            above = [level[j] for j in order[:k]]
            below = [level[j] for j in order[k + 1 :]]
            belief = belief * order_likelihood(SKILLS, above, below, scale)
            belief /= belief.sum()
            beliefs[q] = belief
            errors[q].append(abs(float((SKILLS * belief).sum()) - level[i]))
    settles = [first_and_settled(e)[1] for e in errors.values()]
    return {
        "seed": p.seed,
        "newcomers": len(settles),
        "games_to_within_100_median": percentile(settles, 0.5),
        f"settled_within_{WITHIN}_share": round(
            sum(s <= WITHIN for s in settles) / len(settles), 3
        ),
        "not_within_100_share": round(sum(map(math.isinf, settles)) / len(settles), 3),
        "settles": settles,
    }


def parse(argv: list[str] | None) -> tuple[Population, int, int]:
    d = Population()
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--runs", type=int, default=4, help="populations (default 4)")
    parser.add_argument("--seed", type=int, default=d.seed, help="the first population's seed")
    parser.add_argument("--drift", type=float, default=d.drift, help="SD of a skill's step a game")
    parser.add_argument("--horizon", type=int, default=60, help="newcomers' games followed")
    parser.add_argument("--quick", action="store_true", help="500 players, 6000 games, 1 run")
    args = parser.parse_args(argv)
    p = replace(d, seed=args.seed, drift=args.drift)
    if args.quick:
        p = replace(p, players=500, games=6000)
        args.runs, args.horizon = 1, 20
    return p, args.runs, args.horizon


def main(argv: list[str] | None = None) -> None:
    population, runs, horizon = parse(argv)
    start = time.process_time()
    found = [
        one_population(replace(population, seed=population.seed + i), horizon) for i in range(runs)
    ]
    settles = [s for f in found for s in f.pop("settles")]
    result = {
        "python": platform.python_version(),
        "parameters": {"drift": population.drift, "runs": runs, "horizon": horizon},
        "per_population": found,
        "pooled": {
            "newcomers": len(settles),
            "games_to_within_100_median": percentile(settles, 0.5),
            f"settled_within_{WITHIN}_share": round(
                sum(s <= WITHIN for s in settles) / len(settles), 3
            ),
            "not_within_100_share": round(sum(map(math.isinf, settles)) / len(settles), 3),
        },
        "cpu_seconds": round(time.process_time() - start, 2),
    }
    print(json.dumps(result))


if __name__ == "__main__":
    main()
