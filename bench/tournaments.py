"""Tournament benchmark: prints one JSON object of figures on stdout.

Run from the repository root: ``python bench/tournaments.py [--players N] [--quick] [--part P]``.

Parts (``--part``, default ``all``):

- ``pairing``: for each of the six formats (round robin also at tables of 4), the CPU time
  (``time.process_time``) of ``next_round`` for one round of ``--players`` entrants (10,000; 1,000
  with ``--quick``), and of ``standings`` after the rounds played: round 1, and a later round
  after earlier rounds played with seeded random results (round 4 of Swiss and Swiss tables, of
  double elimination and of the two-seat round robin, round 3 of single elimination, round 2 of
  multi-table elimination and of the multi-seat round robin). Each figure is the median of
  ``--repeats`` calls, in milliseconds. Playing the earlier rounds is not timed.

- ``simulate``: the wall time of ``manage.py simulate_event`` for 64 players at four-seat tables
  (16 with ``--quick``), for Swiss tables and for multi-table elimination, in a subprocess
  against a database of its own: PostgreSQL (``rummy_tournamentsbench_<pid>`` on ``DATABASE_URL``'s
  server, else 127.0.0.1:5432) when it answers, else a temporary SQLite file; migrations are
  not timed. Games are played to the rule set's 500 (``--target`` changes that; ``--quick``
  plays to 100), every action through the services, every hook (ratings, advancement) run.

Target (the tournaments issue): each pairing under one second for 10,000 players.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.tables import fresh_database, with_path  # noqa: E402
from tournaments.formats import (  # noqa: E402
    Entrant,
    PlayedRound,
    RoundPlan,
    Settings,
    TableResult,
    get_format,
    seed_by_rating,
)

#: (figure name, format slug, settings, the later round timed).
CASES = (
    ("single_elimination", "single_elimination", Settings(third_place=True), 3),
    ("double_elimination", "double_elimination", Settings(), 4),
    ("round_robin", "round_robin", Settings(), 4),
    ("round_robin_4_seats", "round_robin", Settings(table_size=4), 2),
    ("swiss", "swiss", Settings(), 4),
    ("multi_table_elimination", "multi_table_elimination", Settings(table_size=4, advance=2), 2),
    ("swiss_tables", "swiss_tables", Settings(table_size=4), 4),
)

#: The issue's aim for one round's pairing or seating.
TARGET_MS = 1000.0


def field(players: int) -> list[Entrant]:
    """A field seeded by rating, ratings spread like a club pool's."""
    rng = random.Random(players)
    return seed_by_rating([(i, rng.gauss(1500.0, 200.0)) for i in range(1, players + 1)])


def played_with_random_results(plan: RoundPlan, rng: random.Random) -> PlayedRound:
    """``plan`` played: random places, random game points."""
    results = []
    for table in plan.tables:
        places = list(range(1, len(table.players) + 1))
        rng.shuffle(places)
        points = tuple(rng.randrange(-100, 600) for _ in table.players)
        results.append(TableResult(table.players, tuple(places), points))
    return PlayedRound(plan, tuple(results))


def history(
    slug: str, entrants: list[Entrant], settings: Settings, rounds: int
) -> list[PlayedRound]:
    """The first ``rounds`` rounds of the event, played with seeded random results."""
    fmt, rng = get_format(slug), random.Random(slug)
    played: list[PlayedRound] = []
    while len(played) < rounds:
        plan = fmt.next_round(entrants, played, settings)
        if plan is None:
            raise SystemExit(f"{slug} ended after {len(played)} rounds; use more players")
        played.append(played_with_random_results(plan, rng))
    return played


