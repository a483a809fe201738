"""Quick play: matching 10,000 waiting players into tables, and how soon the matched hear it;
prints one JSON object of figures on stdout.

Run from the repository root: ``python bench/pools_bench.py [--quick] [--players N]
[--service-players N] [--rounds N] [--pg URL] [--redis URL]``. The first phase needs nothing;
the others need PostgreSQL and Redis: where they do not answer the figures of the first phase
are printed with ``"skipped": reason`` and the bench exits 0.

- ``matcher``: ``lobby.matching.match`` on ``--players`` waiters (10,000) of one pool, ratings
  drawn around 1,500 (sd 250) and waits of 0 to 90 s, for tables of 2, 3, 4 and 8 seats; CPU ms
  (``time.process_time``), the best of three runs. Aim: under 1 s. Also the same players all
  just arrived (every window at its narrowest: more runs refused, fewer tables).
- ``service``: ``lobby.services.pool_match`` on ``--service-players`` waiters (2,000) of the
  four-seat pool in PostgreSQL: the row locks, the matcher, and every table opened and started
  through ``games.hosting.table_open_for`` (seats, the deal, the log, the pushes); CPU and wall
  ms, per table too. The tables are the cost: the matcher's part is the figure above.
- ``matched``: a real server (uvicorn, ``config.asgi``, Redis channel layer, one worker). Each
  round, a pool's worth of new players open ``/ws/lobby/?token=KEY``; all but one join by
  ``POST /api/pools/join/``; then the last one joins, and the figure is the time from just
  before that request until every one of the players' sockets has heard ``matched`` (and the
  request's own answer time). ``--rounds`` rounds (10) of two and of four seats.

Every figure is on a shared two-core machine (the clients, PostgreSQL and Redis beside the
server); wall figures are a floor for a server with the cores to itself.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import sys
import time
import urllib.request
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
)
from lobby.matching import Waiter, match  # noqa: E402

AIM_MS = 1000.0
DB_NAME = f"rummy_poolsbench_{os.getpid()}"
APP = "config.asgi:application"


def log(message: str) -> None:
    print(f"[pools bench] {message}", file=sys.stderr, flush=True)


def ms_figures(values: list[float]) -> dict[str, Any]:
    ms = sorted(values)
    if not ms:
        return {"n": 0, "median_ms": None, "max_ms": None}
    return {
        "n": len(ms),
        "median_ms": round(statistics.median(ms), 2),
        "p90_ms": round(ms[max(0, int(0.9 * len(ms) + 0.5) - 1)], 2),
        "max_ms": round(ms[-1], 2),
    }


# --- the pure matcher ---------------------------------------------------------------------------


def waiters(count: int, seed: int, waited: bool = True) -> list[Waiter]:
    rng = random.Random(seed)
    return [
        Waiter(i, rng.gauss(1500, 250), rng.uniform(0, 90) if waited else 0.0) for i in range(count)
    ]


def cpu_ms(pool: list[Waiter], seats: int) -> tuple[float, list[tuple[int, ...]]]:
    """The best of three runs' CPU time, and the tables."""
    best, tables = float("inf"), []
    for _ in range(3):
        start = time.process_time()
        tables = match(pool, seats)
        best = min(best, (time.process_time() - start) * 1000)
    return best, tables


def measure_matcher(players: int) -> dict[str, Any]:
    out: dict[str, Any] = {"players": players, "aim_ms_under": AIM_MS}
    for seats in (2, 3, 4, 8):
        for name, waited in (("waited", True), ("just_arrived", False)):
            ms, tables = cpu_ms(waiters(players, seats, waited), seats)
            out[f"seats_{seats}_{name}"] = {
                "cpu_ms": round(ms, 1),
                "tables": len(tables),
                "left_waiting": players - seats * len(tables),
            }
    worst = max(v["cpu_ms"] for k, v in out.items() if k.startswith("seats_"))
    out["worst_cpu_ms"] = worst
    out["aim_met"] = worst < AIM_MS
    return out


# --- Django in this process ---------------------------------------------------------------------


