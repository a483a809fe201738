"""bench/ratings.py: its synthetic population, its figures, and a quick run. The run needs
PostgreSQL: that of ``DATABASE_URL`` when set, else the local default (the bench makes and drops
databases of its own there). Where it does not answer the bench must say so, and CI
(``REQUIRE_SERVICES=1``) always has it. Wall-clock figures are never asserted."""

from __future__ import annotations

import itertools
import json
import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from bench import ratings
from bench.ratings_bench.common import ms_figures
from bench.ratings_bench.e2e import random_table
from bench.ratings_bench.scale import (
    TYPICAL_DEVIATION,
    games_per_player,
    next_deviation,
    seat_tables,
    table_information,
)
from ratings import glicko

ROOT = Path(__file__).resolve().parent.parent.parent
TIMED = {"n", "median_ms", "p95_ms", "max_ms"}


def run_bench(*args: str) -> dict[str, Any]:
    command = [sys.executable, "bench/ratings.py", *args]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout)


def test_games_per_player_sum_to_the_changes() -> None:
    games = games_per_player(random.Random(1), 1000, 10_000)
    assert games[0] == 0 and len(games) == 1001
    assert sum(games) == 10_000 and min(games[1:]) >= 1
    few = sum(g < 20 for g in games[1:])
    assert 500 < few < 1000  # most players have played a few games, some many


def test_tables_seat_2_to_8_different_players() -> None:
    rng = random.Random(2)
    games = games_per_player(rng, 300, 3_000)
    slots = [pid for pid in range(1, 301) for _ in range(games[pid])]
    rng.shuffle(slots)
    before = sorted(slots)
    starts = seat_tables(rng, slots)
    assert sorted(slots) == before  # seats were only swapped
    assert starts[0] == 0 and starts[-1] == len(slots)
    for a, b in itertools.pairwise(starts):
        table = slots[a:b]
        assert 2 <= len(table) <= 8
        assert len(set(table)) == len(table)


def test_a_synthetic_deviation_falls_as_rate_table_s_would() -> None:
    """Among equals whose deviations are TYPICAL_DEVIATION, whatever the player brings."""
    for n in (2, 4, 8):
        for deviation, days in ((350.0, 0.0), (190.0, 0.0), (120.0, 30.0)):
            brought, after = next_deviation(deviation, days, table_information(n))
            assert brought == glicko.before_game(deviation, days)
            table = [glicko.Skill(1500, brought)] + [glicko.Skill(1500, TYPICAL_DEVIATION)] * (
                n - 1
            )
            assert after == pytest.approx(glicko.rate_table(table, [1] * n)[0].deviation)
    assert table_information(8) > table_information(4) > table_information(2) > 0


def test_a_regular_player_becomes_established_and_a_long_absence_undoes_it() -> None:
    four = table_information(4)
    deviation, games = glicko.START_DEVIATION, 0
    while glicko.provisional(deviation):
        _, deviation = next_deviation(deviation, 3.0, four)
        games += 1
    assert 3 < games < 20
    brought, after = next_deviation(deviation, 365.0, four)
    assert glicko.provisional(brought) and brought > after > deviation


def test_a_random_table_brings_grown_deviations_and_rated_places() -> None:
    rng = random.Random(3)
    for n in (2, 4, 8):
        for _ in range(50):
            skills, places = random_table(rng, n)
            assert len(skills) == len(places) == n
            assert all(
                glicko.before_game(100.0, 0.0) <= s.deviation <= glicko.START_DEVIATION
                for s in skills
            )
            assert min(places) == 1 and max(places) <= n + 1


def test_ms_figures() -> None:
    figures = ms_figures([n / 1000 for n in range(1, 101)])
    assert figures == {"n": 100, "median_ms": 50.5, "p95_ms": 95.0, "max_ms": 100.0}
    assert ms_figures([])["median_ms"] is None


def test_quick_is_small() -> None:
    quick = ratings.arguments(["--quick"])
    assert (quick.players, quick.changes, quick.recompute_games) == (20_000, 200_000, 1_000)
    full = ratings.arguments([])
    assert (full.players, full.changes, full.recompute_games) == (1_000_000, 10_000_000, 20_000)


def test_without_postgresql_it_says_so() -> None:
    out = run_bench("--quick", "--pg", "postgres://postgres@127.0.0.1:1/")
    assert out["bench"] == "ratings"
    assert "does not answer" in out["skipped"]


def assert_timed(figures: dict[str, Any]) -> None:
    assert set(figures) >= TIMED, figures
    assert figures["n"] > 0
    assert all(figures[k] > 0 for k in ("median_ms", "p95_ms", "max_ms"))


def test_a_quick_run() -> None:
    database = os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/rummy")
    server = urlsplit(database)._replace(path="/").geturl()
    out = run_bench("--quick", "--pg", server)
    if "skipped" in out:  # a machine without PostgreSQL: the bench must say so
        assert os.environ.get("REQUIRE_SERVICES") != "1", out
        assert "does not answer" in out["skipped"]
        return
    assert out["bench"] == "ratings" and out["quick"] is True

    rate = out["rate_table"]
    assert rate["players"] == 8
    assert rate["calls_per_s"] > 0 and rate["us_per_call_best"] > 0

    e2e = out["end_to_end"]
    assert 0 < e2e["games_rated"] <= e2e["games"]
    # Every player of a counted game, in two pools: the global one and the standard preset's.
    assert e2e["changes_written"] == e2e["games_rated"] * e2e["seats"] * 2
    for key in ("action", "last_action", "hook", "finish"):
        assert_timed(e2e[key])
    assert e2e["hook_ms"] > 0 and e2e["finish_ms"] >= e2e["hook_ms"]

    check = out["recompute_equals_incremental"]
    assert check["equal"] is True and check["differing"] == []
    assert check["changes"] > check["games"] and "global" in check["pools"]

    rebuilt = out["recompute"]
    assert rebuilt["games"] == 1_000 and rebuilt["changes"] > rebuilt["games"]
    assert len(rebuilt["runs"]) == 2
    assert rebuilt["games_per_s"] > 0 and rebuilt["changes_per_s"] > 0
    assert isinstance(rebuilt["aim_met"], bool)

    board = out["leaderboard"]
    assert (board["players"], board["changes"]) == (20_000, 200_000)
    assert 0 < board["established"] < board["players"]
    for key in (
        "top100",
        "top100_established",
        "my_rank",
        "my_rank_established",
        "count",
        "count_established",
        "history_100",
        "history_100_busiest",
        "api_top100",
        "api_top100_established",
        "api_around",
        "api_player",
    ):
        assert_timed(board[key])
    plan = board["explain"]["top100"]
    assert any("rating_board" in step["plan"] for step in plan)
    assert all(step["execution_ms"] is not None for step in plan)
    assert set(board["aims"]) == {"p95_ms_under", "top100_met", "my_rank_met"}

    scale = out["hook_at_scale"]
    assert scale["committed"] is False
    assert_timed(scale)
    assert set(out["aims"]) == {
        "leaderboard_p95_ms_under",
        "top100_met",
        "my_rank_met",
        "recompute_games_per_s_at_least",
        "recompute_met",
    }
