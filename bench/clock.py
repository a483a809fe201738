"""The turn clock in full mode: prints one JSON object of figures on stdout.

Run from the repository root: ``python bench/clock.py [--tables N] [--duration S]
[--concurrency N] [--sweep S] [--outage S] [--quick] [--profile]``. It needs PostgreSQL and Redis
(``--pg``, ``--redis``); when either does not answer it prints ``{"bench": "clock", "skipped":
reason}`` and exits 0.

Everything is started and stopped here: a fresh database and an emptied Redis database (the
broker and the channel layer; both cleaned up at the end), the migrations, ``--tables`` two-seat
tables with a one-second turn clock, no time bank and ``max_timeouts`` high enough that nobody
goes absent, then ``celery -A config worker`` (prefork, ``--concurrency``) and ``celery -A config
beat`` (the sweep every ``--sweep`` seconds, its schedule file in a temporary folder).

- ``clock``: the tables start staggered evenly over the first second (the second player's join
  deals), then nobody acts for ``--duration`` seconds: every turn is played by the server. Each
  ``timeout`` row logs ``late_ms`` (enforcement minus deadline) and ``by`` (``timer`` or
  ``sweep``). Aims: p99 under 250 ms, the worst under the sweep interval plus one second.
  ``per_s`` counts the whole window, its first second (before any deadline) included; a worker
  that cannot keep up makes every turn longer, so lateness then settles near offered/served - 1 s.
- ``lost_timers``: worker and beat are stopped (warm shutdown: the timers they held go back to
  the queue), ``--outage`` seconds pass, the queue and the broker's unacknowledged set are
  emptied, then both start again. Every table is then overdue with no timer, so only the sweep
  plays its turn: its lateness should stay under the outage plus the sweep interval.

``--profile`` loads ``bench/clock_probe.py`` into the worker and adds each step's wall time per
enforcement.
The worker, beat, PostgreSQL, Redis and this process share the machine's cores.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.tables import (  # noqa: E402  (the repository root is on the path only now)
    fresh_database,
    fresh_redis,
    machine_cpu,
    percentile,
    service_env,
    unreachable,
)

# A name of its own per run (as bench/load.py): the bench drops its database first, and a test
# suite's quick run beside another on the same server dropped the other's.
DB_NAME = f"rummy_clockbench_{os.getpid()}"
SEATS = 2
TURN_SECONDS = 1
MAX_TIMEOUTS = 1000  # a turn a second for minutes: nobody may go absent during the run
START_SPREAD_SECONDS = 1.0  # a club night does not deal every table at the same instant
P99_AIM_MS = 250
NOTE = (
    "One two-core machine: the worker, beat, PostgreSQL, Redis and this process (which deals "
    "the tables, then only waits) share the cores. Figures are a floor."
)


# --- The Celery processes ----------------------------------------------------------------------


def session_cpu(leader: int) -> float:
    """CPU seconds (user + system) of the live processes in ``leader``'s session."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        with contextlib.suppress(OSError, ValueError):
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            if int(fields[3]) == leader:
                total += (int(fields[11]) + int(fields[12])) / tick
    return total


