"""Swiss: score groups, floats, no rematches, byes, Buchholz and Sonneborn-Berger, properties."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tournaments.formats import FormatError, PlayedRound, RoundPlan, Settings, Swiss, TableResult
from tournaments.formats.common import DUEL_SCORES
from tournaments.formats.swiss import default_rounds
from tournaments.formats.swiss_pairing import dutch, pair_round
from tournaments.formats.tally import tally

from .driver import field, finish, play, seated

SW = Swiss()


def played_round(plan: RoundPlan | None, outcomes: dict[tuple[int, ...], int]) -> PlayedRound:
    """``plan`` with each table's result: 1 the first seat wins, 2 the second, 0 a tie."""
    assert plan is not None
    results = []
    for t in plan.tables:
        places = {1: (1, 2), 2: (2, 1), 0: (1, 1)}[outcomes[t.players]]
        results.append(TableResult(t.players, places, (0, 0)))
    return PlayedRound(plan, tuple(results))


def test_round_one_pairs_the_top_half_with_the_bottom_half() -> None:
    plan = SW.next_round(field(8), [], Settings())
    assert plan is not None and [t.players for t in plan.tables] == [(1, 5), (2, 6), (3, 7), (4, 8)]


def test_round_two_pairs_within_score_groups() -> None:
    entrants = field(8)
    first = SW.next_round(entrants, [], Settings())
    assert first is not None
    done = PlayedRound(first, tuple(finish(t, sorted(t.players)) for t in first.tables))
    plan = SW.next_round(entrants, [done], Settings())
    assert plan is not None and [t.players for t in plan.tables] == [(1, 3), (2, 4), (5, 7), (6, 8)]


def test_a_rematch_is_avoided_by_the_next_player_down() -> None:
    entrants = field(4)
    first = played_round(SW.next_round(entrants, [], Settings()), {(1, 3): 0, (2, 4): 0})
    plan = SW.next_round(entrants, [first], Settings(rounds=3))
    assert plan is not None and [t.players for t in plan.tables] == [(1, 4), (2, 3)]


def test_the_odd_one_of_a_score_group_floats_down() -> None:
    entrants = field(6)
    first = played_round(SW.next_round(entrants, [], Settings()), {(1, 4): 1, (2, 5): 1, (3, 6): 1})
    plan = SW.next_round(entrants, [first], Settings())
    assert plan is not None and [t.players for t in plan.tables] == [(1, 2), (3, 5), (4, 6)]


def test_the_bye_goes_to_the_lowest_ranked_player_without_one() -> None:
    entrants = field(5)
    plan = SW.next_round(entrants, [], Settings())
    assert (
        plan is not None
        and plan.byes == (5,)
        and [t.players for t in plan.tables]
        == [
            (1, 3),
            (2, 4),
        ]
    )
    first = played_round(plan, {(1, 3): 1, (2, 4): 1})
    second = SW.next_round(entrants, [first], Settings())
    assert second is not None and second.byes == (4,)
    assert [t.players for t in second.tables] == [(1, 2), (5, 3)]
    played = [first, played_round(second, {(1, 2): 1, (5, 3): 1})]
    lines = SW.standings(entrants, played, Settings())
    assert [(x.entrant, x.rank, x.points, x.tiebreaks["buchholz"]) for x in lines] == [
        (1, 1, 2.0, 1.0),
        (5, 2, 2.0, 0.0),
        (2, 3, 1.0, 3.0),
        (4, 4, 1.0, 1.0),
        (3, 5, 0.0, 4.0),
    ]


def test_sonneborn_berger_splits_a_tie_on_buchholz() -> None:
    entrants = field(4)
    first = played_round(SW.next_round(entrants, [], Settings()), {(1, 3): 1, (2, 4): 0})
    second_plan = SW.next_round(entrants, [first], Settings())
    assert second_plan is not None and [t.players for t in second_plan.tables] == [(1, 2), (4, 3)]
    played = [first, played_round(second_plan, {(1, 2): 2, (4, 3): 0})]
    assert SW.next_round(entrants, played, Settings()) is None
    lines = SW.standings(entrants, played, Settings())
    assert [(x.entrant, x.rank, x.points, x.tiebreaks) for x in lines] == [
        (2, 1, 1.5, {"buchholz": 2.0, "sonneborn_berger": 1.5}),
        (4, 2, 1.0, {"buchholz": 2.0, "sonneborn_berger": 1.0}),
        (1, 3, 1.0, {"buchholz": 2.0, "sonneborn_berger": 0.5}),
        (3, 4, 0.5, {"buchholz": 2.0, "sonneborn_berger": 0.5}),
    ]
    assert SW.champion(entrants, played, Settings()) == 2


