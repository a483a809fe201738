"""Multi-table elimination: snake seating, balanced tables, the cut, wildcards, the final table,
standings, and properties for fields of 2 to 512."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tournaments.formats import (
    FormatError,
    MultiTableElimination,
    PlayedRound,
    RoundPlan,
    Seating,
    Settings,
    TableResult,
)
from tournaments.formats.common import seatable

from .driver import field, finish, play, seated

MT = MultiTableElimination()


def seeds_win(plan: RoundPlan | None) -> PlayedRound:
    """``plan`` played with each table's better seeds finishing ahead."""
    assert plan is not None
    return PlayedRound(plan, tuple(finish(t, sorted(t.players)) for t in plan.tables))


def test_round_one_deals_by_seed_in_snake_order() -> None:
    plan = MT.next_round(field(10), [], Settings(table_size=4))
    assert plan is not None and plan.name == "Round 1"
    assert [(t.key, t.players) for t in plan.tables] == [
        ("T1", (1, 6, 7, 10)),
        ("T2", (2, 5, 8)),
        ("T3", (3, 4, 9)),
    ]


def test_the_top_of_each_table_goes_on_to_the_final_table() -> None:
    s = Settings(table_size=4, advance=1)
    entrants = field(12)
    first = seeds_win(MT.next_round(entrants, [], s))
    final = MT.next_round(entrants, [first], s)
    assert final is not None and final.name == "Final table"
    assert [(t.key, t.players) for t in final.tables] == [("final", (1, 2, 3))]
    played = [first, seeds_win(final)]
    assert MT.next_round(entrants, played, s) is None
    assert MT.champion(entrants, played, s) == 1
    lines = MT.standings(entrants, played, s)
    assert [(x.entrant, x.rank, x.points) for x in lines][:4] == [
        (1, 1, 2),
        (2, 2, 2),
        (3, 3, 2),
        (4, 4, 1),
    ]
    assert [x.rank for x in lines[3:]] == [4, 4, 4, 7, 7, 7, 10, 10, 10]  # by place at round 1
    assert [x.eliminated for x in lines] == [False] + [True] * 11


def test_ties_at_the_cut_go_by_game_points_then_seed() -> None:
    s = Settings(table_size=4, advance=1)
    entrants = field(8)
    plan = MT.next_round(entrants, [], s)
    assert plan is not None and [t.players for t in plan.tables] == [(1, 4, 5, 8), (2, 3, 6, 7)]
    results = (
        TableResult((1, 4, 5, 8), (1, 1, 3, 4), (300, 420, 0, 0)),  # 4 has more game points
        TableResult((2, 3, 6, 7), (2, 1, 1, 4), (0, 250, 250, 0)),  # 3 and 6 equal: 3 seeds better
    )
    final = MT.next_round(entrants, [PlayedRound(plan, results)], s)
    assert final is not None and final.tables[0].players == (3, 4)  # a heads-up final


def test_wildcards_fill_a_field_that_cannot_be_seated() -> None:
    s = Settings(table_size=4, advance=1)
    entrants = field(20)
    plan = MT.next_round(entrants, [], s)
    assert plan is not None and len(plan.tables) == 5
    points = {p: 10 * p for p in range(1, 21)}  # worse seeds score more game points
    results = tuple(
        finish(t, sorted(t.players), [points[p] for p in t.players]) for t in plan.tables
    )
    second = MT.next_round(entrants, [PlayedRound(plan, results)], s)
    # Five table winners cannot sit at tables of 3 to 4 seats; the best second place joins them
    # (the second with the most game points: seed 10's 100, at the table of 1, 10, 11, 20).
    assert second is not None
    assert sorted(p for t in second.tables for p in t.players) == [1, 2, 3, 4, 5, 10]
    assert [len(t.players) for t in second.tables] == [3, 3]


def test_the_field_is_cut_when_wildcards_would_not_shrink_it() -> None:
    s = Settings(table_size=3, min_table=3, advance=2)
    entrants = field(6)
    first = seeds_win(MT.next_round(entrants, [], s))
    final = MT.next_round(entrants, [first], s)
    assert final is not None and final.tables[0].players == (1, 2, 3)


def test_a_field_that_fits_one_table_plays_the_final_at_once() -> None:
    plan = MT.next_round(field(2), [], Settings(table_size=6))
    assert plan is not None and plan.tables[0].key == "final" and plan.tables[0].players == (1, 2)


def test_check_refuses_what_it_cannot_run() -> None:
    with pytest.raises(FormatError, match="advance must be 1 to 2"):
        MT.check(12, Settings(table_size=4, advance=3))
    with pytest.raises(FormatError, match="table size of 3 to 8"):
        MT.check(12, Settings())
    with pytest.raises(FormatError, match="5 players cannot be seated"):
        MT.check(5, Settings(table_size=4))