def services_cpu() -> float:
    """CPU seconds of every PostgreSQL and Redis server process so far."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for entry in Path("/proc").iterdir():
        with contextlib.suppress(OSError, ValueError, IndexError):
            name, rest = (entry / "stat").read_text().rsplit(")", 1)
            if name.endswith(("(postgres", "(redis-server")):
                fields = rest.split()
                total += (int(fields[11]) + int(fields[12])) / tick
    return total


class Celery:
    """``celery worker`` and ``celery beat``, each in a session of its own, started and stopped
    together; their CPU seconds are kept across restarts."""

    def __init__(self, env: dict[str, str], folder: Path, concurrency: int) -> None:
        self.env, self.folder, self.concurrency = env, folder, concurrency
        self.hostname = f"clockbench-{os.getpid()}@%h"
        self.procs: dict[str, subprocess.Popen[bytes]] = {}
        self.spent = {"worker": 0.0, "beat": 0.0}

    def commands(self) -> dict[str, list[str]]:
        celery = [sys.executable, "-m", "celery", "-A", "config"]
        worker = [*celery, "worker", "--pool", "prefork", "-c", str(self.concurrency)]
        worker += ["--hostname", self.hostname, "--loglevel", "WARNING"]
        if self.env.get("BENCH_CLOCK_PROBE"):
            worker += ["--include", "bench.clock_probe"]
        beat = [*celery, "beat", "--loglevel", "WARNING"]
        beat += ["--schedule", str(self.folder / "beat-schedule")]
        beat += ["--pidfile", str(self.folder / "beat.pid")]
        return {"worker": worker, "beat": beat}

    def start(self, app: Any) -> None:
        for name, command in self.commands().items():
            with (self.folder / f"{name}.log").open("ab") as log:
                self.procs[name] = subprocess.Popen(
                    command, cwd=ROOT, env=self.env, stdout=log, stderr=log, start_new_session=True
                )
        self.wait_ready(app)

    def wait_ready(self, app: Any, timeout: float = 60.0) -> None:
        """Until the worker answers a ping (it consumes its queue from then on)."""
        name = self.hostname.replace("%h", platform.node())
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            for kind, proc in self.procs.items():
                if proc.poll() is not None:
                    raise RuntimeError(f"celery {kind} exited with {proc.returncode}: {self.log()}")
            if any(name in reply for reply in app.control.ping([name], timeout=0.5)):
                return
        raise RuntimeError(f"the worker did not answer within {timeout:.0f} s: {self.log()}")

    def cpu(self) -> dict[str, float]:
        return {k: self.spent[k] + session_cpu(p.pid) for k, p in self.procs.items()}

    def stop(self) -> None:
        """Warm shutdown (SIGTERM), then anything left in their sessions is killed."""
        for name, seconds in self.cpu().items():
            self.spent[name] = seconds
        for proc in self.procs.values():
            with contextlib.suppress(ProcessLookupError):
                proc.send_signal(signal.SIGTERM)
        for proc in self.procs.values():
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=30)
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)  # pool processes too: the database goes next
            proc.wait()
        self.procs = {}

    def log(self) -> str:
        logs = [(self.folder / f"{n}.log") for n in ("worker", "beat")]
        return " | ".join(p.read_text()[-600:] for p in logs if p.exists())


@contextlib.contextmanager
def running(celery: Celery, app: Any) -> Iterator[Celery]:
    try:
        celery.start(app)
        yield celery
    finally:
        celery.stop()


# --- Tables ------------------------------------------------------------------------------------


def prepare(env: dict[str, str], count: int) -> list[tuple[int, Any]]:
    """Migrate, set Django up in this process and make ``count`` two-seat tables, each with its
    second player, ``(table id, user)``, still to join (the join deals)."""
    migrate = [sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"]
    subprocess.run(migrate, cwd=ROOT, env=env, check=True)
    os.environ.clear()
    os.environ.update(env)
    import django

    django.setup()
    from accounts.models import User
    from games import services
    from games.models import RuleSet

    RuleSet.objects.get_or_create(slug="standard", defaults={"name": "Standard"})
    users = [User(username=f"clock{i:05d}") for i in range(count * SEATS)]
    for user in users:
        user.set_unusable_password()  # hashing hundreds of passwords would take minutes
    users = User.objects.bulk_create(users, batch_size=1000)
    made = []
    for creator, second in zip(users[::2], users[1::2], strict=True):
        table = services.table_create(
            creator=creator,
            ruleset="standard",
            seats=SEATS,
            overrides={"max_timeouts": MAX_TIMEOUTS},
            turn_seconds=TURN_SECONDS,
            time_bank_seconds=0,
            rated=False,
        )
        made.append((table.pk, second))
    return made


def deal(pending: list[tuple[int, Any]]) -> float:
    """The second player joins each table, evenly spaced over ``START_SPREAD_SECONDS``; returns
    how long it took (more than the spread when this process cannot keep up).

    Nobody watches yet, so the joins' pushes are left out (each costs this process a fresh event
    loop and Redis connection); the first turn's timer is sent as in production.
    """
    from unittest import mock

    from games import services

    start = time.monotonic()
    with mock.patch("games.push.on_commit_table"):
        for n, (table_id, user) in enumerate(pending):
            delay = start + START_SPREAD_SECONDS * n / len(pending) - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            services.table_join(table_id=table_id, user=user)
    return time.monotonic() - start


def timeouts(table_ids: list[int], since: Any, until: Any) -> list[tuple[int, dict[str, Any]]]:
    """``(table id, data)`` of the server's turns logged in ``[since, until)``, absent players'
    turns left out (those are played at once, with no deadline)."""
    from games.models import TableEvent

    rows = TableEvent.objects.filter(
        table_id__in=table_ids, kind="timeout", created_at__gte=since, created_at__lt=until
    ).values_list("table_id", "data")
    return [(table_id, data) for table_id, data in rows if not data.get("absent")]


# --- Figures -----------------------------------------------------------------------------------


def lateness(rows: list[tuple[int, dict[str, Any]]], tables: int, seconds: float) -> dict[str, Any]:
    late = sorted(float(data["late_ms"]) for _, data in rows)
    return {
        "count": len(rows),
        "per_s": round(len(rows) / seconds, 1) if seconds > 0 else None,
        "tables_enforced": len({table_id for table_id, _ in rows}),
        "tables": tables,
        "late_ms": {
            "p50": percentile(late, 50),
            "p90": percentile(late, 90),
            "p99": percentile(late, 99),
            "max": percentile(late, 100),
        },
        "by": dict(Counter(data["by"] for _, data in rows)),
    }


def clock_aims(figures: dict[str, Any], sweep: float) -> dict[str, Any]:
    late = figures["late_ms"]
    worst_ms = (sweep + 1) * 1000
    return {
        "p99_ms_under": P99_AIM_MS,
        "max_ms_under": worst_ms,
        "p99_met": late["p99"] is not None and late["p99"] < P99_AIM_MS,
        "max_met": late["max"] is not None and late["max"] < worst_ms,
    }


def sweep_aims(figures: dict[str, Any], outage: float, sweep: float) -> dict[str, Any]:
    bound = round((outage + sweep) * 1000)
    worst = figures["late_ms"]["max"]
    return {
        "max_ms_under": bound,
        "max_met": worst is not None and worst < bound,
        "every_table_swept": figures["tables_enforced"] == figures["tables"],
    }


def probe_figures(folder: Path, enforced: int) -> dict[str, Any]:
    """The pool processes' step timers (``bench/clock_probe.py``), in ms per enforcement."""
    totals: dict[str, list[float]] = {}
    for path in folder.glob("*.json"):
        for step, (calls, seconds) in json.loads(path.read_text()).items():
            total = totals.setdefault(step, [0, 0.0])
            total[0] += calls
            total[1] += seconds
    per = max(enforced, 1)
    return {
        "enforcements": enforced,
        "ms_per_enforcement": {k: round(1000 * s / per, 3) for k, (_, s) in sorted(totals.items())},
        "calls": {k: int(c) for k, (c, _) in sorted(totals.items())},
    }


