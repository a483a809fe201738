"""Round robin: the circle rotation, byes, the double round, the multi-seat schedule's
guarantee (every pair shares a table), standings, and properties."""

from __future__ import annotations

import itertools
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tournaments.formats import FormatError, PlayedRound, RoundPlan, RoundRobin, Settings
from tournaments.formats.common import seatable, table_sizes
from tournaments.formats.round_robin import circle_round

from .driver import field, finish, games_of, play, seated

RR = RoundRobin()


def schedule(players: int, s: Settings) -> list[PlayedRound]:
    """Every round, the better seed winning each table."""
    entrants = field(players)
    played: list[PlayedRound] = []
    while (plan := RR.next_round(entrants, played, s)) is not None:
        played.append(PlayedRound(plan, tuple(finish(t, sorted(t.players)) for t in plan.tables)))
    return played


def pairs_met(played: list[PlayedRound]) -> list[frozenset[int]]:
    return [
        frozenset(pair)
        for r in played
        for t in r.plan.tables
        for pair in itertools.combinations(t.players, 2)
    ]


def test_circle_rotation_for_six() -> None:
    assert [[t.players for t in r.plan.tables] for r in schedule(6, Settings())] == [
        [(1, 6), (2, 5), (3, 4)],
        [(1, 5), (6, 4), (2, 3)],
        [(1, 4), (5, 3), (6, 2)],
        [(1, 3), (4, 2), (5, 6)],
        [(1, 2), (3, 6), (4, 5)],
    ]


def test_an_odd_field_gives_everyone_one_bye() -> None:
    played = schedule(5, Settings())
    assert [(r.plan.byes, [t.players for t in r.plan.tables]) for r in played] == [
        ((1,), [(2, 5), (3, 4)]),
        ((4,), [(1, 5), (2, 3)]),
        ((2,), [(1, 4), (5, 3)]),
        ((5,), [(1, 3), (4, 2)]),
        ((3,), [(1, 2), (4, 5)]),
    ]


def test_standings_with_sonneborn_berger() -> None:
    lines = RR.standings(field(5), schedule(5, Settings()), Settings())
    assert [(x.entrant, x.rank, x.points, x.tiebreaks["sonneborn_berger"]) for x in lines] == [
        (1, 1, 4.0, 6.0),
        (2, 2, 3.0, 3.0),
        (3, 3, 2.0, 1.0),
        (4, 4, 1.0, 0.0),
        (5, 5, 0.0, 0.0),
    ]
    assert RR.champion(field(5), schedule(5, Settings()), Settings()) == 1


def test_the_double_round_swaps_the_seats() -> None:
    played = schedule(4, Settings(double_round=True))
    assert len(played) == 6
    first = [t.players for r in played[:3] for t in r.plan.tables]
    second = [t.players[::-1] for r in played[3:] for t in r.plan.tables]
    assert first == second


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 512))
def test_every_pair_meets_once_per_cycle(players: int) -> None:
    cycle = players if players % 2 else players - 1
    ids: list[int | None] = [*range(1, players + 1)]
    if players % 2:
        ids.append(None)
    met = [frozenset(t.players) for r in range(cycle) for t in circle_round(ids, r)]
    assert len(met) == len(set(met)) == players * (players - 1) // 2


@settings(max_examples=25, deadline=None)
@given(st.integers(2, 40), st.booleans(), st.integers(0, 2**32))
def test_two_seat_events_give_everyone_n_minus_one_games(
    players: int, double: bool, seed: int
) -> None:
    entrants = field(players, spread=5)
    s = Settings(double_round=double)
    played = play(RR, entrants, s, seed)
    cycles = 2 if double else 1
    assert len(played) == cycles * (players if players % 2 else players - 1)
    assert set(games_of(played).values()) == {cycles * (players - 1)}
    for done in played:
        assert sorted(seated(done.plan)) == sorted(e.id for e in entrants)
    assert RR.champion(entrants, played, s) == RR.standings(entrants, played, s)[0].entrant


