"""The simulated population and the rating systems of bench/rating_quality.py (not a benchmark
of its own; that module's docstring describes the population).

Each system holds the ratings of players numbered ``0..players - 1`` and offers ``scores``
(higher is better: the order it predicts for a table), ``chances`` (each player's chance of
finishing first at a table, summing to 1), ``update`` (after a table, ``places`` 1 for first) and
``rating`` (on the system's own scale):

- ``GlickoSystem``: ours, ratings/glicko.py exactly as ratings/compute.py applies it: each player
  brings ``Skill(rating, before_game(deviation, 0))`` to a table (the bench has no clock, so the
  deviation grows by one game's drift only), then ``rate_table``; chances by ``win_chances``.
- ``EloSystem``: the fixed-K multiplayer Elo the service used before issue 19 (``elo_rate_table``
  here, a copy of what ratings/elo.py had), with K from ``ELO_K60`` or any ``KScheme``; chances by
  Plackett-Luce on Elo's own logistic scale (steepness 1).
- ``OpenSkillSystem``: the ``openskill`` package's Plackett-Luce model, each player a team of one,
  predicting by ``mu`` and its ``predict_win``; its ``rating`` is mu read in Elo points
  (``OPENSKILL_POINTS``);
- ``Glicko2System``: Glicko-2 as in Glickman's "Example of the Glicko-2 system", a table being a
  rating period of one pairwise result against each other player at it (against their ratings
  before the table). Periods are a player's own tables: an absent player's RD does not grow.
  Chances by Plackett-Luce on its ratings with steepness 1 (Glicko-2's own scale).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from openskill.models import PlackettLuce

from ratings.elo import START, expected
from ratings.glicko import Skill, before_game, rate_table, win_chances

#: Glicko-2's scale: rating points per unit of its internal mu (400 / ln 10).
GLICKO_SCALE = 173.7178
#: A new player's RD and volatility in Glicko-2, Glickman's suggested defaults.
GLICKO_RD = 350.0
GLICKO_VOLATILITY = 0.06
#: The system constant tau (Glickman: between 0.3 and 1.2; 0.5 in his example).
GLICKO_TAU = 0.5
_EPSILON = 1e-6

KFunction = Callable[[int, float], float]


@dataclass(frozen=True)
class Population:
    players: int = 1000
    games: int = 15000
    seed: int = 1
    spread: float = 350.0  # SD of the skills drawn, around 1500
    drift: float = 35.0  # SD of a skill's step before each game its player plays
    noise: float = 200.0  # SD of the logistic noise on a performance


@dataclass(frozen=True)
class Game:
    players: list[int]
    places: list[int]
    skills: list[float]  # each player's hidden skill in this game


@dataclass
class Simulation:
    games: list[Game]
    arrivals: list[int]  # the game index each player arrives at (0 for the first half)


def logistic(rng: random.Random, sd: float) -> float:
    u = min(max(rng.random(), 1e-12), 1.0 - 1e-12)
    return sd * math.sqrt(3.0) / math.pi * math.log(u / (1.0 - u))


def simulate(p: Population) -> Simulation:
    """The games, their places and the players' skills: deterministic for ``p.seed``. Half the
    players are there at the start, the rest arrive evenly over the first two thirds of games."""
    rng = random.Random(p.seed)
    skills = [rng.gauss(START, p.spread) for _ in range(p.players)]
    first = max(8, p.players // 2)
    later = p.players - first
    arrivals = [0] * first + [1 + i * (2 * p.games // 3) // max(1, later) for i in range(later)]
    present = first
    games = []
    for g in range(p.games):
        while present < p.players and arrivals[present] <= g:
            present += 1
        table = rng.sample(range(present), rng.randint(2, 8))
        for q in table:
            skills[q] += rng.gauss(0.0, p.drift)
        perf = [skills[q] + logistic(rng, p.noise) for q in table]
        order = sorted(range(len(table)), key=lambda i: -perf[i])
        places = [0] * len(table)
        for place, i in enumerate(order, 1):
            places[i] = place
        games.append(Game(table, places, [skills[q] for q in table]))
    return Simulation(games, arrivals)


#: The peak rating from which the old Elo's master K applied for good (FIDE's threshold for K 10).
MASTER_RATING = 2400.0


def elo_rate_table(
    ratings: Sequence[float], places: Sequence[int], k: Sequence[float]
) -> list[float]:
    """The old Elo's ratings after one table (ratings/elo.py's ``rate_table`` before issue 19):
    ``new_i = r_i + k_i / (N - 1) * sum over j != i of (S_ij - expected(r_i, r_j))``, ``S_ij``
    1 if i placed better than j, 0.5 if equal, 0 if worse.

    >>> [round(r, 4) for r in elo_rate_table([1500] * 4, [1, 2, 3, 4], [32] * 4)]
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
                total += _pair_score(places[i], places[j]) - expected(ratings[i], ratings[j])
        out.append(ratings[i] + k[i] / (n - 1) * total)
    return out


