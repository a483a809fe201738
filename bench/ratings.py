"""Ratings: the rating arithmetic, the finalization hook, leaderboards at scale and the rebuild;
prints one JSON object of figures on stdout.

Run from the repository root: ``python bench/ratings.py [--quick] [--reload] [--profile]
[--players N] [--changes N] [--pg URL]``. It needs PostgreSQL (``--pg``, a server URL); when it
does not answer the bench prints ``{"bench": "ratings", "skipped": reason}`` and exits 0.

This module reads the arguments, runs the phases in order and prints their figures. Each phase
is described in full where it is measured, in bench/ratings_bench/:

- ``rate_table``: ``ratings.glicko.rate_table`` calls per second, CPU (e2e.py).
- ``end_to_end``: rated four-seat games played through ``games.services``, then the ``ratings``
  finalization hook; wall time of the last action and of the hook (e2e.py).
- ``recompute_equals_incremental``: games rated one by one by the hook, then rebuilt by
  ``ratings_recompute``: the same rows, floats to the bit (recompute.py).
- ``recompute``: ``ratings_recompute()`` games and changes per second. Aim: at least 5,000 games
  a second. ``--profile`` prints a cProfile of its second run to stderr (recompute.py).
- ``leaderboard``: ``--players`` players and ``--changes`` RatingChange rows (scale.py) loaded
  by COPY into ``rummy_ratingsbench_big``, which is kept between runs while its row counts and
  loader version match (``--reload`` loads it again; kept.py); top 100, "my rank", counts,
  history and the API timed on it, with their query plans (boards.py). Aim: top 100 and
  "my rank" under 20 ms (p95).
- ``hook_at_scale``: the hook on games of established players in that database, inside a
  transaction rolled back at the end (boards.py).

``end_to_end``, ``recompute_equals_incremental`` and ``recompute`` run in a fresh database
(``rummy_ratingsbench``, dropped at the end), emptied between them. ``--quick`` is small: 20,000
players and 200,000 changes, and its databases (``*_quick`` and ``*_quick_board``) are both
dropped at the end. Every figure is wall time on a shared machine unless it says CPU.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

# The repository root is on the path only now (E402).
from bench.ratings_bench.boards import BOARD_MS_AIM, hook_at_scale, measure_boards  # noqa: E402
from bench.ratings_bench.common import (  # noqa: E402
    log,
    migrate,
    reset_games,
    setup_django,
    use_database,
)
from bench.ratings_bench.e2e import end_to_end, measure_rate_table  # noqa: E402
from bench.ratings_bench.kept import board_database, ready_population  # noqa: E402
from bench.ratings_bench.recompute import (  # noqa: E402
    RECOMPUTE_AIM,
    check_recompute,
    measure_recompute,
)
from bench.ratings_bench.scale import Scale  # noqa: E402
from bench.tables import fresh_database, with_path  # noqa: E402

DB_NAME = "rummy_ratingsbench"
BIG_DB = "rummy_ratingsbench_big"
# The quick run's databases are made afresh and dropped: a name of its own per run (as
# bench/load.py), since two test suites' quick runs on one server dropped each other's.
QUICK_DB = f"rummy_ratingsbench_quick_{os.getpid()}"
QUICK_BIG_DB = f"rummy_ratingsbench_quick_board_{os.getpid()}"
NOTE = (
    "One shared two-core machine: PostgreSQL and this process share the cores; PostgreSQL runs "
    "with its default settings (shared_buffers 128 MB). Wall-clock figures are a floor."
)


def unreachable(pg_url: str) -> str | None:
    import psycopg

    try:
        psycopg.connect(with_path(pg_url, "/postgres"), connect_timeout=3).close()
    except Exception as exc:  # any failure means the bench cannot run here
        return f"PostgreSQL at {pg_url} does not answer ({exc})"
    return None


def arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=1_000_000, help="rated players (1M)")
    parser.add_argument("--changes", type=int, default=10_000_000, help="rating changes (10M)")
    parser.add_argument("--reload", action="store_true", help="load the kept database again")
    parser.add_argument("--calls", type=int, default=300, help="timed calls per query (300)")
    parser.add_argument("--rate-calls", type=int, default=20_000, help="rate_table calls (20000)")
    parser.add_argument("--rounds", type=int, default=5, help="rate_table rounds (5)")
    parser.add_argument("--e2e-games", type=int, default=30, help="games played (30)")
    parser.add_argument("--check-games", type=int, default=500, help="hook vs recompute (500)")
    parser.add_argument("--recompute-games", type=int, default=20_000, help="rebuilt (20000)")
    parser.add_argument("--recompute-users", type=int, default=3_000, help="their users (3000)")
    parser.add_argument("--scale-hook-games", type=int, default=50, help="hook at scale (50)")
    parser.add_argument("--seed", type=int, default=500)
    parser.add_argument("--quick", action="store_true", help="small and fast: a smoke run")
    parser.add_argument("--profile", action="store_true", help="cProfile the rebuild to stderr")
    parser.add_argument("--pg", default="postgres://postgres@127.0.0.1:5432/")
    args = parser.parse_args(argv)
    if args.quick:
        args.players, args.changes, args.calls = 20_000, 200_000, 40
        args.rate_calls, args.rounds, args.e2e_games = 5_000, 3, 4
        args.check_games, args.recompute_games, args.recompute_users = 200, 1_000, 300
        args.scale_hook_games = 10
    return args


def game_phases(args: argparse.Namespace) -> dict[str, Any]:
    """The phases of the fresh database: games end to end, the check, the rebuild."""
    from django.db import connections

    result: dict[str, Any] = {}
    with fresh_database(args.pg, QUICK_DB if args.quick else DB_NAME) as url:
        setup_django(url)
        try:
            migrate()
            result["end_to_end"] = end_to_end(args.e2e_games, 4, args.seed)
            log("end_to_end done")
            reset_games()
            result["recompute_equals_incremental"] = check_recompute(
                args.check_games, max(30, args.check_games // 10), args.seed
            )
            log("recompute check done")
            reset_games()
            result["recompute"] = measure_recompute(
                args.recompute_games, args.recompute_users, args.seed, args.profile
            )
            log("recompute done")
        finally:
            connections.close_all()
    return result


def board_phases(args: argparse.Namespace) -> dict[str, Any]:
    """The phases of the population at scale: the leaderboard, the hook among it."""
    from django.db import connections

    result: dict[str, Any] = {}
    scale = Scale(args.players, args.changes, args.seed)
    name = QUICK_BIG_DB if args.quick else BIG_DB
    with board_database(args.pg, name, keep=not args.quick, reload=args.reload) as (_, made):
        use_database(name)
        try:
            load = ready_population(args.pg, name, made, scale)
            result["leaderboard"] = {
                "database": name,
                **load,
                **measure_boards(args.calls, args.seed),
            }
            log("leaderboard done")
            result["hook_at_scale"] = hook_at_scale(args.scale_hook_games, 4, args.seed)
        finally:
            connections.close_all()
    return result


def run(args: argparse.Namespace) -> dict[str, Any]:
    result: dict[str, Any] = {}
    result["rate_table"] = measure_rate_table(args.rate_calls, args.rounds, args.seed)
    log("rate_table done")
    result.update(game_phases(args))
    result.update(board_phases(args))
    return result


def aims(result: dict[str, Any]) -> dict[str, Any]:
    board, recompute = result["leaderboard"], result["recompute"]
    return {
        "leaderboard_p95_ms_under": BOARD_MS_AIM,
        "top100_met": board["aims"]["top100_met"],
        "my_rank_met": board["aims"]["my_rank_met"],
        "recompute_games_per_s_at_least": RECOMPUTE_AIM,
        "recompute_met": recompute["aim_met"],
    }


def main(argv: list[str] | None = None) -> None:
    args = arguments(argv)
    result: dict[str, Any] = {"bench": "ratings"}
    reason = unreachable(args.pg)
    if reason:
        print(json.dumps({**result, "skipped": reason}))
        return
    started = time.perf_counter()
    result.update(run(args))
    result["aims"] = aims(result)
    result["quick"] = args.quick
    result["run_s"] = round(time.perf_counter() - started, 1)
    result["mode"] = "PostgreSQL, DEBUG off, no Redis (pushes and Celery sends are no-ops)"
    result["python"] = platform.python_version()
    result["cpu_count"] = os.cpu_count()
    result["note"] = NOTE
    print(json.dumps(result))


if __name__ == "__main__":
    main()