def test_nine_at_tables_of_three_meet_in_four_rounds() -> None:
    played = schedule(9, Settings(table_size=3))
    assert [[t.players for t in r.plan.tables] for r in played] == [
        [(1, 2, 3), (4, 5, 6), (7, 8, 9)],
        [(1, 4, 7), (2, 5, 8), (3, 6, 9)],
        [(1, 5, 9), (3, 4, 8), (2, 6, 7)],
        [(1, 6, 8), (2, 4, 9), (3, 5, 7)],
    ]
    assert len(pairs_met(played)) == len(set(pairs_met(played))) == 36  # each pair once


@pytest.mark.parametrize(
    ("players", "seats", "rounds"),
    [(8, 4, 3), (16, 4, 5), (12, 3, 7), (20, 4, 9), (40, 4, 17), (32, 8, 5), (24, 6, 8)],
)
def test_multi_seat_rounds_against_the_lower_bound(players: int, seats: int, rounds: int) -> None:
    """Known answers for the greedy schedule's length; the bound is what no schedule beats."""
    s = Settings(table_size=seats)
    played = schedule(players, s)
    bound = math.ceil((players - 1) / (max(table_sizes(players, seats, 3)) - 1))
    assert len(played) == rounds and bound <= rounds <= 1.6 * bound
    assert len(set(pairs_met(played))) == players * (players - 1) // 2


def test_a_multi_seat_double_round_plays_the_same_tables_again() -> None:
    played = schedule(12, Settings(table_size=4, double_round=True))
    half = len(played) // 2
    assert [r.plan.tables for r in played[:half]] == [r.plan.tables for r in played[half:]]


def test_multi_seat_standings_use_placement_points_then_game_points() -> None:
    s = Settings(table_size=4, placement_points=(3, 1, 0, 0))
    entrants = field(4)
    plan = RR.next_round(entrants, [], s)
    assert plan is not None
    result = finish(plan.tables[0], [2, 1, 3, 4], points=(200, 500, 120, 120))
    lines = RR.standings(entrants, [PlayedRound(plan, (result,))], s)
    assert [(x.entrant, x.rank, x.points, x.tiebreaks) for x in lines] == [
        (2, 1, 3.0, {"game_points": 500.0}),
        (1, 2, 1.0, {"game_points": 200.0}),
        (3, 3, 0.0, {"game_points": 120.0}),
        (4, 3, 0.0, {"game_points": 120.0}),
    ]
    assert RR.next_round(entrants, [PlayedRound(plan, (result,))], s) is None


def test_check_refuses_what_it_cannot_run() -> None:
    with pytest.raises(FormatError, match="5 players cannot be seated"):
        RR.check(5, Settings(table_size=4))
    with pytest.raises(FormatError, match="must not rise"):
        RR.check(8, Settings(table_size=4, placement_points=(1, 2)))
    with pytest.raises(FormatError, match="table size of 3 to 8"):
        RR.check(8, Settings(table_size=9))


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 36), st.integers(3, 8), st.integers(0, 2**32))
def test_multi_seat_events_meet_every_pair_in_bounded_tables(
    players: int, seats: int, seed: int
) -> None:
    s = Settings(table_size=seats)
    if not seatable(players, seats, s.min_table):
        return
    entrants = field(players, spread=2)
    played = play(RR, entrants, s, seed)
    assert len(set(pairs_met(played))) == players * (players - 1) // 2
    for done in played:
        assert sorted(seated(done.plan)) == sorted(e.id for e in entrants)
        sizes = [len(t.players) for t in done.plan.tables]
        assert max(sizes) <= seats and max(sizes) - min(sizes) <= 1
        assert len(sizes) == 1 or min(sizes) >= s.min_table
    assert RR.champion(entrants, played, s) is not None


