"""bench/rating_quality.py and bench/ratings_bench/systems.py: the pieces and a quick run."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

from bench import rating_quality as rq
from bench.ratings_bench.systems import (
    EloSystem,
    Glicko2Rating,
    Glicko2System,
    KScheme,
    OpenSkillSystem,
    Population,
    glicko2_update,
    simulate,
)
from ratings import elo

ROOT = Path(__file__).resolve().parent.parent.parent


def test_glicko2_matches_glickmans_worked_example() -> None:
    # "Example of the Glicko-2 system": 1500/200/0.06 beats 1400/30, loses to 1550/100, 1700/300.
    after = glicko2_update(
        Glicko2Rating(1500, 200, 0.06), [(1400, 30, 1), (1550, 100, 0), (1700, 300, 0)]
    )
    assert after.rating == pytest.approx(1464.06, abs=0.01)
    assert after.rd == pytest.approx(151.52, abs=0.01)
    assert after.volatility == pytest.approx(0.05999, abs=1e-5)


def test_glicko2_without_games_only_widens_the_rd() -> None:
    after = glicko2_update(Glicko2Rating(1600, 100, 0.06), [])
    assert after.rating == 1600
    assert after.rd == pytest.approx(math.hypot(100, 0.06 * 173.7178))


def test_a_glicko2_table_moves_the_winner_up_and_the_loser_down() -> None:
    system = Glicko2System(3)
    system.update([0, 1, 2], [1, 2, 3])
    assert system.rating(0) > 1500 > system.rating(2)
    assert system.rating(1) == pytest.approx(1500)


def test_pairs_correct_on_hand_cases() -> None:
    assert rq.pairs_correct([3.0, 2.0, 1.0], [1, 2, 3]) == 3
    assert rq.pairs_correct([1.0, 2.0, 3.0], [1, 2, 3]) == 0
    assert rq.pairs_correct([5.0, 5.0, 5.0], [1, 2, 3]) == 1.5
    # Players 0 and 1 are tied in prediction (a half); 2 is rightly last against both.
    assert rq.pairs_correct([2.0, 2.0, 1.0], [1, 2, 3]) == 2.5
    assert rq.pairs_correct([1500.0, 1600.0], [1, 2]) == 0


def test_the_k_scheme_of_ours_is_k_factor() -> None:
    ours = KScheme(elo.K_PROVISIONAL, elo.PROVISIONAL_GAMES, elo.K_ESTABLISHED, elo.K_MASTER)
    for games in (0, 1, 19, 20, 21, 200):
        for peak in (1500.0, 2399.0, 2400.0, 2600.0):
            assert ours(games, peak) == elo.k_factor(games, peak)
    assert ours.describe() == "K 60 for the first 20 games, then 20; 10 from a peak of 2400"
    assert KScheme(32, 0, 32).describe() == "K 32"


def test_the_elo_system_is_rate_table_with_games_and_peaks() -> None:
    system = EloSystem(3, elo.k_factor)
    system.update([2, 0], [1, 2])
    k = elo.K_PROVISIONAL
    assert system.scores([2, 0, 1]) == [*elo.rate_table([1500, 1500], [1, 2], [k, k]), 1500]
    assert system.games == [1, 0, 1]
    assert system.peaks == [1500, 1500, system.rating(2)]


def test_openskill_reads_its_mu_in_elo_points() -> None:
    system = OpenSkillSystem(2)
    assert system.rating(0) == 1500
    system.update([0, 1], [1, 2])
    assert system.rating(0) > 1500 > system.rating(1)
    assert system.scores([0, 1])[0] > 25


def test_the_simulation_is_deterministic_for_a_seed() -> None:
    p = Population(players=40, games=200, seed=7)
    one, two = simulate(p), simulate(p)
    assert one == two
    assert simulate(Population(players=40, games=200, seed=8)) != one
    assert {len(g.players) for g in one.games} == set(range(2, 9))
    for game in one.games:
        assert sorted(game.places) == list(range(1, len(game.players) + 1))
        assert len(set(game.players)) == len(game.players)
    assert one.arrivals[:20] == [0] * 20 and 0 < one.arrivals[20] < one.arrivals[-1] < 200


def test_without_drift_a_skill_stays_put_and_newcomers_arrive_late() -> None:
    sim = simulate(Population(players=40, games=300, seed=3, drift=0.0))
    first: dict[int, float] = {}
    for g, game in enumerate(sim.games):
        for q, s in zip(game.players, game.skills, strict=True):
            assert first.setdefault(q, s) == s
            assert g >= sim.arrivals[q]


def test_points_per_skill_follows_the_noise() -> None:
    assert rq.points_per_skill(200) == pytest.approx(1.0503, abs=1e-4)
    assert rq.points_per_skill(100) == pytest.approx(2 * rq.points_per_skill(200))


def test_convergence_counts_games_until_within_and_staying() -> None:
    stay = rq.STAY
    errs = [300.0, 90.0, 150.0] + [50.0] * (stay + 1)
    assert rq.first_and_settled(errs) == (1, 3)
    assert rq.first_and_settled([300.0] * 10) == (math.inf, math.inf)
    assert rq.percentile([1.0, 2.0, 3.0, math.inf], 0.5) == 2.0
    assert rq.percentile([1.0, 2.0, 3.0, math.inf], 0.9) is None


def test_paired_difference_and_its_standard_error() -> None:
    pairs = [1.0] * 100
    same = [0.5] * 100
    assert rq.paired_difference(same, same, pairs, 10) == (0.0, 0.0)
    better = [0.6 if i % 2 else 0.5 for i in range(100)]
    diff, se = rq.paired_difference(better, same, pairs, 10)
    assert diff == pytest.approx(0.05)
    assert se == pytest.approx(0.0)  # every block gains the same
    uneven = [0.5 + (0.1 if i < 50 else 0.0) for i in range(100)]
    diff, se = rq.paired_difference(uneven, same, pairs, 10)
    assert diff == pytest.approx(0.05) and se > 0


def test_a_quick_run_prints_the_figures() -> None:
    command = [sys.executable, "bench/rating_quality.py", "--quick"]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    systems = result["systems"]
    assert set(systems) == {"ours", "openskill_pl", "glicko2", *rq.VARIANTS}
    for figures in systems.values():
        shares = [figures["pair_accuracy"], figures["pair_accuracy_second_half"]]
        shares += figures["by_table_size"].values()
        assert all(0 <= x <= 1 for x in shares)
        assert set(figures["by_table_size"]) == {str(n) for n in range(2, 9)}
        assert figures["convergence"]["newcomers"] > 0
    assert systems["ours"]["pair_accuracy"] > 0.5
    assert set(result["vs_ours"]) == set(systems) - {"ours"}
    assert result["verdict"]["best_variant"] in rq.VARIANTS
    assert isinstance(result["verdict"]["measurably_beats_ours"], bool)
    assert result["parameters"]["players"] == 500
