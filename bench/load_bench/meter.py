"""What a load step costs the whole stack: ``bench/tables.py``'s ``Meter`` (the ASGI server's
CPU, the bots', the machine's) plus the Celery worker and beat, the PostgreSQL backends of the
bench's own database, the processes' memory and the statements they sent.

CPU is read from ``/proc/<pid>/stat`` (user + system) over each process's session: the server,
the worker and beat each start a session of their own, so their children (uvicorn's workers,
Celery's pool) are counted with them. Memory is the resident set (``VmRSS``) summed over a
session: pages shared after a fork count once per process, so it is an upper bound.
"""

from __future__ import annotations

import contextlib
import math
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.clock import session_cpu
from bench.load_bench import sql_count
from bench.tables import Meter, with_path

MB = 1024 * 1024


@dataclass(frozen=True)
class Stack:
    """The processes and counters a step is measured on."""

    server_pid: int
    celery_pids: tuple[int, ...]  # worker, beat: session leaders
    pg_url: str  # the server's address (any database: the bench's is looked up by name)
    db_name: str
    counts: Path  # sql_count folders: <counts>/server, <counts>/worker


def session_pids(leader: int) -> list[int]:
    pids = []
    for entry in Path("/proc").iterdir():
        with contextlib.suppress(OSError, ValueError, IndexError):
            if entry.name.isdigit():
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
                if int(fields[3]) == leader:
                    pids.append(int(entry.name))
    return pids


def rss_mb(leader: int) -> float:
    """Resident memory of every process in ``leader``'s session, in MB."""
    total_kb = 0
    for pid in session_pids(leader):
        with contextlib.suppress(OSError):
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total_kb += int(line.split()[1])
    return round(total_kb / 1024, 1)


def backend_cpu(pg_url: str, db_name: str) -> dict[int, float]:
    """CPU seconds so far of each PostgreSQL backend connected to ``db_name`` (the server, the
    worker and this process's own connections; ours is made to another database)."""
    import psycopg

    query = "SELECT pid FROM pg_stat_activity WHERE datname = %s"
    with psycopg.connect(with_path(pg_url, "/postgres"), autocommit=True) as conn:
        pids = [row[0] for row in conn.execute(query, (db_name,))]
    tick = os.sysconf("SC_CLK_TCK")
    out = {}
    for pid in pids:
        with contextlib.suppress(OSError):
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            out[pid] = (int(fields[11]) + int(fields[12])) / tick
    return out


def pct(seconds: float, wall: float) -> float:
    """CPU seconds over a wall-clock span, as % of one core."""
    return round(100 * seconds / wall, 1) if wall > 0 else math.nan


class StackMeter(Meter):
    """``Meter`` plus the Celery processes, the bench database's backends and the statements."""

    def __init__(self, server_pid: int, port: int, redis_url: str, *, stack: Stack) -> None:
        super().__init__(server_pid, port, redis_url)
        self.stack = stack
        self.wall = time.perf_counter()
        self.celery = sum(session_cpu(pid) for pid in stack.celery_pids)
        self.backends = backend_cpu(stack.pg_url, stack.db_name)
        self.statements = self.counted()

    def counted(self) -> dict[str, int]:
        return {kind: sql_count.total(self.stack.counts / kind) for kind in ("server", "worker")}

    def figures(self, done: int) -> dict[str, Any]:
        out = super().figures(done)
        wall = time.perf_counter() - self.wall
        celery = sum(session_cpu(pid) for pid in self.stack.celery_pids) - self.celery
        backends = sum(
            seconds - self.backends.get(pid, 0.0)  # a backend that came during the step: all
            for pid, seconds in backend_cpu(self.stack.pg_url, self.stack.db_name).items()
        )
        sent = {k: v - self.statements[k] for k, v in self.counted().items()}
        out.update(
            wall_s=round(wall, 2),
            server_pct=pct(out["server_workers_s"], wall),
            celery_pct=pct(celery, wall),
            postgres_backends_pct=pct(backends, wall),
            server_rss_mb=rss_mb(self.stack.server_pid),
            celery_rss_mb=round(sum(rss_mb(pid) for pid in self.stack.celery_pids), 1),
            statements=statements(sent, done, wall),
        )
        return out


def statements(sent: dict[str, int], done: int, wall: float) -> dict[str, Any]:
    """The server's statements per action, the worker's (turn timers, the sweep) per second,
    and both together per action: what each action costs PostgreSQL, its timer included."""
    per = 1 / done if done else math.nan
    return {
        **sent,
        "server_per_action": round(sent["server"] * per, 2) if done else None,
        "worker_per_s": round(sent["worker"] / wall, 1) if wall > 0 else None,
        "per_action": round((sent["server"] + sent["worker"]) * per, 2) if done else None,
    }
