"""Every format through the registry: the slugs, and properties all six share (pure and
deterministic, blind to the order entrants are listed in, live standings, a champion at the
end)."""

from __future__ import annotations

import random

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from tournaments.formats import FORMATS, Format, FormatError, Settings, get_format

from .driver import field, play, play_leaving, seated

SETTINGS = {
    "single_elimination": Settings(third_place=True),
    "double_elimination": Settings(),
    "round_robin": Settings(),
    "swiss": Settings(),
    "multi_table_elimination": Settings(table_size=4, advance=2),
    "swiss_tables": Settings(table_size=4),
}


def test_the_six_slugs() -> None:
    assert list(FORMATS) == list(SETTINGS)
    assert all(get_format(slug).slug == slug for slug in FORMATS)
    with pytest.raises(FormatError, match="the formats are: single_elimination, double_elim"):
        get_format("knockout")


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(sorted(SETTINGS)), st.integers(6, 40), st.integers(0, 2**32))
def test_pure_live_and_finished(slug: str, players: int, seed: int) -> None:
    fmt, s = get_format(slug), SETTINGS[slug]
    entrants = field(players, spread=17)
    played = play(fmt, entrants, s, seed)
    shuffled = list(entrants)
    random.Random(seed).shuffle(shuffled)
    middle = played[: len(played) // 2]
    plan = fmt.next_round(entrants, middle, s)
    assert plan is not None and plan == fmt.next_round(shuffled, middle, s)
    live = fmt.standings(entrants, middle, s)
    assert live == fmt.standings(shuffled, middle, s)
    assert sorted(x.entrant for x in live) == sorted(e.id for e in entrants)
    assert [x.rank for x in live] == sorted(x.rank for x in live) and live[0].rank == 1
    assert fmt.champion(entrants, middle, s) is None
    assert fmt.next_round(entrants, played, s) is None
    final = fmt.standings(entrants, played, s)
    assert final[0].entrant == fmt.champion(entrants, played, s)


def runs(fmt: Format, players: int, s: Settings) -> bool:
    try:
        fmt.check(players, s)
    except FormatError:
        return False
    return True


#: Every format, and the variants with their own rules for players who leave.
LEAVING = [
    *SETTINGS.items(),
    ("round_robin", Settings(double_round=True)),
    ("round_robin", Settings(table_size=4, double_round=True)),
    ("double_elimination", Settings(grand_final_reset=False)),
    ("multi_table_elimination", Settings(table_size=3, min_table=3, advance=1)),
    ("swiss_tables", Settings(table_size=3, min_table=3, rounds=4)),
]


@settings(max_examples=150, deadline=None)
@given(
    st.sampled_from(LEAVING),
    st.integers(4, 30),
    st.integers(0, 2**32),
    st.booleans(),
    st.data(),
)
def test_a_player_who_leaves_is_never_seated_again(
    case: tuple[str, Settings], players: int, seed: int, planned: bool, data: st.DataObject
) -> None:
    slug, s = case
    fmt, entrants = get_format(slug), field(players, spread=17)
    assume(runs(fmt, players, s))
    full = play(fmt, entrants, s, seed)
    player = data.draw(st.sampled_from([e.id for e in entrants]), label="player")
    after = data.draw(st.integers(0, len(full) - 1), label="after")
    played, gone = play_leaving(fmt, entrants, s, {player: after}, seed, planned)
    assert gone == {player}
    assert all(player not in seated(r.plan) for r in played[after + planned :])
    champion = fmt.champion(entrants, played, s, gone=gone)
    assert champion is not None and champion != player
    final = fmt.standings(entrants, played, s, gone=gone)
    assert champion == next(x.entrant for x in final if x.entrant != player)
    assert [x.eliminated for x in final if x.entrant == player] == [True]


@settings(max_examples=150, deadline=None)
@given(
    st.sampled_from(LEAVING),
    st.integers(4, 24),
    st.integers(0, 2**32),
    st.booleans(),
    st.data(),
)
def test_events_end_whoever_leaves(
    case: tuple[str, Settings], players: int, seed: int, planned: bool, data: st.DataObject
) -> None:
    slug, s = case
    fmt, entrants = get_format(slug), field(players)
    assume(runs(fmt, players, s))
    leaving = data.draw(
        st.dictionaries(st.integers(1, players), st.integers(0, 6), max_size=players), "leaving"
    )
    played, gone = play_leaving(fmt, entrants, s, leaving, seed, planned)
    for number, done in enumerate(played, 1):
        left = {p for p, after in leaving.items() if after + planned < number}
        assert left.isdisjoint(seated(done.plan))
    champion = fmt.champion(entrants, played, s, gone=gone)
    assert champion is not None
    if len(gone) < players and slug in ("round_robin", "swiss", "swiss_tables"):
        assert champion not in gone  # eliminations: unless every contender left (their docs)
