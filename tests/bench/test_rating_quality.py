"""bench/rating_quality.py and bench/ratings_bench/systems.py: the systems, the calibration
and aims arithmetic, and a quick run."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

from bench import rating_quality as rq
from bench.ratings_bench.systems import (
    ELO_K60,
    EloSystem,
    Glicko2Rating,
    Glicko2System,
    GlickoSystem,
    KScheme,
    OpenSkillSystem,
    Population,
    elo_rate_table,
    glicko2_update,
    simulate,
)
from ratings import elo, glicko

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


def test_elo_k60_is_the_old_k_scheme() -> None:
    expected = {(0, 1500.0): 60, (19, 2399.0): 60, (20, 1500.0): 20, (200, 2399.0): 20}
    expected |= {(0, 2400.0): 10, (300, 2600.0): 10}
    assert {key: ELO_K60(*key) for key in expected} == expected
    assert ELO_K60.describe() == "K 60 for the first 20 games, then 20; 10 from a peak of 2400"
    assert KScheme(32, 0, 32).describe() == "K 32"


def test_the_old_elo_table_arithmetic() -> None:
    assert elo_rate_table([1500, 1500], [1, 2], [32, 32]) == [1516, 1484]
    four = elo_rate_table([1500] * 4, [1, 2, 3, 4], [32] * 4)
    assert four == pytest.approx([1516, 1505.3333, 1494.6667, 1484], abs=1e-4)
    # A tie is half a win each; the favourite gains less for beating the underdog.
    assert elo_rate_table([1500, 1500], [1, 1], [32, 32]) == [1500, 1500]
    up, down = elo_rate_table([1900, 1500], [1, 2], [32, 32])
    assert up - 1900 == pytest.approx(32 * (1 - elo.expected(1900, 1500)))
    assert down == pytest.approx(1500 - (up - 1900))
    with pytest.raises(ValueError):
        elo_rate_table([1500], [1], [32])
    with pytest.raises(ValueError):
        elo_rate_table([1500, 1500], [1, 2], [32])


def test_the_elo_system_is_the_old_table_with_games_and_peaks() -> None:
    system = EloSystem(3, ELO_K60)
    system.update([2, 0], [1, 2])
    assert system.scores([2, 0, 1]) == [*elo_rate_table([1500, 1500], [1, 2], [60, 60]), 1500]
    assert system.games == [1, 0, 1]
    assert system.peaks == [1500, 1500, system.rating(2)]
    # Its chances on two players are Elo's own expected score.
    won, lost = system.rating(2), system.rating(0)
    assert system.chances([2, 0]) == pytest.approx(
        [elo.expected(won, lost), elo.expected(lost, won)]
    )


def test_ours_is_compute_s_glicko_with_a_drift_per_game() -> None:
    system = GlickoSystem(4)
    system.update([0, 1, 2], [1, 2, 3])
    first = glicko.rate_table(
        [glicko.Skill(1500, glicko.before_game(glicko.START_DEVIATION, 0.0))] * 3, [1, 2, 3]
    )
    assert [system.skills[p] for p in (0, 1, 2)] == first
    assert system.skills[3] == glicko.Skill()
    # The next table brings each deviation grown by one game's drift: exactly before_game.
    system.update([2, 3], [1, 2])
    brought = [
        glicko.Skill(first[2].rating, glicko.before_game(first[2].deviation, 0.0)),
        glicko.Skill(1500, glicko.START_DEVIATION),
    ]
    assert [system.skills[2], system.skills[3]] == glicko.rate_table(brought, [1, 2])
    assert system.deviation(2) < first[2].deviation < glicko.START_DEVIATION
    assert system.scores([0, 2]) == [system.rating(0), system.rating(2)]
    assert system.fixed_scale is True


def test_the_variants_change_one_constant_each() -> None:
    systems = rq.build_systems(4, variants=True)
    assert set(rq.VARIANTS) <= set(systems) and "ours" in systems
    assert set(rq.build_systems(4)) == {"ours", "glicko2", "openskill_pl", "elo_k60"}
    steep = systems["ours_steepness_1"]
    steep.update([0, 1], [1, 2])
    brought = [glicko.Skill(1500, glicko.before_game(glicko.START_DEVIATION, 0.0))] * 2
    assert [steep.rating(0), steep.rating(1)] == [
        s.rating for s in glicko.rate_table(brought, [1, 2], steepness=1.0)
    ]
    assert steep.chances([0, 1]) == glicko.win_chances([steep.rating(0), steep.rating(1)], 1.0)
    slow = systems["ours_drift_0.15"]
    slow.update([0, 1], [1, 2])
    slow.update([0, 1], [1, 2])
    ours = systems["ours"]
    ours.update([0, 1], [1, 2])
    ours.update([0, 1], [1, 2])
    assert slow.deviation(0) < ours.deviation(0)  # less drift: a smaller deviation after two


def test_every_system_gives_chances_of_first_that_favour_the_better_rated() -> None:
    ours, pairwise = GlickoSystem(3), Glicko2System(3)
    for system in (ours, pairwise, EloSystem(3, ELO_K60), OpenSkillSystem(3)):
        assert system.chances([0, 1, 2]) == pytest.approx([1 / 3] * 3)
        system.update([0, 1, 2], [1, 2, 3])
        chances = system.chances([0, 1, 2])
        assert sum(chances) == pytest.approx(1)
        assert chances[0] > chances[1] > chances[2] > 0
    assert ours.chances([0, 2]) == pytest.approx(glicko.win_chances(ours.scores([0, 2])))
    # Glicko-2's on two players: its own logistic scale, steepness 1, the RDs left out.
    gap = (pairwise.rating(0) - pairwise.rating(1)) / glicko.GLICKO_SCALE
    assert pairwise.chances([0, 1])[0] == pytest.approx(1 / (1 + math.exp(-gap)))


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


def test_a_shared_first_place_is_won_a_share_each() -> None:
    assert rq.first_shares([2, 1, 3]) == [0, 1, 0]
    assert rq.first_shares([1, 3, 1, 1]) == pytest.approx([1 / 3, 0, 1 / 3, 1 / 3])


def calibrated(games: list[tuple[list[float], list[int]]]) -> rq.Calibration:
    c = rq.Calibration()
    for chances, places in games:
        c.add(chances, rq.first_shares(places))
    return c


# A table of two won by the first player, a table of four by the third, a shared first of two.
HAND = [[1, 2], [2, 3, 1, 4], [1, 1]]


def test_a_perfect_predictor_scores_zero() -> None:
    perfect = [[1.0, 0.0], [0.0, 0.0, 1.0, 0.0], [0.5, 0.5]]
    figures = calibrated(list(zip(perfect, HAND, strict=True))).figures()
    assert figures["brier_per_game"] == 0 and figures["brier_per_player_game"] == 0
    assert figures["log_loss"] == pytest.approx((2 * 0.5 * math.log(2)) / 3, abs=1e-5)
    table = figures["reliability"]
    assert table["count"] == [4, 0, 0, 0, 0, 2, 0, 0, 0, 2]
    assert table["observed_share"][0] == 0 and table["observed_share"][9] == 1
    assert table["mean_predicted"][1] is None


def test_the_uniform_predictor_scores_one_minus_one_over_n() -> None:
    uniform = [[1 / len(places)] * len(places) for places in HAND]
    c = calibrated(list(zip(uniform, HAND, strict=True)))
    figures = c.figures()
    # Two players: 2 x 1/4 = 1/2; four: 9/16 + 3/16 = 3/4; a shared first of two: 0.
    assert figures["brier_per_game"] == pytest.approx((0.5 + 0.75 + 0) / 3, abs=1e-5)
    assert figures["brier_per_player_game"] == pytest.approx(1.25 / 8, abs=1e-5)
    assert figures["log_loss"] == pytest.approx((3 * math.log(2) + math.log(2)) / 3, abs=1e-5)
    table = figures["reliability"]
    assert sum(table["count"]) == c.player_games == 8
    assert table["count"][2] == 4 and table["count"][5] == 4
    assert table["mean_predicted"][2] == 0.25 and table["observed_share"][2] == 0.25
    assert table["observed_share"][5] == 0.5


def test_calibrations_merge_as_if_summed_at_once() -> None:
    chances = [[0.7, 0.3], [0.1, 0.2, 0.6, 0.1], [0.45, 0.55]]
    games = list(zip(chances, HAND, strict=True))
    whole = calibrated(games)
    merged = calibrated(games[:1])
    merged.merge(calibrated(games[1:]))
    assert merged.figures() == whole.figures()
    assert rq.Calibration().figures() == {"games": 0}


def tally(correct: float, settles: list[float]) -> rq.Tally:
    return rq.Tally(correct=[correct] * 10, settles=settles)


def test_the_aims_compare_ours_with_both_peers() -> None:
    games = rq.Games(pairs=[1.0] * 10)
    tallies = {
        "ours": tally(0.84, [3, 5, 7, 9, math.inf]),
        "glicko2": tally(0.83, [4, 6, 8, math.inf, math.inf]),
        "openskill_pl": tally(0.82, [9, 9, 9, 9, math.inf, math.inf]),
    }
    aims = rq.aims(tallies, games, 2)
    pairs = aims["pair_accuracy_above_peers"]
    assert (pairs["ours"], pairs["glicko2"], pairs["met"]) == (0.84, 0.83, True)
    assert set(pairs["z_over"]) == {"glicko2", "openskill_pl"}
    assert aims["median_games_to_within_100"] == {"ours": 7, "at_most": 8, "met": True}
    never = aims["never_within_100_below_peers"]
    assert (never["ours"], never["glicko2"], never["openskill_pl"]) == (0.2, 0.4, 0.333)
    assert never["met"] and aims["all_met"]

    # Equal is not above, nor below; a median among the never-converged is none at all.
    tallies["glicko2"] = tally(0.84, [1, 2, 3, 4, math.inf])
    tallies["ours"].settles = [9, 9, 9, math.inf, math.inf]
    aims = rq.aims(tallies, games, 2)
    assert not aims["pair_accuracy_above_peers"]["met"]
    assert aims["median_games_to_within_100"] == {"ours": 9, "at_most": 8, "met": False}
    assert not aims["never_within_100_below_peers"]["met"] and not aims["all_met"]
    tallies["ours"].settles = [math.inf] * 3
    assert rq.aim_median(tallies["ours"]) == {"ours": None, "at_most": 8, "met": False}


def test_populations_pool_into_one_tally_per_system() -> None:
    one = rq.PopulationRun(1, {"ours": tally(0.8, [1])}, rq.Games(pairs=[1.0] * 10))
    two = rq.PopulationRun(2, {"ours": tally(0.6, [2, 3])}, rq.Games(pairs=[1.0] * 10))
    tallies, games = rq.pooled([one, two])
    assert sum(tallies["ours"].correct) / sum(games.pairs) == pytest.approx(0.7)
    assert tallies["ours"].settles == [1, 2, 3]
    assert one.tallies["ours"].settles == [1]  # the populations' own figures are kept


def test_a_quick_run_prints_the_figures() -> None:
    command = [sys.executable, "bench/rating_quality.py", "--quick"]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    systems = result["systems"]
    assert set(systems) == {"ours", "glicko2", "openskill_pl", "elo_k60"}
    for figures in systems.values():
        shares = [figures["pair_accuracy"], figures["pair_accuracy_second_half"]]
        shares += figures["by_table_size"].values()
        assert all(0 <= x <= 1 for x in shares)
        assert set(figures["by_table_size"]) == {str(n) for n in range(2, 9)}
        assert figures["convergence"]["newcomers"] > 0
        calibration = figures["calibration"]
        assert calibration["games"] == result["games"] == 6000
        # Better than chance: below the uniform predictor's Brier score and log loss.
        uniform = result["calibration_uniform"]
        assert calibration["brier_per_game"] < uniform["brier_per_game"]
        assert calibration["log_loss"] < uniform["log_loss"]
    seats = sum(result["calibration_uniform"]["reliability"]["count"])
    assert all(sum(f["calibration"]["reliability"]["count"]) == seats for f in systems.values())
    assert systems["ours"]["pair_accuracy"] > 0.5
    assert set(result["vs_ours"]) == set(systems) - {"ours"}
    assert result["verdict"]["best_other"] in result["vs_ours"]
    assert isinstance(result["verdict"]["measurably_beats_ours"], bool)
    assert result["parameters"]["players"] == 500
    population = result["per_population"]["1"]
    assert set(population) == {*systems, "uniform"}
    assert population["ours"]["pair_accuracy"] == systems["ours"]["pair_accuracy"]
    aims = result["aims"]
    assert set(aims["per_population"]) == {"1"}
    assert aims["per_population"]["1"] == aims["pooled"]  # one population: the same figures
    assert set(aims["pooled"]) == {
        "pair_accuracy_above_peers",
        "median_games_to_within_100",
        "never_within_100_below_peers",
        "all_met",
    }
    assert isinstance(aims["all_met"], bool)