@settings(max_examples=30, deadline=None)
@given(st.integers(37, 512), st.integers(3, 8), st.integers(2, 8))
def test_big_multi_seat_rounds_stay_in_bounds(players: int, seats: int, smallest: int) -> None:
    s = Settings(table_size=seats, min_table=min(smallest, seats))
    if not seatable(players, seats, s.min_table):
        with pytest.raises(FormatError):
            RR.check(players, s)
        return
    entrants = field(players)
    played = play(RR, entrants, s, rounds=2)
    for done in played:
        sizes = [len(t.players) for t in done.plan.tables]
        assert sorted(sizes, reverse=True) == table_sizes(players, seats, s.min_table)
        assert sorted(seated(done.plan)) == list(range(1, players + 1))


# --- Players who have left ---------------------------------------------------------------------


def better_seeds_win(plan: RoundPlan | None) -> PlayedRound:
    assert plan is not None
    return PlayedRound(plan, tuple(finish(t, sorted(t.players)) for t in plan.tables))


def test_the_games_of_a_player_who_left_are_left_out_of_the_circle() -> None:
    entrants, gone = field(4), frozenset({4})
    played = [better_seeds_win(RR.next_round(entrants, [], Settings()))]  # (1, 4) and (2, 3)
    second = RR.next_round(entrants, played, Settings(), gone=gone)
    assert second is not None and [t.players for t in second.tables] == [(1, 3)]
    assert second.byes == (2,)  # 2 was to meet 4: sits the round out
    played.append(better_seeds_win(second))
    third = RR.next_round(entrants, played, Settings(), gone=gone)
    assert third is not None and [t.players for t in third.tables] == [(1, 2)]
    assert third.byes == (3,)
    played.append(better_seeds_win(third))
    assert RR.next_round(entrants, played, Settings(), gone=gone) is None
    lines = RR.standings(entrants, played, Settings(), gone=gone)
    assert [(x.entrant, x.points, x.eliminated) for x in lines] == [
        (1, 3.0, False),
        (2, 1.0, False),
        (3, 0.0, False),
        (4, 0.0, True),
    ]


def test_a_round_with_no_game_left_is_skipped() -> None:
    entrants, gone = field(3), frozenset({3})
    first = RR.next_round(entrants, [], Settings())
    assert first is not None and [t.players for t in first.tables] == [(2, 3)]
    played = [better_seeds_win(first)]
    # Round 2 of the circle was 1 against 3: nothing left of it, so round 2 is 1 against 2.
    second = RR.next_round(entrants, played, Settings(), gone=gone)
    assert second is not None and [t.players for t in second.tables] == [(1, 2)]
    assert (second.number, second.byes) == (2, ())
    played.append(better_seeds_win(second))
    assert RR.next_round(entrants, played, Settings(), gone=gone) is None


def test_multi_seat_tables_are_balanced_over_the_players_still_in() -> None:
    plan = RR.next_round(field(7), [], Settings(table_size=4), gone=frozenset({7}))
    assert plan is not None and [t.players for t in plan.tables] == [(1, 2, 3), (4, 5, 6)]


def test_the_second_cycle_drops_a_table_left_with_one_player() -> None:
    entrants, s = field(6), Settings(table_size=3, double_round=True)
    played: list[PlayedRound] = []
    for _ in range(4):  # the first cycle: every pair has met
        played.append(better_seeds_win(RR.next_round(entrants, played, s)))
    assert [t.players for t in played[0].plan.tables] == [(1, 2, 3), (4, 5, 6)]
    gone = frozenset({1, 2})
    fifth = RR.next_round(entrants, played, s, gone=gone)
    assert fifth is not None and [t.players for t in fifth.tables] == [(4, 5, 6)]
    assert fifth.byes == (3,)  # alone at round 1's first table: sits out
    played.append(better_seeds_win(fifth))
    sixth = RR.next_round(entrants, played, s, gone=gone)
    assert sixth is not None and [t.players for t in sixth.tables] == [(3, 5, 6)]
