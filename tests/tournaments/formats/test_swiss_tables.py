"""Swiss tables: snake round 1, seating by standing, placement points with shared ties, the
repeat table-mates the swap pass leaves (measured), and properties for fields of 2 to 512."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tournaments.formats import FormatError, PlayedRound, Settings, SwissTables, TableResult
from tournaments.formats import swiss_tables as module
from tournaments.formats.common import seatable, table_sizes
from tournaments.formats.swiss_tables import default_rounds

from .driver import field, finish, play, seated

ST = SwissTables()


def repeats(played: list[PlayedRound]) -> int:
    """Pairs seated together who had already sat together in an earlier round."""
    seen: set[frozenset[int]] = set()
    count = 0
    for done in played:
        pairs = [
            frozenset(p) for t in done.plan.tables for p in itertools.combinations(t.players, 2)
        ]
        count += sum(p in seen for p in pairs)
        seen.update(pairs)
    return count


def test_round_one_deals_by_seed_in_snake_order() -> None:
    plan = ST.next_round(field(8), [], Settings(table_size=4))
    assert plan is not None and [t.players for t in plan.tables] == [(1, 4, 5, 8), (2, 3, 6, 7)]


def test_later_rounds_seat_by_standing() -> None:
    s = Settings(table_size=4)
    entrants = field(8)
    plan = ST.next_round(entrants, [], s)
    assert plan is not None
    first = PlayedRound(plan, tuple(finish(t, sorted(t.players)) for t in plan.tables))
    second = ST.next_round(entrants, [first], s)
    # 1 and 2 won their tables, 3 and 4 came second: the best four sit together (each table
    # already has the fewest repeat pairs two tables of four allow, so nothing is swapped).
    assert second is not None and [t.players for t in second.tables] == [(1, 2, 3, 4), (5, 6, 7, 8)]


def test_placement_points_with_ties_and_game_points() -> None:
    s = Settings(table_size=4, placement_points=(4, 2, 1, 0))
    entrants = field(4)
    plan = ST.next_round(entrants, [], s)
    assert plan is not None
    result = TableResult(plan.tables[0].players, (1, 2, 2, 4), (510, 300, 200, 90))
    lines = ST.standings(entrants, [PlayedRound(plan, (result,))], s)
    assert [(x.entrant, x.rank, x.points, x.tiebreaks["game_points"]) for x in lines] == [
        (1, 1, 4.0, 510.0),
        (2, 2, 1.5, 300.0),
        (3, 3, 1.5, 200.0),
        (4, 4, 0.0, 90.0),
    ]


def test_default_rounds() -> None:
    assert [default_rounds(n, 4) for n in (2, 4, 5, 16, 17, 64, 10_000)] == [2, 2, 3, 3, 4, 4, 8]
    assert default_rounds(512, 8) == 4


def test_check_refuses_what_it_cannot_run() -> None:
    with pytest.raises(FormatError, match="at least 1 round"):
        ST.check(8, Settings(table_size=4, rounds=0))
    with pytest.raises(FormatError, match="must not rise"):
        ST.check(8, Settings(table_size=4, placement_points=(0, 1)))
    with pytest.raises(FormatError, match="5 players cannot be seated"):
        ST.check(5, Settings(table_size=4))


def test_the_swap_pass_leaves_few_repeat_table_mates(monkeypatch: pytest.MonkeyPatch) -> None:
    """Measured: 64 players at tables of 4 seat 384 pairs in rounds 2 to 5; seated by standing
    alone, 38 of them had sat together before; after the swap pass, 7."""
    s = Settings(table_size=4, rounds=5)
    swapped = repeats(play(ST, field(64), s, seed=1))
    monkeypatch.setattr(module, "SWAP_WINDOW", 0)  # no neighbouring table: no swap
    unswapped = repeats(play(ST, field(64), s, seed=1))
    assert (swapped, unswapped) == (7, 38)


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 512), st.integers(3, 8), st.data())
def test_rounds_seat_everyone_once_at_tables_in_bounds(
    players: int, seats: int, data: st.DataObject
) -> None:
    s = Settings(table_size=seats, min_table=data.draw(st.integers(2, seats), label="min_table"))
    if not seatable(players, seats, s.min_table):
        with pytest.raises(FormatError):
            ST.check(players, s)
        return
    entrants = field(players, spread=13)
    played = play(ST, entrants, s, data.draw(st.integers(0, 2**32), label="seed"))
    assert len(played) == default_rounds(players, seats)
    expected = table_sizes(players, seats, s.min_table)
    for done in played:
        assert sorted(seated(done.plan)) == sorted(e.id for e in entrants)
        assert sorted((len(t.players) for t in done.plan.tables), reverse=True) == expected
    lines = ST.standings(entrants, played, s)
    assert lines[0].entrant == ST.champion(entrants, played, s)
    assert sorted(x.entrant for x in lines) == sorted(e.id for e in entrants)


# --- Players who have left ---------------------------------------------------------------------


def test_players_who_left_are_not_seated_and_the_tables_balance_over_the_rest() -> None:
    entrants, s = field(8), Settings(table_size=4)
    plan = ST.next_round(entrants, [], s, gone=frozenset({8}))
    assert plan is not None and [t.players for t in plan.tables] == [(1, 4, 5, 7), (2, 3, 6)]
    first = ST.next_round(entrants, [], s)
    assert first is not None
    played = [PlayedRound(first, tuple(finish(t, t.players) for t in first.tables))]
    second = ST.next_round(entrants, played, s, gone=frozenset({1}))
    assert second is not None and [t.players for t in second.tables] == [(2, 3, 4, 5), (6, 7, 8)]
    lines = ST.standings(entrants, played, s, gone=frozenset({1}))
    assert (lines[0].entrant, lines[0].eliminated) == (1, True)  # their win still counts


def test_a_field_left_unseatable_sits_below_the_smallest_table() -> None:
    # Five cannot sit at tables of 3 to 4: once a sixth player has left, a table of two.
    plan = ST.next_round(field(6), [], Settings(table_size=4), gone=frozenset({1}))
    assert plan is not None and [t.players for t in plan.tables] == [(2, 5, 6), (3, 4)]
    assert ST.next_round(field(6), [], Settings(table_size=4), gone=frozenset(range(2, 7))) is None
