"""Rating-quality benchmark: how well ratings order the players at a table; prints one JSON object.

Run from the repository root: ``python bench/rating_quality.py [--players N] [--games N]
[--runs N] [--seed N] [--spread S] [--drift S] [--noise S] [--horizon N] [--quick]
[--variants]``. ``--variants`` adds ours with one constant changed (``VARIANTS``), which is how
ratings/glicko.py's constants were chosen.

The population is Elo-MMR's synthetic one (Ebtekar & Liu, "Elo-MMR: A Rating System for Massive
Multiplayer Competitions", their small synthetic set: 1000 players, 15000 rounds of 5): skills
drawn from N(1500, 350), each player's skill takes a N(0, 35) step before every game they play (a
Gaussian random walk), a performance is skill plus logistic noise of SD 200, and a table's places
are the performances' order. Half the players are there from the start, the rest arrive evenly
over the first two thirds of the games; a game seats 2 to 8 (uniform) of those present, at
random. ``--runs`` populations (seeds ``seed``, ``seed + 1``...) are pooled. The drift decides
how fast a rating must follow its player (a fast-changing population wants larger moves):
``--drift 10`` or ``--drift 0`` model a club whose players change slowly.

Every system sees the same games. Before a game it predicts the order from its current ratings;
the figure is the share of player pairs at the table it orders as they finished (a predicted tie
counts half), overall, by table size and over the second half of each run. Then it updates.

- ``ours``: ratings/glicko.py as ratings/compute.py applies it (``GlickoSystem`` in
  bench/ratings_bench/systems.py): a rating and a deviation per player, the deviation grown by
  ``before_game`` (one game's drift; no clock here, so no time away), then ``rate_table``.
- ``glicko2``: pairwise Glicko-2 (tau 0.5), a table being one rating period.
- ``openskill_pl``: the ``openskill`` package's Plackett-Luce, predicting by mu.
- ``elo_k60``: the fixed-K multiplayer Elo used before issue 19 (K 60 for the first 20 games,
  20 after, 10 from a peak of 2400).

Calibration. Before each game every system also gives each player's chance of finishing first
(ours: ``ratings.glicko.win_chances``; glicko2 and elo_k60: the same Plackett-Luce on their
ratings with steepness 1, their own logistic scale; openskill_pl: its ``predict_win``), against
what happened (1 for the winner; a first place shared by k counts 1/k each). Reported: the Brier
score (the mean over games of the sum over players of (chance - won)^2, and the same per
player-game), the log loss (the mean over games of -sum of won x ln chance) and a reliability
table of 10 bins of predicted chance (count, mean predicted, observed share);
``calibration_uniform`` is the same for a chance of 1/N each, the baseline a system must beat.
A system's ``cpu_seconds`` count its predictions (order and chances) and its updates.

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

Issue 19's aims, checked pooled and for each population (``per_population`` has each one's
figures): (a) ours orders more pairs right than both ``glicko2`` and ``openskill_pl``; (b) the
median newcomer is within 100 points of their level (and stays) after at most ``AIM_MEDIAN``
games; (c) fewer of ours' newcomers than of either peer's never get there within the horizon
(``not_within_100_share``).
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
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, Protocol

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.ratings_bench.systems import (
    ELO_K60,
    EloSystem,
    Glicko2System,
    GlickoSystem,
    OpenSkillSystem,
    Population,
    Simulation,
    simulate,
)
from ratings.glicko import GLICKO_SCALE

BLOCKS = 50
CHECKPOINTS = 20
SETTLED_GAMES = 40
THRESHOLD = 100.0
STAY = 5
#: Reliability bins of predicted chance: [0, 0.1), [0.1, 0.2) ... [0.9, 1].
BINS = 10
#: The systems ours must beat at ordering pairs and at bringing newcomers to their level.
PEERS = ("glicko2", "openskill_pl")
#: Issue 19's aim: the median newcomer within 100 points of their level after this many games.
AIM_MEDIAN = 8

Paths = dict[int, list[tuple[int, float]]]


class System(Protocol):
    fixed_scale: bool  # ratings on Elo's logistic scale by design (else mapped by a fitted line)

    def rating(self, player: int) -> float: ...
    def scores(self, players: list[int]) -> list[float]: ...
    def chances(self, players: list[int]) -> list[float]: ...
    def update(self, players: list[int], places: list[int]) -> None: ...


@dataclass
class Calibration:
    """Predicted chances of finishing first against what happened, summed as they come."""

    games: int = 0
    player_games: int = 0
    brier: float = 0.0  # sum over games of the sum over players of (chance - won)^2
    log_loss: float = 0.0  # sum over games of -sum over players of won ln(chance)
    counts: list[int] = field(default_factory=lambda: [0] * BINS)
    predicted: list[float] = field(default_factory=lambda: [0.0] * BINS)  # chances, per bin
    observed: list[float] = field(default_factory=lambda: [0.0] * BINS)  # wins, per bin

    def add(self, chances: Sequence[float], won: Sequence[float]) -> None:
        self.games += 1
        self.player_games += len(chances)
        for p, w in zip(chances, won, strict=True):
            self.brier += (p - w) ** 2
            if w:
                self.log_loss -= w * math.log(max(p, 1e-15))
            b = min(BINS - 1, max(0, int(p * BINS)))
            self.counts[b] += 1
            self.predicted[b] += p
            self.observed[b] += w

    def merge(self, other: Calibration) -> None:
        self.games += other.games
        self.player_games += other.player_games
        self.brier += other.brier
        self.log_loss += other.log_loss
        for b in range(BINS):
            self.counts[b] += other.counts[b]
            self.predicted[b] += other.predicted[b]
            self.observed[b] += other.observed[b]

    def figures(self) -> dict[str, Any]:
        """The Brier score per game and per player-game, the log loss per game, and the
        reliability table as columns, one entry per bin (null where a bin is empty)."""
        if not self.games:
            return {"games": 0}
        rows = list(zip(self.counts, self.predicted, self.observed, strict=True))
        return {
            "games": self.games,
            "brier_per_game": round(self.brier / self.games, 5),
            "brier_per_player_game": round(self.brier / self.player_games, 5),
            "log_loss": round(self.log_loss / self.games, 5),
            "reliability": {
                "bin_from": [b / BINS for b in range(BINS)],
                "count": list(self.counts),
                "mean_predicted": [round(p / n, 4) if n else None for n, p, _ in rows],
                "observed_share": [round(w / n, 4) if n else None for n, _, w in rows],
            },
        }


def first_shares(places: Sequence[int]) -> list[float]:
    """What each player won of first place: 1 for a lone winner, 1/k each for k sharing it."""
    best = min(places)
    k = sum(p == best for p in places)
    return [1.0 / k if p == best else 0.0 for p in places]


@dataclass
class Run:
    """One system on one population."""

    correct: list[float] = field(default_factory=list)  # pairs ordered right, per game
    calibration: Calibration = field(default_factory=Calibration)
    fits: list[tuple[int, float, float]] = field(default_factory=list)  # (game, a, b)
    rms: list[float] = field(default_factory=list)  # established players' error, per fit
    spread: list[float] = field(default_factory=list)  # their slope / the model's, per fit
    paths: dict[int, list[float]] = field(default_factory=dict)  # newcomers' ratings
    start: float = 0.0  # everyone's rating before their first game
    seconds: float = 0.0


@dataclass
class Tally:
    """One system's figures, of one population or pooled over several."""

    correct: list[float] = field(default_factory=list)
    calibration: Calibration = field(default_factory=Calibration)
    firsts: list[float] = field(default_factory=list)
    settles: list[float] = field(default_factory=list)
    rms: list[float] = field(default_factory=list)
    spread: list[float] = field(default_factory=list)
    seconds: float = 0.0

    def merge(self, other: Tally) -> None:
        self.correct += other.correct
        self.calibration.merge(other.calibration)
        self.firsts += other.firsts
        self.settles += other.settles
        self.rms += other.rms
        self.spread += other.spread
        self.seconds += other.seconds


