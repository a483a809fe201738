"""bench/clock.py: its figures and aims, and a quick run (on Redis database 6; see
``services.py``). Wall-clock figures are never asserted."""

from __future__ import annotations

from bench import clock
from tests.bench.services import run_bench, service_args, skipped

ROWS = [(1, {"late_ms": ms, "by": "timer"}) for ms in range(1, 100)] + [
    (2, {"late_ms": 2500, "by": "sweep"})
]


def test_lateness_figures() -> None:
    figures = clock.lateness(ROWS, tables=3, seconds=10)
    assert figures["count"] == 100
    assert figures["per_s"] == 10.0
    assert (figures["tables_enforced"], figures["tables"]) == (2, 3)
    assert figures["late_ms"] == {"p50": 50, "p90": 90, "p99": 99, "max": 2500}
    assert figures["by"] == {"timer": 99, "sweep": 1}
    assert clock.lateness([], tables=1, seconds=10)["late_ms"]["p99"] is None


def test_aims() -> None:
    figures = clock.lateness(ROWS, tables=2, seconds=10)
    assert clock.clock_aims(figures, sweep=2.0) == {
        "p99_ms_under": 250,
        "max_ms_under": 3000.0,
        "p99_met": True,
        "max_met": True,
    }
    assert not clock.clock_aims(figures, sweep=1.0)["max_met"]
    swept = clock.sweep_aims(figures, outage=1.0, sweep=2.0)
    assert swept == {"max_ms_under": 3000, "max_met": True, "every_table_swept": True}
    assert not clock.sweep_aims(figures, outage=0.4, sweep=2.0)["max_met"]


def test_quick_is_small() -> None:
    quick = clock.arguments(["--quick"])
    assert (quick.tables, quick.duration, quick.outage) == (20, 5.0, 2.0)
    assert (clock.arguments([]).tables, clock.arguments([]).duration) == (200, 30.0)


def test_without_services_it_says_so() -> None:
    unreachable = ["--pg", "postgres://postgres@127.0.0.1:1/", "--redis", "redis://127.0.0.1:1/6"]
    out = run_bench("clock.py", *unreachable)
    assert out["bench"] == "clock"
    assert "does not answer" in out["skipped"]


def test_a_quick_run_enforces_every_table() -> None:
    out = run_bench("clock.py", "--quick", *service_args(redis_db=6))
    if skipped(out):
        return
    played, swept = out["clock"], out["lost_timers"]
    assert played["count"] > 0
    assert played["tables_enforced"] == played["tables"] == 20
    assert set(played["late_ms"]) == {"p50", "p90", "p99", "max"}
    assert set(played["by"]) <= {"timer", "sweep"}
    assert set(played["aims"]) == {"p99_ms_under", "max_ms_under", "p99_met", "max_met"}
    assert set(played["cpu_s"]) >= {"worker", "beat"}
    assert swept["tables_enforced"] == swept["tables"] and swept["by"] == {"sweep": swept["count"]}
    assert swept["aims"]["every_table_swept"]
    assert out["worker"].startswith("celery worker --pool prefork --concurrency ")
