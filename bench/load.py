"""The whole stack under a ramp of live tables: prints one JSON object of figures on stdout.

Run from the repository root: ``python bench/load.py [--servers N] [--first N] [--step N]
[--max-tables N] [--hold S] [--flat-tables N] [--p99-limit MS] [--retries N] [--quick]``. It
needs PostgreSQL and Redis (``--pg``, ``--redis``); when either does not answer it prints
``{"bench": "load", "skipped": reason}`` and exits 0.

The full mode, as ``compose.yaml`` runs it: a fresh PostgreSQL database (migrated, dropped at the
end) and an emptied Redis database (channel layer and broker), ``uvicorn --workers N`` (default
2) serving the site, one ``celery worker`` (prefork, one pool process per core, as compose's
command) and ``celery beat`` (the sweep every 2 s). Tables have a 30 s turn clock, so every turn
sends a real timer that the worker holds and then runs (it finds the turn over and does nothing
else). The machinery is ``bench/tables.py``'s: bots over real WebSockets, each seat its own socket
logged in by token, a round trip from an action to the sender's own next ``state``.

- ``flat_out`` / ``echo_flat_out``: ``--flat-tables`` tables acting as fast as their answers come,
  then as many groups of four sockets on the bare echo consumer of the same server: the ratio of
  the two rates is what the site costs over the bare stack.
- ``steps``: ``--first`` tables, then ``--step``, 2 x ``--step``, ... up to ``--max-tables``, at
  human pace (an action per table every 2 s on average, each gap drawn from 1 to 3 s; new tables
  start at random within 2 s). Each step adds tables while the earlier ones play on
  (``bench/load_bench/ramp.py``), then measures ``--hold`` seconds over all of them. The ramp
  stops at the first step whose p99 passes ``--p99-limit`` (200 ms) or that loses an action,
  measured ``--retries`` (1) more times first: on a shared machine a burst of other work for a
  second or two lifts a p99. ``sustained`` is the last step held.

Why ``uvicorn --workers N`` rather than compose's one Daphne per container: N processes on one
listening socket are N servers behind a connection-balancing proxy without the proxy's hop (this
machine has no cores to spare for one), and they are what ``bench/tables.py`` measures, so the
echo ratio compares like with like. Both serve the same ``config.asgi`` application.

Statements are counted in each server and worker process by Django (``bench/load_bench/
sql_count.py`` says why not ``pg_stat_statements``). The bots, PostgreSQL and Redis share the
machine with the server and the worker: ``machine`` says how busy it was before the run began.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import json
import os
import platform
import signal
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import tables  # noqa: E402  (the repository root is on the path only now)
from bench.clock import Celery, running  # noqa: E402
from bench.load_bench import ramp  # noqa: E402
from bench.load_bench.meter import Stack, StackMeter, rss_mb  # noqa: E402
from bench.load_bench.sql_count import ENV as SQL_COUNT_ENV  # noqa: E402

# A name of its own per run: the bench drops its database first, and a test suite's quick run
# beside a full one on the same server (seen on this shared machine) dropped the other's.
DB_NAME = f"rummy_loadbench_{os.getpid()}"
APP = "bench.load_bench.asgi:application"
TURN_SECONDS = 30  # a real clock on every table: each turn sends a timer the worker runs
P99_LIMIT_MS = 200.0
NOTE = (
    "One two-core machine: the bots (this process), PostgreSQL and Redis share the cores with "
    "the ASGI server and the Celery worker. Figures are a floor for servers with cores of their "
    "own."
)


class Worker(Celery):
    """``bench/clock.py``'s worker and beat, with the statement counter loaded into the worker."""

    def commands(self) -> dict[str, list[str]]:
        out = super().commands()
        out["worker"] += ["--include", "bench.load_bench.sql_count"]
        return out


# --- Figures ----------------------------------------------------------------------------------


def sustained(steps: list[dict[str, Any]], idle_rss_mb: float) -> dict[str, Any] | None:
    """The last healthy step, with what each of its tables costs."""
    held = [s for s in steps if s["held"]]
    if not held:
        return None
    step = held[-1]
    cpu, n = step["cpu"], step["tables"]
    stack_pct = cpu["server_pct"] + cpu["celery_pct"] + cpu["postgres_backends_pct"]
    return {
        "tables": n,
        "actions_per_s": step["actions_per_s"],
        "rtt_ms": step["rtt_ms"],
        "server_cpu_pct": cpu["server_pct"],
        "server_cpu_pct_per_table": round(cpu["server_pct"] / n, 3),
        "stack_cpu_pct_per_table": round(stack_pct / n, 3),
        "server_rss_mb": cpu["server_rss_mb"],
        "server_rss_mb_per_table": round(cpu["server_rss_mb"] / n, 2),
        "server_rss_mb_added_per_table": round((cpu["server_rss_mb"] - idle_rss_mb) / n, 3),
        "statements_per_action": cpu["statements"]["per_action"],
        "server_statements_per_action": cpu["statements"]["server_per_action"],
    }


# --- Running -----------------------------------------------------------------------------------


def dealer() -> Callable[[int], tables.Made]:
    """Makes started tables on demand, numbering their players on from the last call's."""
    from django.db import connections

    made = [0]

    def deal(count: int) -> tables.Made:
        out = tables.populate(count, first=made[0], turn_seconds=TURN_SECONDS)
        made[0] += count
        connections.close_all()  # the bench's own connection stays idle while the bots play
        return out

    return deal


