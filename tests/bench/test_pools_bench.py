"""bench/pools_bench.py: its matcher figures, what it says without services, and a quick run
(on Redis database 8; see ``services.py``). Wall-clock figures are never asserted."""

from __future__ import annotations

import importlib.util

from tests.bench.services import ROOT, run_bench, service_args, skipped

_spec = importlib.util.spec_from_file_location("pools_bench", ROOT / "bench" / "pools_bench.py")
assert _spec is not None and _spec.loader is not None
pools_bench = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(pools_bench)


def test_the_matcher_figures_count_every_player() -> None:
    figures = pools_bench.measure_matcher(200)
    for seats in (2, 3, 4, 8):
        for name in ("waited", "just_arrived"):
            row = figures[f"seats_{seats}_{name}"]
            assert row["tables"] * seats + row["left_waiting"] == 200
            assert row["left_waiting"] >= 0
    # Waits of up to 90 s: most players are past the widest window, so fewer than a table
    # of the long waiters can be left; players who just arrived leave more behind.
    assert (
        figures["seats_8_waited"]["left_waiting"] <= figures["seats_8_just_arrived"]["left_waiting"]
    )
    assert set(figures) >= {"players", "aim_ms_under", "worst_cpu_ms", "aim_met"}


def test_quick_is_small() -> None:
    quick = pools_bench.arguments(["--quick"])
    assert (quick.players, quick.service_players, quick.rounds) == (1_000, 40, 2)
    assert pools_bench.arguments([]).players == 10_000


def test_without_services_it_says_so_after_the_matcher() -> None:
    unreachable = ["--pg", "postgres://postgres@127.0.0.1:1/", "--redis", "redis://127.0.0.1:1/8"]
    out = run_bench("pools_bench.py", "--quick", *unreachable)
    assert out["bench"] == "pools"
    assert out["matcher"]["players"] == 1_000
    assert "does not answer" in out["skipped"]


def test_a_quick_run_matches_everyone_and_every_socket_hears_it() -> None:
    out = run_bench("pools_bench.py", "--quick", *service_args(redis_db=8))
    if skipped(out):
        return
    service = out["service"]
    assert service["tables"] * 4 + service["left_waiting"] == 40
    for seats in (2, 4):
        row = out["matched"][f"seats_{seats}"]
        assert row["each_round_one_table"] is True
        assert row["every_socket_heard_matched"]["n"] == 2