def test_a_round_with_other_players_is_refused() -> None:
    s = Settings(table_size=4)
    entrants = field(12)
    first = seeds_win(MT.next_round(entrants, [], s))
    wrong = seeds_win(RoundPlan(2, "Final table", (first.plan.tables[0],)))
    with pytest.raises(FormatError, match="round 2 seats other players"):
        MT.next_round(entrants, [first, wrong], s)


@settings(max_examples=80, deadline=None)
@given(st.integers(2, 512), st.integers(3, 8), st.data())
def test_events_shrink_to_a_final_table_in_bounds(
    players: int, seats: int, data: st.DataObject
) -> None:
    smallest = data.draw(st.integers(2, seats), label="min_table")
    s = Settings(
        table_size=seats,
        min_table=smallest,
        advance=data.draw(st.integers(1, smallest - 1), label="advance"),
    )
    if not seatable(players, seats, smallest):
        with pytest.raises(FormatError):
            MT.check(players, s)
        return
    entrants = field(players, spread=3)
    played = play(MT, entrants, s, data.draw(st.integers(0, 2**32), label="seed"))
    fields = [sorted(seated(done.plan)) for done in played]
    assert fields[0] == sorted(e.id for e in entrants)
    for before, after in itertools.pairwise(fields):
        assert set(after) < set(before)
    for done in played[:-1]:
        sizes = [len(t.players) for t in done.plan.tables]
        assert len(sizes) > 1 and max(sizes) <= seats and min(sizes) >= smallest
        assert max(sizes) - min(sizes) <= 1
    last = played[-1].plan
    assert [t.key for t in last.tables] == ["final"] and 2 <= len(last.tables[0].players) <= seats
    lines = MT.standings(entrants, played, s)
    assert lines[0].entrant == MT.champion(entrants, played, s)
    assert sorted(x.entrant for x in lines) == sorted(e.id for e in entrants)


# --- Players who have left ---------------------------------------------------------------------


def test_the_place_of_a_player_who_left_goes_to_the_best_of_the_rest() -> None:
    entrants, s = field(10), Settings(table_size=4)
    first = MT.next_round(entrants, [], s)
    assert first is not None
    played = [PlayedRound(first, tuple(finish(t, t.players) for t in first.tables))]
    assert [t.players for t in first.tables] == [(1, 6, 7, 10), (2, 5, 8), (3, 4, 9)]
    final = MT.next_round(entrants, played, s, gone=frozenset({1}))  # 1 won T1, then left
    assert final is not None and [t.players for t in final.tables] == [(2, 3, 4)]
    lines = MT.standings(entrants, played, s, gone=frozenset({1}))
    assert [(x.entrant, x.eliminated) for x in lines[:4]] == [
        (2, False),
        (3, False),
        (4, False),
        (1, True),
    ]


def test_round_one_balances_the_tables_over_the_players_still_in() -> None:
    entrants, s = field(10), Settings(table_size=4)
    plan = MT.next_round(entrants, [], s, gone=frozenset({6, 7}))
    assert plan is not None and [t.players for t in plan.tables] == [(1, 4, 5, 10), (2, 3, 8, 9)]
    # Five cannot sit at tables of 3 to 4: a table of two.
    plan = MT.next_round(entrants, [], s, gone=frozenset({1, 2, 3, 4, 5}))
    assert plan is not None and [t.players for t in plan.tables] == [(6, 9, 10), (7, 8)]


def test_one_player_still_in_wins_without_another_table() -> None:
    entrants, s = field(10), Settings(table_size=4)
    played = [seeds_win(MT.next_round(entrants, [], s))]
    gone = frozenset(range(1, 11)) - {4}
    assert MT.next_round(entrants, played, s, gone=gone) is None
    assert MT.champion(entrants, played, s, gone=gone) == 4
    lines = MT.standings(entrants, played, s, gone=gone)
    assert (lines[0].entrant, lines[0].points, lines[0].eliminated) == (4, 2.0, False)
    assert all(x.eliminated for x in lines[1:])


def test_a_round_seating_a_player_who_left_later_is_still_read() -> None:
    # 2 left once the final table was planned: it still seats them, and the history stands.
    entrants, s = field(10), Settings(table_size=4)
    played = [seeds_win(MT.next_round(entrants, [], s))]
    final = MT.next_round(entrants, played, s)
    assert final is not None and final.tables[0].players == (1, 2, 3)
    played.append(PlayedRound(final, (finish(final.tables[0], (1, 3, 2)),)))
    assert MT.next_round(entrants, played, s, gone=frozenset({2})) is None
    assert MT.champion(entrants, played, s, gone=frozenset({2})) == 1
    # A final seating 4, the best wildcard, is right only if 3 had left by then.
    other = RoundPlan(2, "Final table", (Seating((1, 2, 4), "final"),))
    read = [played[0], PlayedRound(other, (finish(other.tables[0], (1, 2, 4)),))]
    assert MT.champion(entrants, read, s, gone=frozenset({3})) == 1
    with pytest.raises(FormatError, match="round 2 seats other players than the field"):
        MT.champion(entrants, read, s)
