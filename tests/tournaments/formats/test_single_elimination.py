"""Single elimination: seeding order, byes, the third-place match, standings, properties."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tournaments.formats import (
    FormatError,
    PlayedRound,
    RoundPlan,
    Seating,
    Settings,
    SingleElimination,
    TableResult,
)
from tournaments.formats.bracket import duel, seeding_order

from .driver import field, finish, games_of, play, seated

SE = SingleElimination()


def play_seeds(
    players: int, s: Settings, upsets: frozenset[str] = frozenset()
) -> list[PlayedRound]:
    """Play out a field of ids == seeds where the better seed wins, except in ``upsets``."""
    entrants = field(players)
    played: list[PlayedRound] = []
    while (plan := SE.next_round(entrants, played, s)) is not None:
        results = tuple(finish(t, sorted(t.players, reverse=t.key in upsets)) for t in plan.tables)
        played.append(PlayedRound(plan, results))
    return played


def test_standard_seeding_orders() -> None:
    assert seeding_order(8) == [1, 8, 4, 5, 2, 7, 3, 6]
    assert seeding_order(16) == [1, 16, 8, 9, 4, 13, 5, 12, 2, 15, 7, 10, 3, 14, 6, 11]


def test_eight_players_round_one() -> None:
    plan = SE.next_round(field(8), [], Settings())
    assert plan is not None and plan.name == "Quarter-finals"
    assert [(t.key, t.players) for t in plan.tables] == [
        ("W1-1", (1, 8)),
        ("W1-2", (4, 5)),
        ("W1-3", (2, 7)),
        ("W1-4", (3, 6)),
    ]


def test_byes_go_to_the_top_seeds_and_are_not_tables() -> None:
    entrants = field(6)
    plan = SE.next_round(entrants, [], Settings())
    assert plan is not None and plan.byes == ()
    assert [(t.key, t.players) for t in plan.tables] == [("W1-2", (4, 5)), ("W1-4", (3, 6))]
    bracket = SE.bracket(entrants, [], Settings())
    first = bracket.match("W1-1")
    assert [s.source for s in first.slots] == ["seed 1", "bye"] and first.bye
    assert first.winner == 1 and first.played_in is None
    semi = bracket.match("W2-1")
    assert [(s.entrant, s.source) for s in semi.slots] == [
        (1, "winner of W1-1"),
        (None, "winner of W1-2"),
    ]


def test_a_second_round_match_between_two_bye_holders_waits_for_round_two() -> None:
    played = play_seeds(5, Settings())
    assert [[(t.key, t.players) for t in r.plan.tables] for r in played] == [
        [("W1-2", (4, 5))],
        [("W2-1", (1, 4)), ("W2-2", (2, 3))],
        [("W3-1", (1, 2))],
    ]


def test_a_tie_sends_the_better_seed_through() -> None:
    entrants = field(4)
    plan = SE.next_round(entrants, [], Settings())
    assert plan is not None
    tied = tuple(TableResult(t.players, (1, 1), (0, 0)) for t in plan.tables)
    after = SE.next_round(entrants, [PlayedRound(plan, tied)], Settings())
    assert after is not None and after.tables[0].players == (1, 2)


def test_third_place_match_and_final_standings() -> None:
    s = Settings(third_place=True)
    played = play_seeds(8, s, upsets=frozenset({"W2-2", "3rd"}))  # 3 beats 2, then 4 beats 2
    final = played[-1].plan
    assert final.name == "Final" and [(t.key, t.players) for t in final.tables] == [
        ("W3-1", (1, 3)),
        ("3rd", (4, 2)),
    ]
    lines = SE.standings(field(8), played, s)
    assert [(x.entrant, x.rank, x.points, x.eliminated) for x in lines] == [
        (1, 1, 3, False),
        (3, 2, 2, True),
        (4, 3, 2, True),
        (2, 4, 1, True),
        (5, 5, 0, True),
        (6, 5, 0, True),
        (7, 5, 0, True),
        (8, 5, 0, True),
    ]
    assert SE.champion(field(8), played, s) == 1


def test_without_third_place_the_semi_final_losers_share_third() -> None:
    played = play_seeds(8, Settings())
    ranks = {x.entrant: x.rank for x in SE.standings(field(8), played, Settings())}
    assert ranks == {1: 1, 2: 2, 3: 3, 4: 3, 5: 5, 6: 5, 7: 5, 8: 5}


def test_live_standings_and_no_champion_before_the_end() -> None:
    s = Settings()
    played = play_seeds(8, s)[:1]
    lines = SE.standings(field(8), played, s)
    assert [(x.entrant, x.rank, x.eliminated) for x in lines] == [
        (1, 1, False),
        (2, 1, False),
        (3, 1, False),
        (4, 1, False),
        (5, 5, True),
        (6, 5, True),
        (7, 5, True),
        (8, 5, True),
    ]
    assert SE.champion(field(8), played, s) is None


def test_check_refuses_what_it_cannot_run() -> None:
    with pytest.raises(FormatError, match="two-player tables"):
        SE.check(8, Settings(table_size=4))
    with pytest.raises(FormatError, match="at least 2 players"):
        SE.check(1, Settings())


def test_a_result_from_other_players_is_refused() -> None:
    entrants = field(4)
    plan = SE.next_round(entrants, [], Settings())
    assert plan is not None
    wrong = Seating((1, 3), "W1-1")
    bad = RoundPlan(1, plan.name, (wrong,))
    results = (finish(wrong, [1, 3]),)
    with pytest.raises(FormatError, match="match W1-1 was played by"):
        SE.next_round(entrants, [PlayedRound(bad, results)], Settings())


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 512), st.booleans(), st.integers(0, 2**32))
def test_events_end_with_a_champion_and_everyone_loses_once(
    players: int, third: bool, seed: int
) -> None:
    entrants = field(players, spread=7)
    s = Settings(third_place=third)
    played = play(SE, entrants, s, seed)
    rounds = math.ceil(math.log2(players))
    assert len(played) == rounds
    for done in played:
        assert len(set(seated(done.plan))) == len(seated(done.plan))
    games = games_of(played)
    third_match = third and players >= 4
    assert sum(games.values()) == 2 * (players - 1 + third_match)
    lines = SE.standings(entrants, played, s)
    champion = SE.champion(entrants, played, s)
    assert champion is not None and lines[0].entrant == champion and lines[0].rank == 1
    assert sorted(x.entrant for x in lines) == sorted(e.id for e in entrants)
    assert [x.eliminated for x in lines].count(False) == 1
    losses = {e.id: 0 for e in entrants}
    seeds = {e.id: e.seed for e in entrants}
    for done in played:
        for table, result in zip(done.plan.tables, done.results, strict=True):
            losses[duel(result, seeds)[1]] += table.key != "3rd"
    assert losses[champion] == 0
    assert all(n == 1 for p, n in losses.items() if p != champion)
    assert all(games.get(e.id, 0) <= rounds for e in entrants)


# --- Players who have left ---------------------------------------------------------------------


def test_a_player_who_left_loses_by_walkover_and_the_opponent_goes_through_without_a_table() -> (
    None
):
    entrants, s, gone = field(8), Settings(third_place=True), frozenset({4})
    quarters = play_seeds(8, s)[:1]  # the better seeds win: 1, 4, 2 and 3 go through
    semis = SE.next_round(entrants, quarters, s, gone=gone)
    assert semis is not None and semis.name == "Semi-finals"
    assert [(t.key, t.players) for t in semis.tables] == [("W2-2", (2, 3))]
    walkover = SE.bracket(entrants, quarters, s, gone=gone).match("W2-1")
    assert (walkover.winner, walkover.loser, walkover.walkover) == (1, 4, True)
    assert (walkover.bye, walkover.played_in) == (False, None)
    played = [*quarters, PlayedRound(semis, (finish(semis.tables[0], (2, 3)),))]
    final = SE.next_round(entrants, played, s, gone=gone)
    assert final is not None and [(t.key, t.players) for t in final.tables] == [("W3-1", (1, 2))]
    third = SE.bracket(entrants, played, s, gone=gone).match("3rd")
    assert (third.winner, third.loser, third.walkover) == (3, 4, True)  # the other semi loser
    played.append(PlayedRound(final, (finish(final.tables[0], (1, 2)),)))
    assert SE.next_round(entrants, played, s, gone=gone) is None
    assert SE.champion(entrants, played, s, gone=gone) == 1
    lines = SE.standings(entrants, played, s, gone=gone)
    assert [(x.entrant, x.rank, x.points, x.eliminated) for x in lines[:4]] == [
        (1, 1, 3.0, False),  # the walkover counts as a win
        (2, 2, 2.0, True),
        (3, 3, 2.0, True),
        (4, 4, 1.0, True),
    ]


def test_a_match_played_before_the_player_left_keeps_its_result() -> None:
    entrants, s = field(4), Settings()
    first = SE.next_round(entrants, [], s)
    assert first is not None
    # 4 withdrew during the round: absent, last; the table decided for 1 all the same.
    played = [PlayedRound(first, tuple(finish(t, sorted(t.players)) for t in first.tables))]
    bracket = SE.bracket(entrants, played, s, gone=frozenset({4}))
    assert [(m.key, m.walkover, m.played_in) for m in bracket.matches[:2]] == [
        ("W1-1", False, 1),
        ("W1-2", False, 1),
    ]
