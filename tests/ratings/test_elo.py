"""Elo's scale without a database: the expected score and the places a game is rated by (the
ratings themselves move by ``ratings.glicko``: tests/ratings/test_glicko.py)."""

from __future__ import annotations

import pytest

from ratings.elo import START, expected, rated_places


def test_expected_scores() -> None:
    assert expected(1500, 1500) == 0.5
    assert expected(1900, 1500) == pytest.approx(10 / 11)
    assert expected(1500, 1900) == pytest.approx(1 / 11)


def test_the_start() -> None:
    assert START == 1500.0


def test_refuses_mismatched_lengths() -> None:
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