def setup_django(env: dict[str, str]) -> None:
    import subprocess

    migrate = [sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"]
    subprocess.run(migrate, cwd=ROOT, env=env, check=True)
    os.environ.clear()
    os.environ.update(env)
    import django

    django.setup()


def new_players(prefix: str, count: int) -> list[tuple[Any, str]]:
    """``count`` users made in bulk (unusable passwords: hashing is slow) and their tokens."""
    from rest_framework.authtoken.models import Token

    from accounts.models import User

    users = [User(username=f"{prefix}{i:05d}") for i in range(count)]
    for user in users:
        user.set_unusable_password()
    users = User.objects.bulk_create(users, batch_size=1000)
    tokens = Token.objects.bulk_create(
        [Token(key=Token.generate_key(), user=u) for u in users], batch_size=1000
    )
    return list(zip(users, [t.key for t in tokens], strict=True))


def measure_service(count: int) -> dict[str, Any]:
    from datetime import timedelta

    from django.utils import timezone

    from lobby.models import PoolEntry
    from lobby.pools import Pool
    from lobby.services import pool_match

    pool = Pool("standard", 4, 30)
    now = timezone.now()
    rng = random.Random(4)
    users = [u for u, _ in new_players("svc", count)]
    PoolEntry.objects.bulk_create(
        [
            PoolEntry(
                user=u,
                ruleset=pool.ruleset,
                seats=pool.seats,
                turn_seconds=pool.turn_seconds,
                rating=rng.gauss(1500, 250),
                joined_at=now - timedelta(seconds=rng.uniform(0, 90)),
            )
            for u in users
        ],
        batch_size=1000,
    )
    wall, cpu = time.perf_counter(), time.process_time()
    made = pool_match(pool, now)
    cpu_ms = (time.process_time() - cpu) * 1000
    wall_ms = (time.perf_counter() - wall) * 1000
    left = PoolEntry.objects.filter(status="waiting").count()
    PoolEntry.objects.filter(status="waiting").delete()  # out of the next phase's pools
    return {
        "players": count,
        "seats": pool.seats,
        "tables": len(made),
        "left_waiting": left,
        "cpu_ms": round(cpu_ms, 1),
        "wall_ms": round(wall_ms, 1),
        "cpu_ms_per_table": round(cpu_ms / max(1, len(made)), 2),
    }


# --- matched, heard on real sockets ---------------------------------------------------------------


def post_join(port: int, key: str, seats: int) -> dict[str, Any]:
    body = json.dumps({"ruleset": "standard", "seats": seats, "turn_seconds": 30}).encode()
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/api/pools/join/",
        data=body,
        method="POST",
        headers={"Authorization": f"Token {key}", "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=30) as answer:
        return dict(json.loads(answer.read()))


async def one_round(port: int, keys: list[str], seats: int) -> tuple[float, float, bool]:
    """(ms until every socket heard ``matched``, ms of the last join's answer, one table)."""
    from websockets.asyncio.client import connect

    url = f"ws://127.0.0.1:{port}/ws/lobby/?token="
    sockets = [await connect(url + key, ping_interval=None) for key in keys]
    try:
        for ws in sockets:  # the hello: pools and me
            for _ in range(2):
                await ws.recv()
        for key in keys[:-1]:
            await asyncio.to_thread(post_join, port, key, seats)
        heard: list[tuple[float, int]] = []

        async def hear(ws: Any) -> None:
            while True:
                frame = json.loads(await ws.recv())
                if frame["type"] == "matched":
                    heard.append((time.perf_counter(), frame["table"]))
                    return

        listeners = [asyncio.create_task(hear(ws)) for ws in sockets]
        start = time.perf_counter()
        answer = await asyncio.to_thread(post_join, port, keys[-1], seats)
        answered = time.perf_counter()
        await asyncio.wait_for(asyncio.gather(*listeners), 30)
        last = max(t for t, _ in heard)
        one_table = {table for _, table in heard} == {answer["table"]}
        return (last - start) * 1000, (answered - start) * 1000, one_table
    finally:
        for ws in sockets:
            await ws.close()


def measure_matched(env: dict[str, str], rounds: int) -> dict[str, Any]:
    players = {seats: new_players(f"ws{seats}-", rounds * seats) for seats in (2, 4)}
    from django.db import connections

    connections.close_all()
    port = free_port()
    out: dict[str, Any] = {"rounds": rounds, "server": "uvicorn, 1 worker, Redis layer"}
    with server(env, port, 1, APP):
        for seats, made in players.items():
            keys = [key for _, key in made]
            heard, answered, right = [], [], True
            for r in range(rounds):
                group = keys[r * seats : (r + 1) * seats]
                all_heard, answer, one = asyncio.run(one_round(port, group, seats))
                heard.append(all_heard)
                answered.append(answer)
                right = right and one
            out[f"seats_{seats}"] = {
                "every_socket_heard_matched": ms_figures(heard),
                "last_join_answered": ms_figures(answered),
                "each_round_one_table": right,
            }
    return out


# --- the run ------------------------------------------------------------------------------------


def arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=10_000, help="matcher waiters (10,000)")
    parser.add_argument(
        "--service-players", type=int, default=2_000, help="waiters matched in PostgreSQL (2,000)"
    )
    parser.add_argument("--rounds", type=int, default=10, help="matched rounds per size (10)")
    parser.add_argument("--quick", action="store_true", help="1,000 / 40 players, 2 rounds")
    parser.add_argument("--pg", default="postgres://postgres@127.0.0.1:5432/")
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/8")
    args = parser.parse_args(argv)
    if args.quick:
        args.players, args.service_players, args.rounds = 1_000, 40, 2
    return args


def main(argv: list[str] | None = None) -> None:
    args = arguments(argv)
    result: dict[str, Any] = {"bench": "pools"}
    log(f"matcher: {args.players} waiters")
    result["matcher"] = measure_matcher(args.players)
    reason = unreachable(args.pg, args.redis)
    if reason:
        print(json.dumps({**result, "skipped": reason}))
        return
    with fresh_database(args.pg, DB_NAME) as db_url, fresh_redis(args.redis):
        env = service_env(db_url, args.redis)
        setup_django(env)
        log(f"service: {args.service_players} waiters in PostgreSQL")
        result["service"] = measure_service(args.service_players)
        log(f"matched: {args.rounds} rounds of 2 and 4 seats on a real server")
        result["matched"] = measure_matched(env, args.rounds)
        from django.db import connections

        connections.close_all()
    result["note"] = (
        "One shared two-core machine: clients, PostgreSQL and Redis beside the server; "
        "the matcher's figures are CPU, the rest wall unless named cpu."
    )
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