def median_ms(call: Callable[[], object], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.process_time()
        call()
        times.append(time.process_time() - start)
    return round(1000 * statistics.median(times), 2)


def time_round(
    slug: str, entrants: list[Entrant], settings: Settings, number: int, repeats: int
) -> dict[str, Any]:
    """``next_round`` for round ``number`` and ``standings`` before it, with the round's size."""
    fmt = get_format(slug)
    played = history(slug, entrants, settings, number - 1)
    plan = fmt.next_round(entrants, played, settings)
    assert plan is not None
    return {
        "round": number,
        "tables": len(plan.tables),
        "next_round_ms": median_ms(lambda: fmt.next_round(entrants, played, settings), repeats),
        "standings_ms": median_ms(lambda: fmt.standings(entrants, played, settings), repeats),
    }


def pairing(players: int, repeats: int) -> dict[str, Any]:
    """The ``pairing`` part: round 1 and a later round of every format."""
    entrants = field(players)
    figures: dict[str, Any] = {}
    for name, slug, settings, later in CASES:
        figures[name] = {
            "format": slug,
            "table_size": settings.table_size,
            "first": time_round(slug, entrants, settings, 1, repeats),
            "later": time_round(slug, entrants, settings, later, repeats),
        }
    slowest = max(f[r]["next_round_ms"] for f in figures.values() for r in ("first", "later"))
    return {
        "formats": figures,
        "slowest_next_round_ms": slowest,
        "target_next_round_ms_under": TARGET_MS,
        "target_met": slowest < TARGET_MS,
    }


#: The formats ``simulate`` times, both at four-seat tables.
SIMULATED = ("swiss_tables", "multi_table_elimination")


def simulate(players: int, target: int | None) -> dict[str, Any]:
    """``simulate_event`` wall time per format, on a fresh database."""
    with bench_database() as env:
        subprocess.run(
            [sys.executable, "manage.py", "migrate", "-v0"], env=env, cwd=ROOT, check=True
        )
        figures: dict[str, Any] = {"players": players, "table_size": 4, "target": target or 500}
        figures["database"] = (
            "postgresql" if env["DATABASE_URL"].startswith("postgres") else "sqlite"
        )
        for slug in SIMULATED:
            figures[slug] = simulate_one(env, slug, players, target)
    return figures


def simulate_one(
    env: dict[str, str], slug: str, players: int, target: int | None
) -> dict[str, Any]:
    command = [sys.executable, "manage.py", "simulate_event", "--format", slug]
    command += ["--players", str(players), "--table-size", "4", "--json"]
    command += ["--target", str(target)] if target else []
    started = time.perf_counter()
    done = subprocess.run(command, env=env, cwd=ROOT, check=True, capture_output=True, text=True)
    seconds = time.perf_counter() - started
    result = json.loads(done.stdout)
    tables = sum(len(r["tables"]) for r in result["rounds"])
    return {
        "wall_s": round(seconds, 2),
        "rounds": len(result["rounds"]),
        "tables": tables,
        "s_per_table": round(seconds / tables, 3) if tables else None,
        "champion_found": result["champion"] is not None,
    }


@contextmanager
def bench_database() -> Iterator[dict[str, str]]:
    """The environment of a subprocess on a database of its own (see the module docstring)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "CELERY_"))}
    env.pop("REDIS_URL", None)  # the embedded channel layer and broker: nothing to push to
    env["DJANGO_SETTINGS_MODULE"] = "config.settings"
    pg = os.environ.get("DATABASE_URL") or "postgres://postgres@127.0.0.1:5432/postgres"
    if pg.startswith("postgres") and _answers(pg):
        # A name of its own per run: two test suites' quick runs on one server (a shared
        # machine) dropped each other's database mid-run.
        with fresh_database(pg, f"rummy_tournamentsbench_{os.getpid()}") as url:
            yield {**env, "DATABASE_URL": url}
        return
    with tempfile.TemporaryDirectory() as tmp:
        yield {**env, "DATABASE_URL": f"sqlite:///{tmp}/bench.sqlite3"}


def _answers(pg_url: str) -> bool:
    import psycopg

    try:
        psycopg.connect(with_path(pg_url, "/postgres"), connect_timeout=3).close()
    except Exception:  # any failure: fall back to SQLite
        return False
    return True


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=10_000, help="entrants (default 10,000)")
    parser.add_argument("--repeats", type=int, default=5, help="timed calls per figure")
    parser.add_argument("--quick", action="store_true", help="1,000 players, 3 repeats")
    parser.add_argument("--target", type=int, help="simulate: the games' target (default 500)")
    parser.add_argument(
        "--part", choices=["pairing", "simulate", "all"], default="all", help="what to measure"
    )
    args = parser.parse_args(argv)
    players, repeats = (1_000, 3) if args.quick else (args.players, args.repeats)
    result: dict[str, Any] = {
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "players": players,
        "repeats": repeats,
    }
    if args.part in ("pairing", "all"):
        result["pairing"] = pairing(players, repeats)
    if args.part in ("simulate", "all"):
        target = args.target or (100 if args.quick else None)
        result["simulate"] = simulate(16 if args.quick else 64, target)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
