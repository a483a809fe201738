"""bench/db_connections.py: a real server (daphne) under a burst of concurrent requests and
open sockets keeps its PostgreSQL connections within the pool's bound, and answers every one
(on Redis database 6; see ``services.py``). Wall-clock figures are never asserted."""

from __future__ import annotations

from tests.bench.services import run_bench, service_args, skipped


def test_a_burst_stays_within_the_pool_bound() -> None:
    out = run_bench("db_connections.py", "--quick", "--pool-max", "4", *service_args(6))
    if skipped(out):
        return
    pool, persistent = out["modes"]["pool"], out["modes"]["persistent"]
    assert pool["bound"] == 4
    assert 0 < pool["peak"] <= 4 and pool["after"] <= 4
    assert pool["errors"] == pool["sockets_failed"] == 0
    # Without the pool the same burst opened a connection per thread that served it (this is
    # the figure the pool bounds: more than the bound, kept after the burst).
    assert persistent["peak"] > 4 and persistent["after"] > 4
    assert persistent["errors"] == persistent["sockets_failed"] == 0