def environments(db_url: str, redis_url: str, folder: Path) -> dict[str, dict[str, str]]:
    """The full mode's environment for the server and the worker, each counting statements
    into a folder of its own."""
    out = {}
    for kind in ("server", "worker"):
        (folder / kind).mkdir()
        out[kind] = {**tables.service_env(db_url, redis_url), SQL_COUNT_ENV: str(folder / kind)}
    return out


def measure(args: argparse.Namespace, db_url: str, folder: Path) -> dict[str, Any]:
    """Start the worker, beat and the server, then run the phases: their figures by name."""
    from config.celery import app

    envs = environments(db_url, args.redis, folder)
    worker = Worker(envs["worker"], folder, os.cpu_count() or 1)
    deal = dealer()
    args.port = tables.free_port()
    with running(worker, app), tables.server(envs["server"], args.port, args.servers, APP) as proc:
        args.server_pid = proc.pid
        idle = rss_mb(proc.pid)
        leaders = tuple(p.pid for p in worker.procs.values())
        meter = functools.partial(
            StackMeter, stack=Stack(proc.pid, leaders, args.pg, DB_NAME, folder)
        )
        out = asyncio.run(tables.load(args, deal(args.flat_tables), [], meter))
        out.update(tables.ratios(out))
        for key in ("ratio_p99", "ratio_p50"):  # human-pace echo is not run here
            out.pop(key)
        # The echo phase lasted ``hold`` s: after this, every flat-out turn's timer has fired,
        # so the first step does not run the timers of the flat-out phase's 50-odd turns a second.
        time.sleep(args.timers_wait)
        out.update(asyncio.run(ramp.climb(args, deal, meter)))
    out["sustained"] = sustained(out["steps"], idle)
    out["server_idle_rss_mb"] = idle
    return out


def busy_now(seconds: float = 2.0) -> float:
    """How busy the machine is before the bench starts anything: other users' load."""
    before = tables.machine_cpu()
    time.sleep(seconds)
    busy, total = (b - a for a, b in zip(before, tables.machine_cpu(), strict=True))
    return round(100 * busy / max(total, 1e-9), 1)


def arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--servers", type=int, default=2, help="ASGI worker processes (2)")
    parser.add_argument("--first", type=int, default=25, help="tables in the first step (25)")
    parser.add_argument("--step", type=int, default=50, help="then multiples of this (50)")
    parser.add_argument("--max-tables", type=int, default=400, help="the last step at most (400)")
    parser.add_argument("--hold", type=float, default=20.0, help="seconds per step (20)")
    parser.add_argument("--flat-tables", type=int, default=20, help="flat-out tables (20)")
    parser.add_argument("--p99-limit", type=float, default=P99_LIMIT_MS, help="ms (200)")
    parser.add_argument("--retries", type=int, default=1, help="windows again before a stop (1)")
    parser.add_argument("--quick", action="store_true", help="steps of 2 and 4 tables, 3 s each")
    parser.add_argument("--compression", choices=["deflate", "none"], default="deflate")
    parser.add_argument("--pg", default="postgres://postgres@127.0.0.1:5432/")
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/7")
    args = parser.parse_args(argv)
    if args.quick:
        args.first, args.step, args.max_tables, args.hold, args.flat_tables = 2, 4, 4, 3.0, 2
    args.duration = args.hold  # what bench/tables.py's phases read
    args.timers_wait = 0.0 if args.quick else max(0.0, TURN_SECONDS + 1 - args.hold)
    args.compression = None if args.compression == "none" else args.compression
    return args


def run(args: argparse.Namespace) -> dict[str, Any]:
    started = time.perf_counter()
    with (
        tables.fresh_database(args.pg, DB_NAME) as db_url,
        tables.fresh_redis(args.redis),
        tempfile.TemporaryDirectory(prefix="loadbench-") as folder,
    ):
        tables.prepare(tables.service_env(db_url, args.redis), 0)  # migrate, Django set up here
        setup = round(time.perf_counter() - started, 1)
        return {"setup_s": setup, **measure(args, db_url, Path(folder))}


def main(argv: list[str] | None = None) -> None:
    args = arguments(argv)
    # A terminated bench unwinds like Ctrl-C: the server, worker and beat sessions are stopped
    # and the database dropped (they would otherwise outlive it, in sessions of their own).
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    result: dict[str, Any] = {"bench": "load"}
    reason = tables.unreachable(args.pg, args.redis)
    if reason:
        print(json.dumps({**result, "skipped": reason}))
        return
    tables.raise_open_files()
    machine: dict[str, Any] = {"cpu_count": os.cpu_count(), "busy_pct_before": busy_now()}
    machine["load_average_before"] = [round(x, 2) for x in os.getloadavg()]
    result.update(run(args))
    machine["shared"] = machine["busy_pct_before"] > 10  # another user's load was running
    result.update(
        machine=machine,
        server=tables.SERVER.format(workers=args.servers),
        worker=f"celery worker --pool prefork --concurrency {os.cpu_count()}, and celery beat",
        mode="full: PostgreSQL, channels-redis, Celery on Redis, DEBUG off",
        turn_seconds=TURN_SECONDS,
        pace_s=tables.PACE_SECONDS,
        hold_s=args.hold,
        p99_limit_ms=args.p99_limit,
        compression=args.compression or "none",
        python=platform.python_version(),
        note=NOTE,
    )
    print(json.dumps(result))


if __name__ == "__main__":
    main()
