"""Rating-quality benchmark: how well ratings order the players at a table; prints one JSON object.

Run from the repository root: ``python bench/rating_quality.py [--players N] [--games N]
[--runs N] [--seed N] [--spread S] [--drift S] [--noise S] [--horizon N] [--quick]``.

The population is Elo-MMR's synthetic one (Ebtekar & Liu, "Elo-MMR: A Rating System for Massive
Multiplayer Competitions", their small synthetic set: 1000 players, 15000 rounds of 5): skills
drawn from N(1500, 350), each player's skill takes a N(0, 35) step before every game they play (a
Gaussian random walk), a performance is skill plus logistic noise of SD 200, and a table's places
are the performances' order. Half the players are there from the start, the rest arrive evenly
over the first two thirds of the games; a game seats 2 to 8 (uniform) of those present, at
random. ``--runs`` populations (seeds ``seed``, ``seed + 1``...) are pooled. The drift decides
which K wins (a fast-changing population wants a larger K): ``--drift 10`` or ``--drift 0`` model a
club whose players change slowly.

Every system sees the same games. Before a game it predicts the order from its current ratings;
the figure is the share of player pairs at the table it orders as they finished (a predicted tie
counts half), overall, by table size and over the second half of each run. Then it updates.

- ``ours``: ratings/elo.py, ``rate_table`` with ``k_factor`` (games and peak kept per player).
- ``openskill_pl``: the ``openskill`` package's Plackett-Luce, predicting by mu.
- ``glicko2``: pairwise Glicko-2 (tau 0.5), a table being one rating period
  (bench/ratings_bench/systems.py).
- ``VARIANTS``: our Elo with other K constants, on the same games.

Paired comparison: a system's pair accuracy minus ours on the same games, with a standard error
from batch means over ``BLOCKS`` runs of consecutive games per population (nearby games share
ratings, so single games are not independent). "Measurably better" is more than two SE.

Convergence. A player's *settled rating* is their hidden skill now, mapped onto the rating scale:
Elo and Glicko-2 share the logistic scale of Elo's formula, which puts ``points_per_skill`` rating
points on a skill point (the slope at which Elo's expected score matches the true chance of
outperforming an equal); the level is the established players' (``SETTLED_GAMES`` games or more)
mean offset at the nearest of ``CHECKPOINTS`` moments. OpenSkill's mu has no fixed Elo reading
(its scale depends on the table size), so its line is fitted to the established players. Not a
mean of late ratings: the skill drifts, and a system whose ratings spread too little must not be
excused by its own compressed scale. For each newcomer with ``--horizon`` games or more: the
games after which their rating is within 100 points (of our scale) of the settled rating and
stays so for ``STAY`` more games (when it first gets within is reported too); a newcomer never
there within the horizon counts as not converged (a percentile among them is null).
``established_rms_error`` is the established players' distance from it in the second half of each
run, ``established_spread_ratio`` the slope of their ratings on skill as a share of the model's.
"""

from __future__ import annotations

import argparse
import bisect
import json
import math
import platform
import statistics
import sys
import time
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, Protocol

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.ratings_bench.systems import (
    EloSystem,
    Glicko2System,
    KScheme,
    OpenSkillSystem,
    Population,
    Simulation,
    simulate,
)
from ratings.elo import k_factor

BLOCKS = 50
CHECKPOINTS = 20
SETTLED_GAMES = 40
THRESHOLD = 100.0
STAY = 5

#: Other K constants for our Elo: (provisional K, provisional games, established K, master K).
#: ``issue_k40`` is the scheme issue 6 proposed (K 40 while provisional); this bench showed K 60
#: for the first 20 games measurably better at every drift tried, and ratings/elo.py adopted it.
VARIANTS = {
    "issue_k40": KScheme(40, 20, 20, 10),
    "const16": KScheme(16, 0, 16),
    "const24": KScheme(24, 0, 24),
    "const32": KScheme(32, 0, 32),
    "const40": KScheme(40, 0, 40),
    "prov80": KScheme(80, 20, 20, 10),
    "prov60_30g": KScheme(60, 30, 20, 10),
    "prov60_10g": KScheme(60, 10, 20, 10),
    "prov40_30g": KScheme(40, 30, 20, 10),
    "est16": KScheme(60, 20, 16, 10),
    "est24": KScheme(60, 20, 24, 10),
    "est32": KScheme(60, 20, 32, 10),
    "no_master": KScheme(60, 20, 20),
}

Paths = dict[int, list[tuple[int, float]]]