# --- Phases ------------------------------------------------------------------------------------


def clock_phase(
    args: argparse.Namespace, celery: Celery, made: list[tuple[int, Any]]
) -> dict[str, Any]:
    from django.utils import timezone

    ids = [table_id for table_id, _ in made]
    cpu_before, services_before, machine_before = celery.cpu(), services_cpu(), machine_cpu()
    own_before = time.process_time()
    since = timezone.now()
    started = time.monotonic()
    dealt_in = deal(made)
    time.sleep(max(0.0, started + args.duration - time.monotonic()))
    until = timezone.now()
    cpu = {k: round(v - cpu_before[k], 2) for k, v in celery.cpu().items()}
    services = services_cpu() - services_before
    own = time.process_time() - own_before
    busy, total = (b - a for a, b in zip(machine_before, machine_cpu(), strict=True))
    rest = max(0.0, busy - sum(cpu.values()) - services - own)
    figures = lateness(timeouts(ids, since, until), len(ids), args.duration)
    return {
        **figures,
        "offered_per_s": len(ids) / TURN_SECONDS,
        "duration_s": args.duration,
        "dealt_in_s": round(dealt_in, 2),
        "cpu_s": {
            **cpu,
            "postgres_redis": round(services, 2),
            "this_process": round(own, 2),
            "rest_of_machine": round(rest, 2),
        },
        "machine_busy_pct": round(100 * busy / max(total, 1e-9), 1),
        "worker_cpu_ms_per_enforcement": (
            round(1000 * cpu["worker"] / figures["count"], 2) if figures["count"] else None
        ),
        "aims": clock_aims(figures, args.sweep),
    }


def purge(app: Any, redis_url: str) -> int:
    """Empty the task queue and the broker's unacknowledged set: every timer is lost."""
    import redis

    client = redis.Redis.from_url(redis_url)
    unacked = int(client.hlen("unacked"))
    client.delete("unacked", "unacked_index")
    return int(app.control.purge() or 0) + unacked


