"""The pure matcher (``lobby.matching``): its guarantees as properties, no database."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lobby.matching import WIDEST_AFTER, Waiter, acceptable, match, window

ratings = st.floats(min_value=600, max_value=2600, allow_nan=False)
waits = st.floats(min_value=0, max_value=90, allow_nan=False)


@st.composite
def pools(draw: st.DrawFn, max_size: int = 12) -> tuple[list[Waiter], int]:
    seats = draw(st.integers(min_value=2, max_value=8))
    rows = draw(st.lists(st.tuples(ratings, waits), max_size=max_size))
    return [Waiter(i, r, w) for i, (r, w) in enumerate(rows)], seats


@given(pools(max_size=40))
def test_tables_are_full_acceptable_and_nobody_sits_twice(pool: tuple[list[Waiter], int]) -> None:
    waiters, seats = pool
    by_id = {w.id: w for w in waiters}
    tables = match(waiters, seats)
    seated = [i for table in tables for i in table]
    assert len(seated) == len(set(seated))
    assert set(seated) <= by_id.keys()
    for table in tables:
        assert len(table) == seats
        assert acceptable([by_id[i] for i in table])


@settings(max_examples=300)
@given(pools(max_size=11))
def test_nobody_is_left_while_an_acceptable_group_remains(pool: tuple[list[Waiter], int]) -> None:
    """Brute force over every group of those left: none may sit together."""
    waiters, seats = pool
    seated = {i for table in match(waiters, seats) for i in table}
    left = [w for w in waiters if w.id not in seated]
    for group in itertools.combinations(left, seats):
        assert not acceptable(group), (group, seats)


@given(pools(max_size=40))
def test_at_the_widest_window_fewer_than_a_table_are_left(pool: tuple[list[Waiter], int]) -> None:
    waiters, seats = pool
    patient = [Waiter(w.id, w.rating, WIDEST_AFTER + w.waited) for w in waiters]
    tables = match(patient, seats)
    assert len(patient) - seats * len(tables) < seats


def test_closest_ratings_sit_together_first() -> None:
    waiters = [Waiter(i, r, 0) for i, r in enumerate([1500, 1560, 1450, 1580, 1900, 1990])]
    assert match(waiters, 2) == [(1, 3), (2, 0), (4, 5)]
    assert match(waiters, 3) == [(0, 1, 3)]  # 1450 would make it 130 apart


def test_a_long_wait_vouches_for_a_wide_table() -> None:
    fresh, patient = Waiter(1, 1500, 0), Waiter(2, 2100, 30)
    assert match([fresh, patient], 2) == []
    assert match([fresh, Waiter(2, 2100, WIDEST_AFTER)], 2) == [(1, 2)]
    assert window(30) == 250


def test_bad_calls_are_refused() -> None:
    with pytest.raises(ValueError, match="two seats"):
        match([], 1)
    with pytest.raises(ValueError, match="distinct"):
        match([Waiter(1, 1500, 0), Waiter(1, 1600, 0)], 2)


def test_who_has_waited_longest_is_not_left_over() -> None:
    """Five for a table of four: the far-off player who has waited a minute sits, and one of
    the newcomers waits for the next table instead."""
    newcomers = [Waiter(i, 1500 + 10 * i, 0) for i in range(4)]
    patient = Waiter(9, 2300, WIDEST_AFTER + 5)
    tables = match([*newcomers, patient], 4)
    assert len(tables) == 1 and 9 in tables[0]
    assert match(newcomers, 4) == [(0, 1, 2, 3)]
