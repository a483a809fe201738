"""PostgreSQL connections of one server process under bursts of requests, with and without the
pool; prints one JSON object of figures on stdout.

Run from the repository root: ``python bench/db_connections.py [--quick] [--bursts N]
[--requests N] [--concurrency N] [--sockets N] [--pool-max N] [--pg URL] [--redis URL]``.
Where PostgreSQL or Redis does not answer it prints ``{"skipped": reason}`` and exits 0.

The server is daphne, one process, as compose runs it, on a database of its own (migrated
first). Each mode starts it afresh:

- ``persistent``: ``DB_POOL=false``, connections kept per thread for ``DJANGO_CONN_MAX_AGE``
  (60 s), as before the pool;
- ``pool``: the settings' default, psycopg's pool bounded at ``--pool-max`` (``DB_POOL_MAX_SIZE``).

Each burst sends ``--requests`` GETs (pages and API reads that query the database) from
``--concurrency`` client threads while ``--sockets`` anonymous lobby WebSockets are open. A
sampler reads ``pg_stat_activity`` every 20 ms, counting the server's connections by their
``application_name`` (``PGAPPNAME``): ``idle`` once the server is up, ``peak`` during the bursts,
``after`` two seconds after the last one, ``errors`` the answers other than 200 (by status;
0: none), ``others_on_server`` the other clients' connections on the PostgreSQL server then.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import subprocess
import sys
import threading
import time
import urllib.request
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

# The repository root is on the path only now (E402).
from bench.tables import (  # noqa: E402
    free_port,
    fresh_database,
    fresh_redis,
    server,
    service_env,
    unreachable,
    with_path,
)

DB_NAME = f"rummy_dbconnbench_{os.getpid()}"
APP_NAME = f"rummy-dbconn-{os.getpid()}"
PATHS = ["/api/rulesets/", "/leaderboard/", "/api/events/", "/api/leaderboard/", "/"]
SERVER = "daphne, one process, as compose runs it"


class Sampler:
    """Counts the server's connections, on connections of its own opened before the server
    starts (without the pool the server may take every connection PostgreSQL allows); with
    ``with``, every 20 ms in a thread of its own."""

    def __init__(self, pg_url: str) -> None:
        import psycopg

        url = with_path(pg_url, "/postgres")
        self.conn = psycopg.connect(url, autocommit=True)
        self._thread_conn = psycopg.connect(url, autocommit=True)
        self.counts: list[int] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def count(self) -> int:
        return _count(self.conn)

    def others(self) -> int:
        """Every other client's connections on the server (this sampler's two left out)."""
        query = "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend'"
        row = self.conn.execute(query).fetchone()
        return int(row[0]) - self.count() - 2

    def _run(self) -> None:
        while not self._stop.is_set():
            self.counts.append(_count(self._thread_conn))
            time.sleep(0.02)

    def __enter__(self) -> Sampler:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join()

    def close(self) -> None:
        self.conn.close()
        self._thread_conn.close()


def _count(conn: Any) -> int:
    query = "SELECT count(*) FROM pg_stat_activity WHERE application_name = %s"
    row = conn.execute(query, [APP_NAME]).fetchone()
    return int(row[0])


def get(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=60) as answer:
            answer.read()
            return int(answer.status)
    except urllib.error.HTTPError as exc:
        return exc.code
    except OSError:
        return 0


def burst(base: str, requests: int, concurrency: int) -> Counter[int]:
    """``requests`` GETs from ``concurrency`` threads; the answers other than 200 by status
    (0: no answer)."""
    urls = [base + PATHS[i % len(PATHS)] for i in range(requests)]
    with ThreadPoolExecutor(concurrency) as pool:
        return Counter(status for status in pool.map(get, urls) if status != 200)


@contextlib.contextmanager
def sockets(port: int, count: int) -> Iterator[list[int]]:
    """``count`` anonymous lobby sockets open (each has had its first frame) until the block
    ends; yields a list that holds, once they are closed, how many failed."""
    import websockets

    failed: list[int] = []
    opened = threading.Event()
    done = threading.Event()

    async def hold() -> None:
        async def one() -> Any:
            conn = await websockets.connect(f"ws://127.0.0.1:{port}/ws/lobby/", open_timeout=60)
            await asyncio.wait_for(conn.recv(), 60)
            return conn

        results = await asyncio.gather(*(one() for _ in range(count)), return_exceptions=True)
        conns = [r for r in results if not isinstance(r, BaseException)]
        failed.append(count - len(conns))
        opened.set()
        while not done.is_set():
            await asyncio.sleep(0.05)
        await asyncio.gather(*(c.close() for c in conns), return_exceptions=True)

    thread = threading.Thread(target=asyncio.run, args=(hold(),), daemon=True)
    thread.start()
    opened.wait(120)
    try:
        yield failed
    finally:
        done.set()
        thread.join(60)


def mode(args: argparse.Namespace, env: dict[str, str], pooled: bool) -> dict[str, Any]:
    port = free_port()
    env = {**env, "PGAPPNAME": APP_NAME, "DB_POOL": "true" if pooled else "false"}
    if pooled:
        env["DB_POOL_MAX_SIZE"] = str(args.pool_max)
    sampler = Sampler(env["DATABASE_URL"])
    with contextlib.closing(sampler), server(env, port, 1, kind="daphne"):
        time.sleep(1)
        idle = sampler.count()
        started = time.monotonic()
        errors: Counter[int] = Counter()
        with sampler, sockets(port, args.sockets) as failed:
            for _ in range(args.bursts):
                errors += burst(f"http://127.0.0.1:{port}", args.requests, args.concurrency)
        others = sampler.others()
        seconds = time.monotonic() - started
        time.sleep(2)
        after = sampler.count()
    figures = {
        "idle": idle,
        "peak": max(sampler.counts, default=0),
        "after": after,
        "errors": sum(errors.values()),
        "errors_by_status": {str(k): v for k, v in sorted(errors.items())},
        # Everyone else's connections on the PostgreSQL server just after the bursts (a shared
        # server's max_connections is shared too).
        "others_on_server": others,
        "sockets_failed": sum(failed),
        "seconds": round(seconds, 2),
    }
    if pooled:
        figures["bound"] = args.pool_max
    return figures


def arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bursts", type=int, default=3, help="bursts per mode (3)")
    parser.add_argument("--requests", type=int, default=300, help="GETs per burst (300)")
    parser.add_argument("--concurrency", type=int, default=100, help="client threads (100)")
    parser.add_argument("--sockets", type=int, default=50, help="lobby sockets open (50)")
    parser.add_argument("--pool-max", type=int, default=10, help="DB_POOL_MAX_SIZE (10)")
    # Quick keeps the persistent mode's connections few (it opened nearly one a request: 47 for
    # 60): the test suite's other workers share the PostgreSQL server and its max_connections.
    parser.add_argument("--quick", action="store_true", help="1 burst of 24 from 12, 6 sockets")
    parser.add_argument("--pg", default="postgres://postgres@127.0.0.1:5432/")
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/6")
    args = parser.parse_args(argv)
    if args.quick:
        args.bursts, args.requests, args.concurrency, args.sockets = 1, 24, 12, 6
    return args


def main(argv: list[str] | None = None) -> None:
    args = arguments(argv)
    reason = unreachable(args.pg, args.redis)
    if reason:
        print(json.dumps({"bench": "db_connections", "skipped": reason}))
        return
    with fresh_database(args.pg, DB_NAME) as db_url, fresh_redis(args.redis):
        env = service_env(db_url, args.redis)
        migrate = [sys.executable, "manage.py", "migrate", "--noinput"]
        subprocess.run(migrate, cwd=ROOT, env=env, check=True, stdout=subprocess.DEVNULL)
        modes = {"persistent": mode(args, env, False), "pool": mode(args, env, True)}
    print(
        json.dumps(
            {
                "bench": "db_connections",
                "server": SERVER,
                "bursts": args.bursts,
                "requests_per_burst": args.requests,
                "concurrency": args.concurrency,
                "sockets": args.sockets,
                "modes": modes,
            }
        )
    )


if __name__ == "__main__":
    main()