def lost_timers_phase(args: argparse.Namespace, celery: Celery, app: Any) -> dict[str, Any]:
    from django.utils import timezone

    from games.models import Table

    ids = list(Table.objects.filter(status="playing").values_list("pk", flat=True))
    stopped_at, stopped = timezone.now(), time.monotonic()
    celery.stop()
    stop_s = time.monotonic() - stopped
    time.sleep(args.outage)
    purged = purge(app, args.redis)
    restarted = time.monotonic()
    celery.start(app)
    ready = time.monotonic()
    outage = ready - stopped
    back = timezone.now()
    # Every turn whose deadline passed while the worker was away is played by the sweep.
    end = time.monotonic() + 60
    while Table.objects.filter(pk__in=ids, status="playing", deadline__lt=back).exists():
        if time.monotonic() > end:
            break
        time.sleep(0.2)
    rows = [r for r in timeouts(ids, stopped_at, timezone.now()) if r[1]["by"] == "sweep"]
    figures = lateness(rows, len(ids), 0)
    figures.pop("per_s")
    return {
        **figures,
        "outage_s": round(outage, 2),
        "outage_parts_s": {
            "warm_shutdown": round(stop_s, 2),
            "stopped": args.outage,
            "start_until_ping": round(ready - restarted, 2),
        },
        "timers_purged": purged,
        "aims": sweep_aims(figures, outage, args.sweep),
    }


# --- Running -----------------------------------------------------------------------------------


def arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=200, help="two-seat tables (200)")
    parser.add_argument("--duration", type=float, default=30.0, help="seconds of play (30)")
    parser.add_argument("--concurrency", type=int, default=4, help="worker processes (4)")
    parser.add_argument("--sweep", type=float, default=2.0, help="CLOCK_SWEEP_SECONDS (2)")
    parser.add_argument("--outage", type=float, default=3.0, help="lost-timers stop, s (3)")
    parser.add_argument("--no-lost-timers", action="store_true", help="skip that phase")
    parser.add_argument("--quick", action="store_true", help="20 tables, 5 s, 2 s outage")
    parser.add_argument("--profile", action="store_true", help="time the worker's steps")
    parser.add_argument("--cprofile", help="with --profile: keep cProfile files in this folder")
    parser.add_argument("--pg", default="postgres://postgres@127.0.0.1:5432/")
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/6")
    args = parser.parse_args(argv)
    if args.quick:
        args.tables, args.duration, args.outage = 20, 5.0, 2.0
    return args


def environment(db_url: str, args: argparse.Namespace, folder: Path) -> dict[str, str]:
    env = service_env(db_url, args.redis)
    env["CLOCK_SWEEP_SECONDS"] = str(args.sweep)
    if args.profile:
        env["BENCH_CLOCK_PROBE"] = str(folder)
        env["BENCH_CLOCK_CPROFILE"] = "1" if args.cprofile else "0"
    return env


def run(args: argparse.Namespace, folder: Path) -> dict[str, Any]:
    result: dict[str, Any] = {}
    started = time.perf_counter()
    with fresh_database(args.pg, DB_NAME) as db_url, fresh_redis(args.redis):
        env = environment(db_url, args, folder)
        made = prepare(env, args.tables)
        from django.db import connections

        from config.celery import app
        from games.models import TableEvent

        result["setup_s"] = round(time.perf_counter() - started, 1)
        celery = Celery(env, folder, args.concurrency)
        try:
            with running(celery, app):
                result["clock"] = clock_phase(args, celery, made)
                if not args.no_lost_timers:
                    result["lost_timers"] = lost_timers_phase(args, celery, app)
            # Every turn the server played, up to the worker's stop: the probe's denominator.
            enforced = TableEvent.objects.filter(kind="timeout").count()
        finally:
            connections.close_all()
        result["cpu_s_whole_run"] = {k: round(v, 2) for k, v in celery.spent.items()}
        if args.profile:
            result["profile"] = probe_figures(folder, enforced)
            if args.cprofile:
                for prof in folder.glob("*.prof"):
                    os.replace(prof, Path(args.cprofile) / prof.name)
    return result


def main(argv: list[str] | None = None) -> None:
    args = arguments(argv)
    # A terminated bench unwinds like Ctrl-C: the worker and beat sessions are stopped and the
    # database dropped (they would otherwise outlive it, in sessions of their own).
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    result: dict[str, Any] = {"bench": "clock"}
    reason = unreachable(args.pg, args.redis)
    if reason:
        print(json.dumps({**result, "skipped": reason}))
        return
    with tempfile.TemporaryDirectory(prefix="clockbench-") as folder:
        result.update(run(args, Path(folder)))
    result["worker"] = f"celery worker --pool prefork --concurrency {args.concurrency}"
    result["sweep_s"] = args.sweep
    result["turn_seconds"] = TURN_SECONDS
    result["mode"] = "full: PostgreSQL, Redis broker and channel layer, DEBUG off"
    result["python"] = platform.python_version()
    result["cpu_count"] = os.cpu_count()
    result["note"] = NOTE
    print(json.dumps(result))


if __name__ == "__main__":
    main()