@dataclass(frozen=True)
class KScheme:
    """K of the old Elo given a player's games and peak: ``provisional`` for the first
    ``provisional_games`` games, ``established`` after, ``master`` (if any) for good once the
    peak reaches ``MASTER_RATING``."""

    provisional: float
    provisional_games: int
    established: float
    master: float | None = None

    def __call__(self, games: int, peak: float) -> float:
        if self.master is not None and peak >= MASTER_RATING:
            return self.master
        return self.provisional if games < self.provisional_games else self.established

    def describe(self) -> str:
        """In words, e.g. ``K 40 for the first 20 games, then 20; 10 from a peak of 2400``."""
        if self.provisional_games:
            text = f"K {self.provisional:g} for the first {self.provisional_games} games, then "
        else:
            text = "K "
        text += f"{self.established:g}"
        if self.master is not None:
            text += f"; {self.master:g} from a peak of {MASTER_RATING:g}"
        return text


#: The K the service used until issue 19 (the bench's ``elo_k60`` row): 60 for the first 20
#: games, 20 after, 10 for good from a peak of 2400.
ELO_K60 = KScheme(60, 20, 20, 10)


class EloSystem:
    """The old Elo: ``elo_rate_table`` with K from ``k`` given each player's games and peak."""

    fixed_scale = True

    def __init__(self, players: int, k: KFunction) -> None:
        self.k = k
        self.ratings = [START] * players
        self.games = [0] * players
        self.peaks = [START] * players

    def rating(self, player: int) -> float:
        return self.ratings[player]

    def scores(self, players: Sequence[int]) -> list[float]:
        return [self.ratings[p] for p in players]

    def chances(self, players: Sequence[int]) -> list[float]:
        """Plackett-Luce on Elo's scale: two players get exactly ``expected``."""
        return win_chances(self.scores(players), steepness=1.0)

    def update(self, players: Sequence[int], places: Sequence[int]) -> None:
        ks = [self.k(self.games[p], self.peaks[p]) for p in players]
        after = elo_rate_table(self.scores(players), places, ks)
        for p, r in zip(players, after, strict=True):
            self.ratings[p] = r
            self.games[p] += 1
            self.peaks[p] = max(self.peaks[p], r)


#: Elo points per unit of OpenSkill's mu: between two players of small sigma, Plackett-Luce gives
#: the better one 1 / (1 + exp(-(mu_i - mu_j) / c)) with c = sqrt(2) beta, and Elo gives
#: 1 / (1 + exp(-(r_i - r_j) ln 10 / 400)). At larger tables c grows with the number of players,
#: so this two-player reading is only indicative (``fixed_scale`` is False: the bench maps mu to
#: skill by a fitted line instead).
OPENSKILL_POINTS = 400.0 / math.log(10.0) / (math.sqrt(2.0) * 25.0 / 6.0)


class OpenSkillSystem:
    """OpenSkill's Plackett-Luce with its defaults (mu 25, sigma 25/3, beta 25/6), predicting
    by ``mu``; ``rating`` is mu in Elo points, ``START`` for a new player."""

    fixed_scale = False

    def __init__(self, players: int) -> None:
        self.model = PlackettLuce()
        self.ratings = [self.model.rating() for _ in range(players)]

    def rating(self, player: int) -> float:
        return START + (self.ratings[player].mu - self.model.mu) * OPENSKILL_POINTS

    def scores(self, players: Sequence[int]) -> list[float]:
        return [float(self.ratings[p].mu) for p in players]

    def chances(self, players: Sequence[int]) -> list[float]:
        return [float(p) for p in self.model.predict_win([[self.ratings[p]] for p in players])]

    def update(self, players: Sequence[int], places: Sequence[int]) -> None:
        teams = [[self.ratings[p]] for p in players]
        after = self.model.rate(teams, ranks=[float(x) for x in places])
        for p, team in zip(players, after, strict=True):
            self.ratings[p] = team[0]


@dataclass(frozen=True)
class Glicko2Rating:
    rating: float = START
    rd: float = GLICKO_RD
    volatility: float = GLICKO_VOLATILITY


def _g(phi: float) -> float:
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / (math.pi * math.pi))