def test_rounds_default_and_limits() -> None:
    assert [default_rounds(n) for n in (2, 3, 4, 5, 16, 17, 512)] == [1, 2, 2, 3, 4, 5, 9]
    with pytest.raises(FormatError, match="can play 1 to 3 Swiss rounds, not 4"):
        SW.check(4, Settings(rounds=4))
    SW.check(5, Settings(rounds=5))  # an odd field: every player can also have a bye
    with pytest.raises(FormatError, match="not 0"):
        SW.check(4, Settings(rounds=0))
    with pytest.raises(FormatError, match="two-player tables"):
        SW.check(8, Settings(table_size=4))


def _pairable(players: list[int], met: dict[int, set[int]]) -> bool:
    """Whether ``players`` can be paired with no rematch (exhaustive)."""
    if not players:
        return True
    p, rest = players[0], players[1:]
    return any(q not in met[p] and _pairable([x for x in rest if x != q], met) for q in rest)


def test_pairing_searches_past_a_dead_end() -> None:
    # The Dutch pass pairs 1-3 and is left with 2 and 4, who have met; the repair re-pairs the
    # last players together.
    met = {1: set(), 2: {4}, 3: set(), 4: {2}}
    score = dict.fromkeys(range(1, 5), 0.0)
    assert dutch([1, 2, 3, 4], score, met) == ([(1, 3)], [2, 4])
    assert pair_round([1, 2, 3, 4], score, met) == [(1, 2), (3, 4)]


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 512), st.integers(0, 2**32))
def test_default_events_never_rematch(players: int, seed: int) -> None:
    entrants = field(players, spread=11)
    played = play(SW, entrants, Settings(), seed)
    assert len(played) == default_rounds(players)
    pairs = [frozenset(t.players) for r in played for t in r.plan.tables]
    byes = [p for r in played for p in r.plan.byes]
    assert len(pairs) == len(set(pairs)) and len(byes) == len(set(byes))
    for done in played:
        assert sorted(seated(done.plan)) == sorted(e.id for e in entrants)
        assert len(done.plan.byes) == players % 2
    lines = SW.standings(entrants, played, Settings())
    assert SW.champion(entrants, played, Settings()) == lines[0].entrant
    assert sorted(x.entrant for x in lines) == sorted(e.id for e in entrants)


@settings(max_examples=40, deadline=None)
@given(st.integers(3, 10), st.integers(0, 2**32))
def test_long_events_rematch_only_when_no_pairing_avoids_it(players: int, seed: int) -> None:
    entrants = field(players)
    s = Settings(rounds=players if players % 2 else players - 1)
    played = play(SW, entrants, s, seed)
    for number, done in enumerate(played):
        met = tally(range(1, players + 1), played[:number], DUEL_SCORES, 1.0).met
        if any(t.players[1] in met[t.players[0]] for t in done.plan.tables):
            assert not _pairable([p for t in done.plan.tables for p in t.players], met)


# --- Players who have left ---------------------------------------------------------------------


def test_a_player_who_left_is_not_paired_and_the_bye_goes_to_the_lowest_still_in() -> None:
    entrants = field(8)
    first = played_round(
        SW.next_round(entrants, [], Settings()), {(1, 5): 1, (2, 6): 1, (3, 7): 1, (4, 8): 1}
    )
    gone = frozenset({4})  # won their game, then withdrew
    second = SW.next_round(entrants, [first], Settings(), gone=gone)
    assert second is not None and second.byes == (8,)
    assert [t.players for t in second.tables] == [(1, 2), (3, 6), (5, 7)]
    played = [first, played_round(second, {(1, 2): 1, (3, 6): 1, (5, 7): 1})]
    lines = {x.entrant: x for x in SW.standings(entrants, played, Settings(), gone=gone)}
    assert (lines[4].points, lines[4].eliminated) == (1.0, True)  # ranked by their results
    assert lines[8].tiebreaks["buchholz"] == 1.0  # their one opponent, 4, as 4's score stands
    assert not any(x.eliminated for p, x in lines.items() if p != 4)


def test_the_player_due_the_bye_leaves_and_the_even_rest_are_all_paired() -> None:
    entrants = field(7)
    first = played_round(SW.next_round(entrants, [], Settings()), {(1, 4): 1, (2, 5): 1, (3, 6): 1})
    usual = SW.next_round(entrants, [first], Settings())
    assert usual is not None and usual.byes == (6,)
    second = SW.next_round(entrants, [first], Settings(), gone=frozenset({6}))
    assert second is not None and second.byes == ()
    assert [t.players for t in second.tables] == [(1, 3), (2, 7), (4, 5)]


def test_with_one_player_still_in_the_event_ends_and_they_win() -> None:
    entrants, gone = field(4), frozenset({1, 2, 3})
    assert SW.next_round(entrants, [], Settings(), gone=gone) is None
    assert SW.champion(entrants, [], Settings(), gone=gone) == 4
    with pytest.raises(FormatError, match=r"players who left are not entrants: \[9\]"):
        SW.next_round(entrants, [], Settings(), gone=frozenset({9}))
