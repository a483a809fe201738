"""Every format through the registry: the slugs, and properties all six share (pure and
deterministic, blind to the order entrants are listed in, live standings, a champion at the
end)."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tournaments.formats import FORMATS, FormatError, Settings, get_format

from .driver import field, play

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