def _new_volatility(sigma: float, phi: float, v: float, delta: float, tau: float) -> float:
    """Step 5 of Glickman's procedure: the Illinois algorithm on f(x) = 0."""
    a = math.log(sigma * sigma)

    def f(x: float) -> float:
        ex = math.exp(x)
        d = phi * phi + v + ex
        return ex * (delta * delta - phi * phi - v - ex) / (2.0 * d * d) - (x - a) / (tau * tau)

    lo = a
    if delta * delta > phi * phi + v:
        hi = math.log(delta * delta - phi * phi - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        hi = a - k * tau
    f_lo, f_hi = f(lo), f(hi)
    while abs(hi - lo) > _EPSILON:
        mid = lo + (lo - hi) * f_lo / (f_hi - f_lo)
        f_mid = f(mid)
        if f_mid * f_hi <= 0:
            lo, f_lo = hi, f_hi
        else:
            f_lo /= 2.0
        hi, f_hi = mid, f_mid
    return math.exp(lo / 2.0)


def glicko2_update(
    player: Glicko2Rating,
    results: Sequence[tuple[float, float, float]],
    tau: float = GLICKO_TAU,
) -> Glicko2Rating:
    """The player's rating after one period of ``results``: (opponent's rating, opponent's RD,
    score 1 / 0.5 / 0). With no results only the RD grows, as Glickman prescribes."""
    mu = (player.rating - START) / GLICKO_SCALE
    phi = player.rd / GLICKO_SCALE
    if not results:
        rd = math.sqrt(phi * phi + player.volatility**2) * GLICKO_SCALE
        return Glicko2Rating(player.rating, rd, player.volatility)
    inv_v = 0.0
    gain = 0.0
    for r_j, rd_j, score in results:
        g = _g(rd_j / GLICKO_SCALE)
        e = 1.0 / (1.0 + math.exp(-g * (mu - (r_j - START) / GLICKO_SCALE)))
        inv_v += g * g * e * (1.0 - e)
        gain += g * (score - e)
    v = 1.0 / inv_v
    sigma = _new_volatility(player.volatility, phi, v, v * gain, tau)
    phi_star = math.sqrt(phi * phi + sigma * sigma)
    phi_new = 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + inv_v)
    mu_new = mu + phi_new * phi_new * gain
    return Glicko2Rating(START + GLICKO_SCALE * mu_new, GLICKO_SCALE * phi_new, sigma)


def _pair_score(mine: int, theirs: int) -> float:
    return 1.0 if mine < theirs else 0.5 if mine == theirs else 0.0


class Glicko2System:
    """Pairwise Glicko-2: a table is one rating period of every pair's result."""

    fixed_scale = True

    def __init__(self, players: int, tau: float = GLICKO_TAU) -> None:
        self.tau = tau
        self.ratings = [Glicko2Rating() for _ in range(players)]

    def rating(self, player: int) -> float:
        return self.ratings[player].rating

    def scores(self, players: Sequence[int]) -> list[float]:
        return [self.ratings[p].rating for p in players]

    def chances(self, players: Sequence[int]) -> list[float]:
        """Plackett-Luce on Glicko-2's scale (steepness 1), ignoring the RDs."""
        return win_chances(self.scores(players), steepness=1.0)

    def update(self, players: Sequence[int], places: Sequence[int]) -> None:
        before = [self.ratings[p] for p in players]
        for i, p in enumerate(players):
            results = [
                (b.rating, b.rd, _pair_score(places[i], places[j]))
                for j, b in enumerate(before)
                if j != i
            ]
            self.ratings[p] = glicko2_update(before[i], results, self.tau)


class GlickoSystem:
    """Ours: ratings/glicko.py as ratings/compute.py applies it, a ``Skill`` per player; before a
    table each brings ``Skill(rating, before_game(deviation, 0.0))`` (no clock here: the drift is
    per game played, and no time away), then ``rate_table``. The module's constants are read at
    each call, never copied."""

    fixed_scale = True

    def __init__(
        self,
        players: int,
        *,
        drift: float | None = None,
        exponent: float | None = None,
        steepness: float | None = None,
    ) -> None:
        """``drift`` (points), ``exponent`` (the pair weight's) and ``steepness`` other than the
        module's: the variants ``--variants`` compares."""
        self.skills = [Skill()] * players
        self.drift = drift
        self.options = {
            k: v for k, v in (("exponent", exponent), ("steepness", steepness)) if v is not None
        }

    def rating(self, player: int) -> float:
        return self.skills[player].rating

    def deviation(self, player: int) -> float:
        return self.skills[player].deviation

    def scores(self, players: Sequence[int]) -> list[float]:
        return [self.skills[p].rating for p in players]

    def chances(self, players: Sequence[int]) -> list[float]:
        steepness = self.options.get("steepness")
        if steepness is None:
            return win_chances(self.scores(players))
        return win_chances(self.scores(players), steepness)

    def update(self, players: Sequence[int], places: Sequence[int]) -> None:
        drift = () if self.drift is None else (self.drift,)
        brought = [
            Skill(s.rating, before_game(s.deviation, 0.0, *drift))
            for s in (self.skills[p] for p in players)
        ]
        for p, skill in zip(players, rate_table(brought, places, **self.options), strict=True):
            self.skills[p] = skill
