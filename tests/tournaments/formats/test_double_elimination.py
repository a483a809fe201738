"""Double elimination: the losers-bracket feed, byes passing on, the grand final and its reset,
standings, and properties over random events."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tournaments.formats import DoubleElimination, FormatError, PlayedRound, Settings
from tournaments.formats.bracket import duel

from .driver import field, finish, games_of, play, seated

DE = DoubleElimination()


def play_seeds(
    players: int, s: Settings, upsets: frozenset[str] = frozenset()
) -> list[PlayedRound]:
    """Play out a field of ids == seeds where the better seed wins, except in ``upsets``."""
    entrants = field(players)
    played: list[PlayedRound] = []
    while (plan := DE.next_round(entrants, played, s)) is not None:
        results = tuple(finish(t, sorted(t.players, reverse=t.key in upsets)) for t in plan.tables)
        played.append(PlayedRound(plan, results))
    return played


def test_losers_bracket_feed_for_eight() -> None:
    bracket = DE.bracket(field(8), [], Settings())
    feeds = {m.key: [s.source for s in m.slots] for m in bracket.matches if m.side != "winners"}
    assert feeds == {
        "L1-1": ["loser of W1-1", "loser of W1-2"],
        "L1-2": ["loser of W1-3", "loser of W1-4"],
        "L2-1": ["winner of L1-1", "loser of W2-2"],  # round 2 droppers come in reversed
        "L2-2": ["winner of L1-2", "loser of W2-1"],
        "L3-1": ["winner of L2-1", "winner of L2-2"],
        "L4-1": ["winner of L3-1", "loser of W3-1"],
        "GF": ["winner of W3-1", "winner of L4-1"],
        "GF2": ["winner of W3-1", "winner of L4-1"],
    }


def test_sixteen_alternates_the_droppers_order() -> None:
    bracket = DE.bracket(field(16), [], Settings())
    drops = [m.slots[1].source for m in bracket.matches if m.key.startswith(("L2-", "L4-"))]
    assert drops == [
        "loser of W2-4",
        "loser of W2-3",
        "loser of W2-2",
        "loser of W2-1",  # reversed
        "loser of W3-1",
        "loser of W3-2",  # in order
    ]


def test_rounds_hold_every_ready_match() -> None:
    played = play_seeds(8, Settings())
    assert [(r.plan.name, [t.key for t in r.plan.tables]) for r in played] == [
        ("Winners round 1", ["W1-1", "W1-2", "W1-3", "W1-4"]),
        ("Winners round 2 / Losers round 1", ["W2-1", "W2-2", "L1-1", "L1-2"]),
        ("Winners round 3 / Losers round 2", ["W3-1", "L2-1", "L2-2"]),
        ("Losers round 3", ["L3-1"]),
        ("Losers round 4", ["L4-1"]),
        ("Grand final", ["GF"]),
    ]
    assert played[4].plan.tables[0].players == (3, 2)  # L3 winner, then the W3 loser


def test_byes_pass_through_the_losers_bracket() -> None:
    entrants = field(5)
    plan = DE.next_round(entrants, [], Settings())
    assert plan is not None
    assert [(t.key, t.players) for t in plan.tables] == [("W1-2", (4, 5)), ("W2-2", (2, 3))]
    bracket = DE.bracket(entrants, [], Settings())
    both_byes = bracket.match("L1-2")
    assert both_byes.bye and both_byes.winner is None
    assert [s.bye for s in both_byes.slots] == [True, True]
    played = [PlayedRound(plan, tuple(finish(t, sorted(t.players)) for t in plan.tables))]
    after = DE.bracket(entrants, played, Settings())
    assert after.match("L1-1").winner == 5 and after.match("L1-1").bye  # 5 waits for no one
    assert after.match("L2-2").slots[0].bye and after.match("L2-2").played_in is None
    nxt = DE.next_round(entrants, played, Settings())
    assert nxt is not None and [(t.key, t.players) for t in nxt.tables] == [
        ("W2-1", (1, 4)),
        ("L2-1", (5, 3)),
    ]


def test_the_reset_is_played_only_when_the_losers_champion_wins() -> None:
    s = Settings()
    kept = play_seeds(4, s)
    assert [t.key for t in kept[-1].plan.tables] == ["GF"]
    assert DE.champion(field(4), kept, s) == 1
    reset = play_seeds(4, s, upsets=frozenset({"GF"}))
    assert [t.key for t in reset[-1].plan.tables] == ["GF2"]
    assert reset[-1].plan.name == "Grand final reset"
    assert DE.champion(field(4), reset, s) == 1
    won = play_seeds(4, s, upsets=frozenset({"GF", "GF2"}))
    assert DE.champion(field(4), won, s) == 2
    assert "GF2" not in [m.key for m in DE.bracket(field(4), kept, s).matches]


def test_without_a_reset_the_grand_final_decides() -> None:
    s = Settings(grand_final_reset=False)
    played = play_seeds(4, s, upsets=frozenset({"GF"}))
    assert [t.key for t in played[-1].plan.tables] == ["GF"]
    assert DE.champion(field(4), played, s) == 2
    lines = DE.standings(field(4), played, s)
    assert [(x.entrant, x.rank, x.eliminated) for x in lines][:2] == [(2, 1, False), (1, 2, True)]


def test_two_players_meet_in_the_winners_final_then_the_grand_final() -> None:
    played = play_seeds(2, Settings(), upsets=frozenset({"GF"}))
    assert [[t.key for t in r.plan.tables] for r in played] == [["W1-1"], ["GF"], ["GF2"]]


def test_final_standings_for_eight() -> None:
    s = Settings()
    played = play_seeds(8, s)
    lines = DE.standings(field(8), played, s)
    assert [(x.entrant, x.rank) for x in lines] == [
        (1, 1),
        (2, 2),
        (3, 3),
        (4, 4),
        (5, 5),
        (6, 5),
        (7, 7),
        (8, 7),
    ]
    assert [x.eliminated for x in lines] == [False] + [True] * 7


def test_check_refuses_what_it_cannot_run() -> None:
    with pytest.raises(FormatError, match="two-player tables"):
        DE.check(8, Settings(table_size=3))


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 512), st.booleans(), st.integers(0, 2**32))
def test_events_end_with_a_champion_and_two_losses_for_everyone_else(
    players: int, reset: bool, seed: int
) -> None:
    entrants = field(players, spread=3)
    s = Settings(grand_final_reset=reset)
    played = play(DE, entrants, s, seed)
    for done in played:
        assert len(set(seated(done.plan))) == len(seated(done.plan))
    seeds = {e.id: e.seed for e in entrants}
    losses = dict.fromkeys(seeds, 0)
    for done in played:
        for result in done.results:
            losses[duel(result, seeds)[1]] += 1
    champion = DE.champion(entrants, played, s)
    assert champion is not None and losses[champion] <= 1
    others = sorted(n for p, n in losses.items() if p != champion)
    # Everyone else goes out on a second loss; without a reset the winners-bracket champion
    # can go out on a first, by losing the one grand final.
    assert others[1:] == [2] * (players - 2) and others[0] in ((1, 2) if not reset else (2,))
    assert sum(games_of(played).values()) == 2 * sum(losses.values())
    lines = DE.standings(entrants, played, s)
    assert lines[0].entrant == champion and lines[0].rank == 1 and lines[1].rank == 2
    assert [x.eliminated for x in lines].count(False) == 1


# --- Players who have left ---------------------------------------------------------------------


def test_a_winners_bracket_player_who_left_drops_and_goes_out_by_walkovers() -> None:
    entrants, s, gone = field(4), Settings(), frozenset({2})
    played = play_seeds(4, s)[:1]  # 1 and 2 win round 1
    second = DE.next_round(entrants, played, s, gone=gone)
    assert second is not None and second.name == "Losers round 1"
    assert [(t.key, t.players) for t in second.tables] == [("L1-1", (4, 3))]
    played.append(PlayedRound(second, (finish(second.tables[0], (3, 4)),)))
    final = DE.next_round(entrants, played, s, gone=gone)
    assert final is not None and [(t.key, t.players) for t in final.tables] == [("GF", (1, 3))]
    bracket = DE.bracket(entrants, played, s, gone=gone)
    assert [(m.key, m.winner, m.loser) for m in bracket.matches if m.walkover] == [
        ("W2-1", 1, 2),
        ("L2-1", 3, 2),
    ]


def test_a_grand_final_walkover_has_no_reset() -> None:
    entrants, s, gone = field(4), Settings(), frozenset({1})
    played = play_seeds(4, s)[:3]  # up to the losers final, which 2 wins
    assert DE.next_round(entrants, played, s, gone=gone) is None
    assert DE.champion(entrants, played, s, gone=gone) == 2
    bracket = DE.bracket(entrants, played, s, gone=gone)
    assert [m.key for m in bracket.matches][-1] == "GF"  # the reset is left out
    assert (bracket.match("GF").winner, bracket.match("GF").walkover) == (2, True)
    lines = DE.standings(entrants, played, s, gone=gone)
    assert [(x.entrant, x.rank, x.eliminated) for x in lines] == [
        (2, 1, False),
        (1, 2, True),
        (3, 3, True),
        (4, 4, True),
    ]


def test_a_walkover_between_two_who_left_keeps_the_winner_it_had() -> None:
    # 1 leaves once round 1 is planned (absent, they lose W1-1): L1-1 goes to 2 by walkover, and
    # 2 is seated in the losers final before leaving too. L1-1 stays 2's, not the better seed's.
    entrants, s = field(4), Settings()
    first = DE.next_round(entrants, [], s)
    assert first is not None
    played = [
        PlayedRound(first, (finish(first.tables[0], (4, 1)), finish(first.tables[1], (3, 2))))
    ]
    second = DE.next_round(entrants, played, s, gone=frozenset({1}))
    assert second is not None and [t.key for t in second.tables] == ["W2-1"]
    played.append(PlayedRound(second, (finish(second.tables[0], (4, 3)),)))
    third = DE.next_round(entrants, played, s, gone=frozenset({1}))
    assert third is not None and [(t.key, t.players) for t in third.tables] == [("L2-1", (2, 3))]
    played.append(PlayedRound(third, (finish(third.tables[0], (3, 2)),)))
    bracket = DE.bracket(entrants, played, s, gone=frozenset({1, 2}))
    assert (bracket.match("L1-1").winner, bracket.match("L1-1").walkover) == (2, True)
    assert bracket.match("L2-1").played_in == 3