class System(Protocol):
    fixed_scale: bool  # ratings on Elo's logistic scale by design (else mapped by a fitted line)

    def rating(self, player: int) -> float: ...
    def scores(self, players: list[int]) -> list[float]: ...
    def update(self, players: list[int], places: list[int]) -> None: ...


@dataclass
class Run:
    """One system on one population."""

    correct: list[float] = field(default_factory=list)  # pairs ordered right, per game
    fits: list[tuple[int, float, float]] = field(default_factory=list)  # (game, a, b)
    rms: list[float] = field(default_factory=list)  # established players' error, per fit
    spread: list[float] = field(default_factory=list)  # their slope / the model's, per fit
    paths: dict[int, list[float]] = field(default_factory=dict)  # newcomers' ratings
    start: float = 0.0  # everyone's rating before their first game
    seconds: float = 0.0


@dataclass
class Tally:
    """One system's figures pooled over the populations."""

    correct: list[float] = field(default_factory=list)
    firsts: list[float] = field(default_factory=list)
    settles: list[float] = field(default_factory=list)
    rms: list[float] = field(default_factory=list)
    spread: list[float] = field(default_factory=list)
    seconds: float = 0.0


@dataclass
class Games:
    """What every system shares, pooled: pairs and table size per game, second half or not."""

    pairs: list[float] = field(default_factory=list)
    sizes: list[int] = field(default_factory=list)
    late: list[bool] = field(default_factory=list)


def pairs_correct(scores: list[float], places: list[int]) -> float:
    """Pairs whose predicted order (higher score first) matches the places; a predicted tie
    counts half, a tie in places too."""
    total = 0.0
    n = len(scores)
    for i in range(n):
        for j in range(i + 1, n):
            if scores[i] == scores[j] or places[i] == places[j]:
                total += 0.5
            elif (scores[i] > scores[j]) == (places[i] < places[j]):
                total += 1.0
    return total


def points_per_skill(noise: float) -> float:
    """Rating points per skill point: the slope that makes Elo's expected score match the chance
    of outperforming at equal skills. Two logistic noises of SD ``noise`` (scale ``s``) differ by
    0 with density 1 / (6 s); Elo's curve has slope ln 10 / 1600 there."""
    s = noise * math.sqrt(3.0) / math.pi
    return 1600.0 / math.log(10.0) / (6.0 * s)


def slope(xs: list[float], ys: list[float]) -> float:
    """The least-squares slope of ``ys`` on ``xs``."""
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sxx


def checkpoint(
    system: System, run: Run, g: int, played: list[int], skill: list[float], scale: float
) -> None:
    """The settled line ``a + b skill`` now (``b`` is ``scale``, or fitted when the system's
    scale is not fixed), the established players' RMS distance from it in our points, and the
    slope their ratings show as a share of ``scale``."""
    settled = [q for q, n in enumerate(played) if n >= SETTLED_GAMES]
    if len(settled) < 50:
        return
    xs = [skill[q] for q in settled]
    ys = [system.rating(q) for q in settled]
    fitted = slope(xs, ys)
    b = scale if system.fixed_scale else fitted
    a = statistics.fmean(y - b * x for x, y in zip(xs, ys, strict=True))
    run.fits.append((g, a, b))
    run.spread.append(fitted / scale)
    errors = [(y - a - b * x) * scale / b for x, y in zip(xs, ys, strict=True)]
    run.rms.append(math.sqrt(statistics.fmean(e * e for e in errors)))