@dataclass
class Games:
    """What every system shares: pairs and table size per game, second half or not, and the
    uniform predictor's calibration."""

    pairs: list[float] = field(default_factory=list)
    sizes: list[int] = field(default_factory=list)
    late: list[bool] = field(default_factory=list)
    uniform: Calibration = field(default_factory=Calibration)

    def merge(self, other: Games) -> None:
        self.pairs += other.pairs
        self.sizes += other.sizes
        self.late += other.late
        self.uniform.merge(other.uniform)


@dataclass(frozen=True)
class PopulationRun:
    """One population's figures: its systems' tallies and the games they share."""

    seed: int
    tallies: dict[str, Tally]
    games: Games


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
        run.calibration.add(system.chances(game.players), first_shares(game.places))
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


#: ``--variants``: ours with one constant changed, to show why each has its value (the drift in
#: points: a volatility of 0.15 or 0.30; the pair exponent 0 counts every pair as a game, 0.6
#: less; steepness 1 is Glicko-2's own scale).
VARIANTS: dict[str, dict[str, float]] = {
    "ours_drift_0.15": {"drift": 0.15 * GLICKO_SCALE},
    "ours_drift_0.30": {"drift": 0.30 * GLICKO_SCALE},
    "ours_pairs_0": {"exponent": 0.0},
    "ours_pairs_0.6": {"exponent": 0.6},
    "ours_steepness_1": {"steepness": 1.0},
}


