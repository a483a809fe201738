"""The multiplayer Glicko-2 without a database: Glickman's worked example where the method
reduces to Glicko-2, known answers, and properties over random tables."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ratings.glicko import (
    AWAY_PER_DAY,
    DRIFT,
    GLICKO_SCALE,
    PROVISIONAL_DEVIATION,
    START_DEVIATION,
    STEEPNESS,
    Skill,
    before_game,
    effective_k,
    pair_weight,
    provisional,
    rate_table,
    win_chances,
)

#: Glickman's "Example of the Glicko-2 system": a player rated 1500, RD 200, volatility 0.06
#: beats a 1400 (RD 30) and loses to a 1550 (RD 100) and a 1700 (RD 300) in one period; after it
#: they are rated 1464.06 with RD 151.52 (volatility 0.05999).
VOLATILITY = 0.06


def test_glickmans_worked_example_where_the_method_reduces_to_glicko2() -> None:
    # One table of four where the player's results are exactly the example's: the two higher
    # rated players above, the 1400 below. Glicko-2 takes the three results at full weight
    # (exponent 0) on its own scale (steepness 1), and the period's step 6 widens the player's
    # own RD by the volatility before the results: our drift, with the volatility held.
    phi_star = math.hypot(200.0, VOLATILITY * GLICKO_SCALE)
    table = [Skill(1500, phi_star), Skill(1400, 30), Skill(1550, 100), Skill(1700, 300)]
    after = rate_table(table, [3, 4, 2, 1], exponent=0.0, steepness=1.0)[0]
    assert after.rating == pytest.approx(1464.06, abs=0.01)
    assert after.deviation == pytest.approx(151.52, abs=0.01)


def test_two_players_is_one_glicko2_period_of_one_game() -> None:
    # Glicko-2's formulas for one game (Glickman, steps 3 to 7), volatility held.
    me, them = Skill(1620, 120), Skill(1480, 80)
    mu, phi = (me.rating - 1500) / GLICKO_SCALE, me.deviation / GLICKO_SCALE
    mu_j, phi_j = (them.rating - 1500) / GLICKO_SCALE, them.deviation / GLICKO_SCALE
    g = 1 / math.sqrt(1 + 3 * phi_j**2 / math.pi**2)
    e = 1 / (1 + math.exp(-g * (mu - mu_j)))
    v = 1 / (g * g * e * (1 - e))
    phi_new = 1 / math.sqrt(1 / phi**2 + 1 / v)
    mu_new = mu + phi_new**2 * g * (0 - e)  # a loss
    after = rate_table([me, them], [2, 1], steepness=1.0)[0]
    assert after.rating == pytest.approx(1500 + GLICKO_SCALE * mu_new, abs=1e-9)
    assert after.deviation == pytest.approx(GLICKO_SCALE * phi_new, abs=1e-9)
    # The pair weight is exactly one at two players, whatever the exponent.
    assert pair_weight(2) == 1.0


def test_two_newcomers_known_answer() -> None:
    winner, loser = rate_table([Skill(), Skill()], [1, 2])
    assert (round(winner.rating, 2), round(loser.rating, 2)) == (1650.97, 1349.03)
    assert round(winner.deviation, 2) == round(loser.deviation, 2) == 303.69


def test_the_deviation_a_player_brings_grows_with_drift_and_time_away() -> None:
    assert before_game(100.0, 0.0) == pytest.approx(math.hypot(100.0, DRIFT))
    assert before_game(100.0, 30.0) == pytest.approx(
        math.sqrt(100.0**2 + DRIFT**2 + 30 * AWAY_PER_DAY)
    )
    assert before_game(100.0, 10_000.0) == START_DEVIATION  # capped at a newcomer's
    assert before_game(START_DEVIATION, 0.0) == START_DEVIATION
    assert before_game(100.0, -5.0) == before_game(100.0, 0.0)  # a clock step back is no time


def test_provisional_by_deviation() -> None:
    assert provisional(START_DEVIATION)
    assert provisional(PROVISIONAL_DEVIATION + 0.01)
    assert not provisional(PROVISIONAL_DEVIATION)


def test_refuses_a_table_of_one_or_mismatched_lengths() -> None:
    with pytest.raises(ValueError, match="two players"):
        rate_table([Skill()], [1])
    with pytest.raises(ValueError, match="one entry per player"):
        rate_table([Skill(), Skill()], [1])


def test_effective_k_is_elos_k_for_a_settled_pair() -> None:
    # Between two settled players (small deviations, g near 1) the change is K x (s - E).
    me, them = Skill(1500, 60), Skill(1500, 1)
    after = rate_table([me, them], [1, 2])[0]
    k = effective_k(after.deviation, 2)
    e = 1 / (1 + math.exp(0.0))
    assert after.rating - me.rating == pytest.approx(k * (1 - e), rel=1e-3)


def test_win_chances() -> None:
    assert win_chances([]) == []
    assert win_chances([1500.0] * 5) == pytest.approx([0.2] * 5)
    # Two players: the expected score of rate_table's scale between settled ratings.
    gap = 250.0
    strong = 1 / (1 + math.exp(-STEEPNESS * gap / GLICKO_SCALE))
    assert win_chances([1500 + gap, 1500.0]) == pytest.approx([strong, 1 - strong])
    # Huge gaps neither overflow nor lose the small chances.
    tiny = win_chances([3000.0, 500.0])
    assert tiny[0] < 1.0 and 0.0 < tiny[1] < 1e-5


ratings = st.floats(600, 2800)
deviations = st.floats(30.0, START_DEVIATION)
tables = st.integers(min_value=2, max_value=8).flatmap(
    lambda n: st.tuples(
        st.lists(st.builds(Skill, ratings, deviations), min_size=n, max_size=n),
        st.lists(st.integers(1, n), min_size=n, max_size=n),
    )
)


@given(tables)
def test_every_game_shrinks_every_deviation(table: tuple[list[Skill], list[int]]) -> None:
    skills, places = table
    for before, after in zip(skills, rate_table(skills, places), strict=True):
        assert 0.0 < after.deviation < before.deviation


@given(tables)
def test_placing_better_never_gains_less(table: tuple[list[Skill], list[int]]) -> None:
    skills, places = table
    new = rate_table(skills, places)
    for i, (a, a2) in enumerate(zip(skills, new, strict=True)):
        for j, (b, b2) in enumerate(zip(skills, new, strict=True)):
            if a == b and places[i] < places[j]:
                assert a2.rating - a.rating > b2.rating - b.rating


@given(tables)
def test_first_place_never_loses_and_last_never_gains(
    table: tuple[list[Skill], list[int]],
) -> None:
    skills, places = table
    for before, after, place in zip(skills, rate_table(skills, places), places, strict=True):
        others = list(places)
        others.remove(place)
        if all(place < other for other in others):
            assert after.rating >= before.rating
        if all(place > other for other in others):
            assert after.rating <= before.rating


@given(tables)
def test_an_uncertain_rating_moves_further(table: tuple[list[Skill], list[int]]) -> None:
    # The same player at the same table, once settled and once a newcomer: the newcomer's
    # rating moves at least as far (Glicko's point: a guess should move fast).
    skills, places = table
    settled = rate_table([Skill(skills[0].rating, 60.0), *skills[1:]], places)[0]
    guess = rate_table([Skill(skills[0].rating, START_DEVIATION), *skills[1:]], places)[0]
    assert abs(guess.rating - skills[0].rating) >= abs(settled.rating - skills[0].rating) - 1e-9


@given(st.lists(ratings, min_size=1, max_size=8))
def test_win_chances_are_a_distribution_ordered_like_the_ratings(rs: list[float]) -> None:
    chances = win_chances(rs)
    assert sum(chances) == pytest.approx(1.0)
    assert all(0.0 <= p <= 1.0 for p in chances)
    for a, pa in zip(rs, chances, strict=True):
        for b, pb in zip(rs, chances, strict=True):
            if a > b:
                assert pa >= pb
