"""bench/load.py: the ramp's rules and tallies, the statement counter, and a quick run of the
whole stack (on Redis database 7; see ``services.py``). Wall-clock figures are never asserted."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.db import connection

from bench import load
from bench.load_bench import ramp, sql_count
from tests.bench.services import run_bench, service_args, skipped


def step(tables: int, p99: float | None, lost: int = 0, actions: int = 10) -> dict[str, Any]:
    cpu = {
        "server_pct": 40.0,
        "celery_pct": 4.0,
        "postgres_backends_pct": 6.0,
        "server_rss_mb": 300.0,
        "statements": {"per_action": 5.5, "server_per_action": 4.0},
    }
    rtt = {"p50": p99 and p99 / 2, "p99": p99}
    out = {"tables": tables, "actions": actions, "actions_per_s": 1.0, "rtt_ms": rtt, "cpu": cpu}
    return {**out, "lost": lost, "closed_by_server": {}}


def test_the_ramp_starts_small_then_climbs_by_the_step() -> None:
    assert ramp.sizes(25, 50, 400) == [25, 50, 100, 150, 200, 250, 300, 350, 400]
    assert ramp.sizes(2, 4, 4) == [2, 4]
    assert ramp.sizes(50, 50, 120) == [50, 100]
    assert ramp.sizes(500, 50, 400) == []


def test_a_step_is_held_within_the_limit_with_nothing_lost() -> None:
    assert ramp.healthy(step(50, 200.0), 200)
    assert not ramp.healthy(step(50, 200.5), 200)
    assert not ramp.healthy(step(50, 20.0, lost=1), 200)
    assert not ramp.healthy(step(50, None, actions=0), 200)
    cut = {**step(50, 20.0), "closed_by_server": {"1011": 3}}
    assert not ramp.healthy(cut, 200)
    assert ramp.stop_reason(step(50, 20.0, lost=2), 200) == "actions lost at 50 tables"
    assert ramp.stop_reason(step(150, 250.0), 200) == "p99 250.0 ms over 200 ms at 150 tables"


def test_each_step_counts_what_was_sent_in_its_own_window() -> None:
    run = ramp.Windows(pace=2.0)
    run.errors["stale_version"] += 1  # before the step: not its own
    run.mark()
    first = run.open(hold=10)
    first.start, first.end = 100.0, 110.0
    second = run.open(hold=10)
    second.start, second.end = 120.0, 130.0
    run.errors["stale_version"] += 2
    run.done(105.0, 125.0)  # sent in the first window, answered in the second
    run.done(121.0, 121.5)
    run.done(115.0, 115.1)  # sent between windows: no step's
    run.missed(125.0)
    assert (first.rtts, second.rtts) == ([20.0], [0.5])
    assert (first.lost, second.lost, second.lost_in_window, run.lost) == (0, 1, 1, 1)
    run.close(second)
    assert second.figures("actions")["errors"] == {"stale_version": 2}
    assert second.figures("actions")["rtt_ms"]["max"] == 1000 * 10.0  # the lost one


def test_sustained_is_the_last_step_held_and_what_each_table_costs() -> None:
    steps = [{**step(25, 30.0), "held": True}, {**step(50, 60.0), "held": True}]
    steps.append({**step(100, 900.0), "held": False})
    held = load.sustained(steps, idle_rss_mb=250.0)
    assert held is not None
    assert held["tables"] == 50
    assert held["server_cpu_pct_per_table"] == 0.8
    assert held["stack_cpu_pct_per_table"] == 1.0
    assert (held["server_rss_mb_per_table"], held["server_rss_mb_added_per_table"]) == (6, 1)
    assert held["statements_per_action"] == 5.5
    assert load.sustained([{**step(25, 900.0), "held": False}], 250.0) is None


def test_quick_is_tiny() -> None:
    quick = load.arguments(["--quick"])
    assert (quick.first, quick.step, quick.max_tables, quick.hold) == (2, 4, 4, 3.0)
    assert quick.duration == quick.hold
    full = load.arguments([])
    assert (full.servers, full.first, full.step, full.hold) == (2, 25, 50, 20.0)


@pytest.mark.django_db
def test_the_counter_counts_each_query_sent(tmp_path: Path) -> None:
    before = sql_count._count[0]
    with connection.execute_wrapper(sql_count.count), connection.cursor() as cursor:
        for _ in range(3):
            cursor.execute("SELECT 1")
    assert sql_count._count[0] - before == 3
    (tmp_path / "101").write_text("7")
    (tmp_path / "102").write_text("5")
    (tmp_path / ".103").write_text("99")  # a file still being written is not read
    assert sql_count.total(tmp_path) == 12


def test_without_services_it_says_so() -> None:
    unreachable = ["--pg", "postgres://postgres@127.0.0.1:1/", "--redis", "redis://127.0.0.1:1/7"]
    out = run_bench("load.py", *unreachable)
    assert out["bench"] == "load"
    assert "does not answer" in out["skipped"]


def test_a_quick_run_climbs_and_counts() -> None:
    out = run_bench("load.py", "--quick", *service_args(redis_db=7))
    if skipped(out):
        return
    counts = [s["tables"] for s in out["steps"]]  # a step not held is measured once more
    assert counts == sorted(counts) and sorted(set(counts)) == [2, 4][: len(set(counts))]
    assert all(s["attempt"] in (1, 2) for s in out["steps"])  # --retries 1
    for figures in [out["flat_out"], *out["steps"]]:
        assert figures["actions"] > 0
        assert figures["rtt_ms"]["p99"] >= figures["rtt_ms"]["p50"] > 0
        assert figures["cpu"]["statements"]["server_per_action"] > 0  # the servers counted
        assert figures["cpu"]["server_rss_mb"] > 0
    assert out["echo_flat_out"]["messages"] > 0
    assert out["ratio_flat_out_per_s"] > 0
    held = [s["tables"] for s in out["steps"] if s["held"]]
    assert (out["sustained"] or {}).get("tables") == (held[-1] if held else None)
    assert out["stopped_because"]