def run_system(system: System, sim: Simulation, tracked: Paths, scale: float) -> Run:
    """Predict, score and update game by game; keep the tracked newcomers' ratings."""
    run = Run(start=system.rating(0))
    start = time.process_time()
    players = len(sim.arrivals)
    played, skill = [0] * players, [0.0] * players
    every = max(1, len(sim.games) // CHECKPOINTS)
    for g, game in enumerate(sim.games):
        if g and g % every == 0:
            checkpoint(system, run, g, played, skill, scale)
        run.correct.append(pairs_correct(system.scores(game.players), game.places))
        system.update(game.players, game.places)
        for q, s in zip(game.players, game.skills, strict=True):
            played[q] += 1
            skill[q] = s
            if q in tracked and played[q] <= len(tracked[q]):
                run.paths.setdefault(q, []).append(system.rating(q))
    checkpoint(system, run, len(sim.games), played, skill, scale)
    run.seconds = time.process_time() - start
    return run


def newcomer_games(sim: Simulation, horizon: int) -> Paths:
    """(game index, skill) of the first ``horizon`` games of newcomers who play that many."""
    seen: Paths = {}
    for g, game in enumerate(sim.games):
        for q, s in zip(game.players, game.skills, strict=True):
            if sim.arrivals[q] > 0 and len(seen.setdefault(q, [])) < horizon:
                seen[q].append((g, s))
    return {q: v for q, v in seen.items() if len(v) == horizon}


def errors(run: Run, q: int, path: list[tuple[int, float]], scale: float) -> list[float]:
    """Newcomer ``q``'s distance from their settled rating before their first game and after
    each, in our rating points."""
    times = [g for g, _, _ in run.fits]
    out = []
    for rating, (g, s) in zip([run.start, *run.paths[q]], [path[0], *path], strict=True):
        i = bisect.bisect_left(times, g)
        if i == len(times) or (i > 0 and g - times[i - 1] < times[i] - g):
            i -= 1
        _, a, b = run.fits[i]
        out.append(abs(rating - a - b * s) * scale / b)
    return out


def first_and_settled(errs: list[float]) -> tuple[float, float]:
    """Games until first within ``THRESHOLD``, and until within it for ``STAY`` more games too
    (infinite: not within the path)."""
    ok = [e <= THRESHOLD for e in errs]
    first = next((k for k, x in enumerate(ok) if x), math.inf)
    settled = next((k for k in range(len(ok) - STAY) if all(ok[k : k + STAY + 1])), math.inf)
    return first, settled


def percentile(values: list[float], q: float) -> float | None:
    """Nearest rank; None when it falls among the never-converged (infinite) values."""
    ranked = sorted(values)
    v = ranked[max(0, math.ceil(q * len(ranked)) - 1)]
    return None if math.isinf(v) else v


def build_systems(players: int) -> dict[str, System]:
    systems: dict[str, System] = {
        "ours": EloSystem(players, k_factor),
        "openskill_pl": OpenSkillSystem(players),
        "glicko2": Glicko2System(players),
    }
    systems.update({name: EloSystem(players, k) for name, k in VARIANTS.items()})
    return systems


def one_population(p: Population, horizon: int, tallies: dict[str, Tally], games: Games) -> None:
    """Simulate one population, run every system on it and pool the figures."""
    sim = simulate(p)
    newcomers = newcomer_games(sim, horizon)
    scale = points_per_skill(p.noise)
    for name, system in build_systems(p.players).items():
        run = run_system(system, sim, newcomers, scale)
        tally = tallies.setdefault(name, Tally())
        tally.correct += run.correct
        tally.seconds += run.seconds
        if run.fits:
            found = [first_and_settled(errors(run, q, v, scale)) for q, v in newcomers.items()]
            tally.firsts += [f for f, _ in found]
            tally.settles += [s for _, s in found]
            tally.rms += run.rms[len(run.rms) // 2 :]
            tally.spread.append(run.spread[-1])
    games.pairs += [len(g.players) * (len(g.players) - 1) / 2 for g in sim.games]
    games.sizes += [len(g.players) for g in sim.games]
    games.late += [g >= len(sim.games) // 2 for g in range(len(sim.games))]


def convergence(t: Tally) -> dict[str, Any]:
    if not t.settles:
        return {"newcomers": 0}
    return {
        "newcomers": len(t.settles),
        "games_to_within_100_median": percentile(t.settles, 0.5),
        "games_to_within_100_p90": percentile(t.settles, 0.9),
        "not_within_100_share": round(sum(map(math.isinf, t.settles)) / len(t.settles), 3),
        "first_within_100_median": percentile(t.firsts, 0.5),
        "first_within_100_p90": percentile(t.firsts, 0.9),
        "established_rms_error": round(statistics.fmean(t.rms), 1),
        "established_spread_ratio": round(statistics.fmean(t.spread), 3),
    }


def accuracy(t: Tally, games: Games) -> dict[str, Any]:
    def share(keep: list[bool]) -> float:
        c = sum(x for x, k in zip(t.correct, keep, strict=True) if k)
        return round(c / sum(p for p, k in zip(games.pairs, keep, strict=True) if k), 4)

    sizes = sorted(set(games.sizes))
    return {
        "pair_accuracy": round(sum(t.correct) / sum(games.pairs), 4),
        "pair_accuracy_second_half": share(games.late),
        "by_table_size": {str(n): share([s == n for s in games.sizes]) for n in sizes},
    }


def paired_difference(
    a: list[float], b: list[float], pairs: list[float], block: int
) -> tuple[float, float]:
    """Pair accuracy of ``a`` minus that of ``b`` on the same games, and its standard error by
    batch means over blocks of ``block`` consecutive games (a ratio estimator)."""
    d = [x - y for x, y in zip(a, b, strict=True)]
    total = sum(pairs)
    diff = sum(d) / total
    edges = range(0, len(d), block)
    blocks = [(sum(d[i : i + block]), sum(pairs[i : i + block])) for i in edges]
    k = len(blocks)
    if k < 2:
        return diff, math.nan
    var = k / (k - 1) * sum((db - diff * pb) ** 2 for db, pb in blocks)
    return diff, math.sqrt(var) / total


def compare(tallies: dict[str, Tally], pairs: list[float], block: int) -> dict[str, Any]:
    out: dict[str, Any] = {}
    ours = tallies["ours"].correct
    for name, t in tallies.items():
        if name != "ours":
            diff, se = paired_difference(t.correct, ours, pairs, block)
            z = round(diff / se, 2) if se > 0 else None
            out[name] = {"difference": round(diff, 5), "standard_error": round(se, 5), "z": z}
    return out


def verdict(vs_ours: dict[str, Any]) -> dict[str, Any]:
    """The K variant with the best pair accuracy, and whether it beats ours by over 2 SE."""
    best = max(VARIANTS, key=lambda v: vs_ours[v]["difference"])
    z = vs_ours[best]["z"]
    beats = z is not None and z > 2.0
    text = (
        f"{best} ({VARIANTS[best].describe()}) "
        f"{'measurably beats' if beats else 'does not measurably beat'} ours: "
        f"{vs_ours[best]['difference']:+.4f} pair accuracy, z {z}"
    )
    others = [s for s in ("openskill_pl", "glicko2") if (vs_ours[s]["z"] or 0.0) > 2.0]
    if others:
        text += f"; also measurably better than ours: {', '.join(others)}"
    return {"best_variant": best, "measurably_beats_ours": beats, "text": text}


def parse(argv: list[str] | None) -> tuple[Population, int, int]:
    d = Population()
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--players", type=int, default=d.players, help="at least 500")
    parser.add_argument("--games", type=int, default=d.games, help="tables per population")
    parser.add_argument("--runs", type=int, default=4, help="populations pooled (default 4)")
    parser.add_argument("--seed", type=int, default=d.seed, help="the first population's seed")
    parser.add_argument("--spread", type=float, default=d.spread, help="SD of initial skills")
    parser.add_argument("--drift", type=float, default=d.drift, help="SD of a skill's step a game")
    parser.add_argument("--noise", type=float, default=d.noise, help="SD of performance noise")
    parser.add_argument("--horizon", type=int, default=60, help="newcomers' games followed")
    parser.add_argument("--quick", action="store_true", help="500 players, 6000 games, 1 run")
    args = parser.parse_args(argv)
    if args.players < 500:
        parser.error("--players must be at least 500")
    if args.quick:
        args.players, args.games, args.runs, args.horizon = 500, 6000, 1, 20
    p = Population(args.players, args.games, args.seed, args.spread, args.drift, args.noise)
    return p, args.runs, args.horizon


def main(argv: list[str] | None = None) -> None:
    population, runs, horizon = parse(argv)
    start = time.process_time()
    tallies: dict[str, Tally] = {}
    games = Games()
    for i in range(runs):
        one_population(replace(population, seed=population.seed + i), horizon, tallies, games)
    vs_ours = compare(tallies, games.pairs, max(1, math.ceil(population.games / BLOCKS)))
    extra = {"runs": runs, "horizon": horizon, "table_sizes": "2-8 uniform"}
    extra |= {"threshold": THRESHOLD, "stay": STAY, "settled_games": SETTLED_GAMES}
    result: dict[str, Any] = {
        "python": platform.python_version(),
        "parameters": asdict(population) | extra,
        "points_per_skill": round(points_per_skill(population.noise), 4),
        "games": len(games.pairs),
        "pairs": int(sum(games.pairs)),
        "systems": {
            name: accuracy(t, games)
            | {"convergence": convergence(t), "cpu_seconds": round(t.seconds, 2)}
            for name, t in tallies.items()
        },
        "vs_ours": vs_ours,
        "verdict": verdict(vs_ours),
        "cpu_seconds_total": round(time.process_time() - start, 2),
    }
    print(json.dumps(result))


if __name__ == "__main__":
    main()
