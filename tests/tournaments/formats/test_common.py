"""The shared helpers: balanced tables, snake dealing, table scores, shared ranks, history."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tournaments.formats import (
    Entrant,
    FormatError,
    PlayedRound,
    RoundPlan,
    Seating,
    TableResult,
)
from tournaments.formats.common import (
    check_history,
    field_by_id,
    ranked,
    seatable,
    snake,
    table_scores,
    table_sizes,
)


def test_table_sizes_known_answers() -> None:
    assert table_sizes(10, 4, 3) == [4, 3, 3]
    assert table_sizes(13, 6, 3) == [5, 4, 4]
    assert table_sizes(16, 8, 3) == [8, 8]
    assert table_sizes(17, 8, 3) == [6, 6, 5]
    assert table_sizes(7, 8, 3) == [7]
    assert table_sizes(2, 4, 3) == [2]  # one table holds the whole field


def test_a_field_that_cannot_be_split_is_refused() -> None:
    with pytest.raises(FormatError, match="5 players cannot be seated"):
        table_sizes(5, 4, 3)
    assert not seatable(5, 4, 3)


@settings(max_examples=200, deadline=None)
@given(st.integers(2, 512), st.integers(3, 8), st.data())
def test_table_sizes_are_balanced_and_in_bounds(
    players: int, size: int, data: st.DataObject
) -> None:
    smallest = data.draw(st.integers(2, size))
    if not seatable(players, size, smallest):
        with pytest.raises(FormatError):
            table_sizes(players, size, smallest)
        return
    sizes = table_sizes(players, size, smallest)
    assert sum(sizes) == players
    assert len(sizes) == math.ceil(players / size)
    assert max(sizes) - min(sizes) <= 1 and sizes == sorted(sizes, reverse=True)
    assert max(sizes) <= size
    assert len(sizes) == 1 or min(sizes) >= smallest


def test_snake_deals_forward_then_back() -> None:
    assert snake(list(range(1, 13)), [4, 4, 4]) == [[1, 6, 7, 12], [2, 5, 8, 11], [3, 4, 9, 10]]
    assert snake(list(range(1, 8)), [4, 3]) == [[1, 4, 5, 7], [2, 3, 6]]


def test_snake_fills_every_table_to_its_size() -> None:
    tables = snake(list(range(1, 11)), [4, 3, 3])
    assert [len(t) for t in tables] == [4, 3, 3]
    assert sorted(p for t in tables for p in t) == list(range(1, 11))


def test_tied_players_share_the_average_of_the_places_they_cover() -> None:
    result = TableResult((1, 2, 3, 4, 5), (1, 2, 2, 2, 5), (0, 0, 0, 0, 0))
    assert table_scores(result, (4, 2, 1, 0)) == {1: 4.0, 2: 1.0, 3: 1.0, 4: 1.0, 5: 0.0}
    dense = TableResult((1, 2, 3), (1, 1, 2), (0, 0, 0))  # dense numbering reads the same
    assert table_scores(dense, (4, 2, 1)) == {1: 3.0, 2: 3.0, 3: 1.0}


def test_ranks_are_shared_and_skip() -> None:
    field = [Entrant(i, i, 0.0) for i in range(1, 6)]
    score = {1: 2.0, 2: 3.0, 3: 2.0, 4: 1.0, 5: 3.0}
    out = ranked(field, lambda e: (score[e.id],))
    assert [(r, e.id) for r, e in out] == [(1, 2), (1, 5), (3, 1), (3, 3), (5, 4)]


def test_the_field_needs_unique_ids_and_seeds_one_to_n() -> None:
    with pytest.raises(FormatError, match="ids repeat"):
        field_by_id([Entrant(1, 1, 0.0), Entrant(1, 2, 0.0)])
    with pytest.raises(FormatError, match=r"seeds must be 1\.\.2"):
        field_by_id([Entrant(1, 1, 0.0), Entrant(2, 3, 0.0)])


def _round(
    number: int,
    tables: tuple[Seating, ...],
    results: tuple[TableResult, ...],
    byes: tuple[int, ...] = (),
) -> PlayedRound:
    return PlayedRound(RoundPlan(number, f"Round {number}", tables, byes), results)


def test_a_history_the_formats_cannot_read_is_refused() -> None:
    ids = field_by_id([Entrant(i, i, 0.0) for i in range(1, 5)])
    table = Seating((1, 2), "T1")
    good = TableResult((1, 2), (1, 2), (0, 0))
    check_history([_round(1, (table,), (good,), byes=(3,))], ids)
    cases = {
        "is numbered 2": [_round(2, (table,), (good,))],
        "1 results for": [_round(1, (table, Seating((3, 4))), (good,))],
        "do not match": [_round(1, (table,), (TableResult((2, 1), (1, 2), (0, 0)),))],
        "twice": [_round(1, (table,), (good,), byes=(1,))],
        "not an entrant": [_round(1, (table,), (good,), byes=(9,))],
    }
    for message, history in cases.items():
        with pytest.raises(FormatError, match=message):
            check_history(history, ids)