def build_systems(players: int, variants: bool = False) -> dict[str, System]:
    systems: dict[str, System] = {
        "ours": GlickoSystem(players),
        "glicko2": Glicko2System(players),
        "openskill_pl": OpenSkillSystem(players),
        "elo_k60": EloSystem(players, ELO_K60),
    }
    if variants:
        systems.update({name: GlickoSystem(players, **o) for name, o in VARIANTS.items()})
    return systems


def one_population(p: Population, horizon: int, variants: bool = False) -> PopulationRun:
    """Simulate one population and run every system on it (``VARIANTS`` too if asked)."""
    sim = simulate(p)
    newcomers = newcomer_games(sim, horizon)
    scale = points_per_skill(p.noise)
    tallies: dict[str, Tally] = {}
    for name, system in build_systems(p.players, variants).items():
        run = run_system(system, sim, newcomers, scale)
        tally = Tally(correct=run.correct, calibration=run.calibration, seconds=run.seconds)
        if run.fits:
            found = [first_and_settled(errors(run, q, v, scale)) for q, v in newcomers.items()]
            tally.firsts = [f for f, _ in found]
            tally.settles = [s for _, s in found]
            tally.rms = run.rms[len(run.rms) // 2 :]
            tally.spread = [run.spread[-1]]
        tallies[name] = tally
    games = Games()
    games.pairs = [len(g.players) * (len(g.players) - 1) / 2 for g in sim.games]
    games.sizes = [len(g.players) for g in sim.games]
    games.late = [g >= len(sim.games) // 2 for g in range(len(sim.games))]
    for game in sim.games:
        n = len(game.players)
        games.uniform.add([1.0 / n] * n, first_shares(game.places))
    return PopulationRun(p.seed, tallies, games)


def never_share(t: Tally) -> float | None:
    """The share of newcomers never within 100 points (and staying) within the horizon."""
    return sum(map(math.isinf, t.settles)) / len(t.settles) if t.settles else None


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


def z_score(diff: float, se: float) -> float | None:
    return round(diff / se, 2) if se > 0 else None


def compare(tallies: dict[str, Tally], pairs: list[float], block: int) -> dict[str, Any]:
    out: dict[str, Any] = {}
    ours = tallies["ours"].correct
    for name, t in tallies.items():
        if name != "ours":
            diff, se = paired_difference(t.correct, ours, pairs, block)
            out[name] = {
                "difference": round(diff, 5),
                "standard_error": round(se, 5),
                "z": z_score(diff, se),
            }
    return out


def verdict(vs_ours: dict[str, Any]) -> dict[str, Any]:
    """The other system with the best pair accuracy, and whether it beats ours by over 2 SE."""
    best = max(vs_ours, key=lambda v: vs_ours[v]["difference"])
    z = vs_ours[best]["z"]
    beats = z is not None and z > 2.0
    text = (
        f"{best} {'measurably beats' if beats else 'does not measurably beat'} ours: "
        f"{vs_ours[best]['difference']:+.4f} pair accuracy, z {z}"
    )
    others = [s for s in vs_ours if s != best and (vs_ours[s]["z"] or 0.0) > 2.0]
    if others:
        text += f"; also measurably better than ours: {', '.join(others)}"
    return {"best_other": best, "measurably_beats_ours": beats, "text": text}


def aim_pairs(tallies: dict[str, Tally], games: Games, block: int) -> dict[str, Any]:
    """Aim (a): ours orders more pairs right than each peer (unrounded), with the paired z."""
    total = sum(games.pairs)
    acc = {name: sum(tallies[name].correct) / total for name in ("ours", *PEERS)}
    ours = tallies["ours"].correct
    z = {
        peer: z_score(*paired_difference(ours, tallies[peer].correct, games.pairs, block))
        for peer in PEERS
    }
    met = all(acc["ours"] > acc[peer] for peer in PEERS)
    return {name: round(a, 4) for name, a in acc.items()} | {"z_over": z, "met": met}


def aim_median(ours: Tally) -> dict[str, Any]:
    """Aim (b): ours' median newcomer within 100 points after at most ``AIM_MEDIAN`` games."""
    median = percentile(ours.settles, 0.5) if ours.settles else None
    met = median is not None and median <= AIM_MEDIAN
    return {"ours": median, "at_most": AIM_MEDIAN, "met": met}


def aim_never(tallies: dict[str, Tally]) -> dict[str, Any]:
    """Aim (c): a smaller share of ours' newcomers than of each peer's never within 100 points
    within the horizon (unrounded)."""
    never = {name: never_share(tallies[name]) for name in ("ours", *PEERS)}
    ours = never["ours"]
    met = ours is not None and all(
        (theirs := never[peer]) is not None and ours < theirs for peer in PEERS
    )
    shown = {name: None if v is None else round(v, 3) for name, v in never.items()}
    return shown | {"met": met}


def aims(tallies: dict[str, Tally], games: Games, block: int) -> dict[str, Any]:
    """Issue 19's three aims on these figures (one population's or the pooled ones), each with
    what it compares and whether it is met."""
    checked = {
        "pair_accuracy_above_peers": aim_pairs(tallies, games, block),
        "median_games_to_within_100": aim_median(tallies["ours"]),
        "never_within_100_below_peers": aim_never(tallies),
    }
    return checked | {"all_met": all(aim["met"] for aim in checked.values())}


def headline(t: Tally, games: Games) -> dict[str, Any]:
    """A system's key figures on one population."""
    never = never_share(t)
    return {
        "pair_accuracy": round(sum(t.correct) / sum(games.pairs), 4),
        "games_to_within_100_median": percentile(t.settles, 0.5) if t.settles else None,
        "not_within_100_share": None if never is None else round(never, 3),
        "brier_per_game": round(t.calibration.brier / t.calibration.games, 5),
    }


def per_population(done: list[PopulationRun]) -> dict[str, Any]:
    """Each population's key figures, per system, by seed."""
    return {
        str(pop.seed): {name: headline(t, pop.games) for name, t in pop.tallies.items()}
        | {
            "uniform": {
                "brier_per_game": round(pop.games.uniform.brier / pop.games.uniform.games, 5)
            }
        }
        for pop in done
    }


def all_aims(
    tallies: dict[str, Tally], games: Games, done: list[PopulationRun], block: int
) -> dict[str, Any]:
    """The aims pooled and for each population; ``all_met`` only when every one is met."""
    out: dict[str, Any] = {"pooled": aims(tallies, games, block)}
    out["per_population"] = {str(pop.seed): aims(pop.tallies, pop.games, block) for pop in done}
    out["all_met"] = out["pooled"]["all_met"] and all(
        a["all_met"] for a in out["per_population"].values()
    )
    return out


def pooled(done: list[PopulationRun]) -> tuple[dict[str, Tally], Games]:
    tallies: dict[str, Tally] = {}
    games = Games()
    for pop in done:
        for name, t in pop.tallies.items():
            tallies.setdefault(name, Tally()).merge(t)
        games.merge(pop.games)
    return tallies, games


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
    parser.add_argument("--variants", action="store_true", help="ours with other constants too")
    args = parser.parse_args(argv)
    if args.players < 500:
        parser.error("--players must be at least 500")
    if args.quick:
        args.players, args.games, args.runs, args.horizon = 500, 6000, 1, 20
    p = Population(args.players, args.games, args.seed, args.spread, args.drift, args.noise)
    return p, args.runs, args.horizon


def main(argv: list[str] | None = None) -> None:
    population, runs, horizon = parse(argv)
    variants = "--variants" in (sys.argv[1:] if argv is None else argv)
    start = time.process_time()
    done = [
        one_population(replace(population, seed=population.seed + i), horizon, variants)
        for i in range(runs)
    ]
    tallies, games = pooled(done)
    block = max(1, math.ceil(population.games / BLOCKS))
    vs_ours = compare(tallies, games.pairs, block)
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
            | {
                "calibration": t.calibration.figures(),
                "convergence": convergence(t),
                "cpu_seconds": round(t.seconds, 2),
            }
            for name, t in tallies.items()
        },
        "calibration_uniform": games.uniform.figures(),
        "vs_ours": vs_ours,
        "verdict": verdict(vs_ours),
        "per_population": per_population(done),
        "aims": all_aims(tallies, games, done, block),
        "cpu_seconds_total": round(time.process_time() - start, 2),
    }
    print(json.dumps(result))


if __name__ == "__main__":
    main()
