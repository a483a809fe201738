"""``simulate_event``: a whole event of each format played by bots through the real services
(tables, the engine, finalization, ratings, advancement), checked from its JSON."""

from __future__ import annotations

import json
from collections import Counter
from io import StringIO
from itertools import combinations
from typing import Any

import pytest
from django.core.management import CommandError, call_command

from games.models import Table, TableEvent
from games.selectors import table_mismatch
from ratings.models import RatingChange
from tournaments.models import Tournament

pytestmark = pytest.mark.django_db


def simulate(*args: str) -> dict[str, Any]:
    out = StringIO()
    call_command("simulate_event", *args, "--target", "50", "--json", stdout=out)
    result: dict[str, Any] = json.loads(out.getvalue())
    return result


def check_shape(result: dict[str, Any], players: int, table_size: int) -> None:
    """What every format's output must satisfy."""
    assert [r["number"] for r in result["rounds"]] == list(range(1, len(result["rounds"]) + 1))
    for played in result["rounds"]:
        seated = [p for t in played["tables"] for p in t["players"]]
        assert len(seated) == len(set(seated)), "nobody sits twice in a round"
        for table in played["tables"]:
            assert 2 <= len(table["players"]) <= table_size
            assert set(table["placements"]) == set(table["players"])
            assert min(table["placements"].values()) == 1
    standings = result["standings"]
    assert len(standings) == players
    assert [s["rank"] for s in standings] == sorted(s["rank"] for s in standings)
    assert standings[0]["username"] == result["champion"]
    event = Tournament.objects.get(format=result["format"])
    assert event.status == "finished" and event.champion.username == result["champion"]
    assert RatingChange.objects.exists()  # the event is rated: its games moved ratings


def meetings(result: dict[str, Any]) -> Counter[frozenset[str]]:
    return Counter(
        frozenset(pair)
        for played in result["rounds"]
        for table in played["tables"]
        for pair in combinations(table["players"], 2)
    )


def test_single_elimination() -> None:
    result = simulate("--format", "single_elimination", "--players", "6")
    check_shape(result, 6, 2)
    # Six players: two byes to the top seeds, then 2 + 2 + 1 matches.
    assert [len(r["tables"]) for r in result["rounds"]] == [2, 2, 1]


def test_double_elimination() -> None:
    result = simulate("--format", "double_elimination", "--players", "4")
    check_shape(result, 4, 2)
    losses = Counter(
        name
        for played in result["rounds"]
        for table in played["tables"]
        for name, place in table["placements"].items()
        if place == 2
    )
    assert losses[result["champion"]] <= 1  # a champion lost at most once
    assert all(n <= 2 for n in losses.values())


def test_round_robin() -> None:
    result = simulate("--format", "round_robin", "--players", "5")
    check_shape(result, 5, 2)
    assert len(result["rounds"]) == 5  # five players: five rounds, one sits out each
    assert set(meetings(result).values()) == {1}
    assert len(meetings(result)) == 10  # every pair met once


def test_swiss() -> None:
    result = simulate("--format", "swiss", "--players", "8", "--rounds", "3")
    check_shape(result, 8, 2)
    assert len(result["rounds"]) == 3
    assert set(meetings(result).values()) == {1}  # no rematch
    assert set(result["standings"][0]["tiebreaks"]) >= {"buchholz", "sonneborn_berger"}


def test_multi_table_elimination() -> None:
    result = simulate("--format", "multi_table_elimination", "--players", "11", "--table-size", "4")
    check_shape(result, 11, 4)
    sizes = [len(t["players"]) for t in result["rounds"][0]["tables"]]
    assert sorted(sizes) == [3, 4, 4] and len(result["rounds"][-1]["tables"]) == 1


def test_swiss_tables() -> None:
    result = simulate(
        "--format", "swiss_tables", "--players", "9", "--table-size", "3", "--rounds", "2"
    )
    check_shape(result, 9, 3)
    assert len(result["rounds"]) == 2
    assert all(len(r["tables"]) == 3 for r in result["rounds"])


def test_every_table_is_its_log_replayed() -> None:
    """The bots act on the state each service call answered, never on a fresh read: the tables
    they leave are still exactly what replaying their logs gives, every game played to its end
    by its seated players alone, one version per log row."""
    simulate("--format", "swiss_tables", "--players", "8", "--table-size", "4", "--rounds", "2")
    tables = Table.objects.filter(tournament_table__isnull=False)
    assert tables.count() == 4
    for table in tables:
        assert table.status == Table.Status.FINISHED
        assert table_mismatch(table) is None
        versions = list(table.events.order_by("version").values_list("version", flat=True))
        assert versions == list(range(1, table.version + 1))
        seated = set(table.seat_set.values_list("user__username", flat=True))
        acted = table.events.filter(kind=TableEvent.Kind.ACTION).values_list("player", flat=True)
        assert set(acted) <= seated


def test_the_command_refuses_what_it_cannot_run() -> None:
    with pytest.raises(CommandError, match="at least 2"):
        call_command("simulate_event", "--format", "swiss", "--players", "1")
    with pytest.raises(CommandError):
        call_command(
            "simulate_event", "--format", "single_elimination", "--players", "4",
            "--table-size", "4", stdout=StringIO(),
        )  # fmt: skip
