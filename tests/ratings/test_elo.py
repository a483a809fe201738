"""The rating math, without a database: golden numbers, K by experience, places for rating."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ratings.elo import (
    K_ESTABLISHED,
    K_MASTER,
    K_PROVISIONAL,
    MASTER_RATING,
    PROVISIONAL_GAMES,
    START,
    expected,
    k_factor,
    rate_table,
    rated_places,
)


def test_four_equal_players_k32() -> None:
    new = rate_table([1500.0] * 4, [1, 2, 3, 4], [32.0] * 4)
    assert new == pytest.approx([1516.0, 1505.3333333, 1494.6666667, 1484.0], abs=1e-6)


def test_four_players_mixed_ratings_and_places_k32() -> None:
    new = rate_table([1600.0, 1550.0, 1450.0, 1400.0], [3, 1, 4, 2], [32.0] * 4)
    assert [round(r, 4) for r in new] == [1588.9643, 1563.0988, 1436.9012, 1411.0357]


def test_two_players_is_classic_elo() -> None:
    ra, rb = 1613.0, 1477.0
    ea = 1 / (1 + 10 ** ((rb - ra) / 400))
    new = rate_table([ra, rb], [2, 1], [32.0, 32.0])
    assert new == pytest.approx([ra + 32 * (0 - ea), rb + 32 * (1 - (1 - ea))])


def test_a_draw_between_equals_changes_nothing() -> None:
    assert rate_table([1500.0, 1500.0, 1500.0], [1, 1, 1], [40.0] * 3) == [1500.0] * 3


def test_a_tie_scores_half_against_each_other() -> None:
    # Three equal players, two sharing first: each of them scores 1 + 0.5 of 2 against 1 expected.
    new = rate_table([1500.0] * 3, [1, 1, 3], [40.0] * 3)
    assert new == pytest.approx([1510.0, 1510.0, 1480.0])


def test_each_player_uses_their_own_k() -> None:
    new = rate_table([1500.0, 1500.0], [1, 2], [40.0, 20.0])
    assert new == [1520.0, 1490.0]


def test_expected_scores() -> None:
    assert expected(1500, 1500) == 0.5
    assert expected(1900, 1500) == pytest.approx(10 / 11)
    assert expected(1500, 1900) == pytest.approx(1 / 11)


@pytest.mark.parametrize(
    ("games", "peak", "k"),
    [
        (0, START, K_PROVISIONAL),
        (PROVISIONAL_GAMES - 1, 2000.0, K_PROVISIONAL),
        (PROVISIONAL_GAMES, 2000.0, K_ESTABLISHED),
        (500, MASTER_RATING - 0.01, K_ESTABLISHED),
        (500, MASTER_RATING, K_MASTER),
        (3, MASTER_RATING + 10, K_MASTER),
    ],
)
def test_k_by_experience(games: int, peak: float, k: float) -> None:
    assert k_factor(games, peak) == k


def test_the_constants() -> None:
    assert (START, K_PROVISIONAL, K_ESTABLISHED, K_MASTER) == (1500.0, 60.0, 20.0, 10.0)
    assert (PROVISIONAL_GAMES, MASTER_RATING) == (20, 2400.0)


def test_refuses_a_table_of_one_or_mismatched_lengths() -> None:
    with pytest.raises(ValueError, match="two players"):
        rate_table([1500.0], [1], [40.0])
    with pytest.raises(ValueError, match="one entry per player"):
        rate_table([1500.0, 1500.0], [1], [40.0, 40.0])
    with pytest.raises(ValueError, match="one entry per player"):
        rated_places([1, 2], [False])


@pytest.mark.parametrize(
    ("places", "absent", "rated"),
    [
        ([1, 2, 3], [False, False, False], [1, 2, 3]),
        ([1, 1, 3, 4], [False, False, False, False], [1, 1, 3, 4]),
        ([1, 2, 3, 4], [True, False, False, False], [4, 1, 2, 3]),
        ([1, 2, 3, 4], [False, True, False, True], [1, 3, 2, 3]),
        ([1, 2, 2, 4], [True, False, False, False], [4, 1, 1, 3]),
        ([1, 2], [True, True], [1, 1]),
    ],
)
def test_absent_players_share_the_last_place(
    places: list[int], absent: list[bool], rated: list[int]
) -> None:
    assert rated_places(places, absent) == rated


tables = st.integers(min_value=2, max_value=8).flatmap(
    lambda n: st.tuples(
        st.lists(st.floats(600, 2800), min_size=n, max_size=n),
        st.lists(st.integers(1, n), min_size=n, max_size=n),
    )
)


@given(tables, st.sampled_from([10.0, 20.0, 32.0, 40.0]))
def test_with_one_k_the_points_only_move_between_players(
    table: tuple[list[float], list[int]], k: float
) -> None:
    ratings, places = table
    new = rate_table(ratings, places, [k] * len(ratings))
    assert sum(new) == pytest.approx(sum(ratings), abs=1e-6)


@given(tables)
def test_placing_better_never_gains_less(table: tuple[list[float], list[int]]) -> None:
    ratings, places = table
    new = rate_table(ratings, places, [40.0] * len(ratings))
    for i in range(len(ratings)):
        for j in range(len(ratings)):
            if ratings[i] == ratings[j] and places[i] < places[j]:
                assert new[i] - ratings[i] > new[j] - ratings[j]
    # No single table moves anyone by more than K.
    assert all(abs(n - r) <= 40.0 + 1e-9 for n, r in zip(new, ratings, strict=True))
