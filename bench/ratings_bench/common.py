"""What the modules of the ratings bench (bench/ratings.py) share: its log lines, its timing
figures, Django in this process, the ratings hook as the worker runs it, and the table rows the
phases write by COPY."""

from __future__ import annotations

import math
import os
import statistics
import sys
import time
from collections.abc import Iterable, Sequence
from typing import Any

from bench.tables import service_env

# Table sizes and their weights: mostly small tables, as a club's evenings and online play are.
SIZES = (2, 3, 4, 5, 6, 7, 8)
SIZE_WEIGHTS = (30, 20, 25, 8, 8, 4, 5)
TABLE_COLUMNS = (
    "id, ruleset_id, rules, overrides, seats, status, version, deals, turn_seconds, "
    "time_bank_seconds, between_hands_seconds, banks, rated, withdrawn, club_id, creator_id, "
    "created_at, started_at, finished_at"
)


def log(message: str) -> None:
    print(f"[ratings bench] {message}", file=sys.stderr, flush=True)


def ms_figures(seconds: Sequence[float]) -> dict[str, Any]:
    """Median, nearest-rank p95 and max of wall times, in ms (to the microsecond:
    ``bench.tables.percentile`` rounds to 10 µs, too coarse for sub-millisecond queries)."""
    ms = sorted(1000 * s for s in seconds)
    if not ms:
        return {"n": 0, "median_ms": None, "p95_ms": None, "max_ms": None}
    p95 = ms[max(0, math.ceil(0.95 * len(ms)) - 1)]
    return {
        "n": len(ms),
        "median_ms": round(statistics.median(ms), 3),
        "p95_ms": round(p95, 3),
        "max_ms": round(ms[-1], 3),
    }


# --- Django ------------------------------------------------------------------------------------


def setup_django(db_url: str) -> None:
    """Django in this process, on ``db_url``, DEBUG off, no Redis (Celery's in-memory broker;
    nothing is sent to it: the sends are patched out where games finish)."""
    env = service_env(db_url, "")
    env["DJANGO_ALLOWED_HOSTS"] = "localhost"
    # One thread that moves between databases (use_database): no pool, whose connections would
    # stay bound to the database it was opened on.
    env["DB_POOL"] = "false"
    os.environ.clear()
    os.environ.update(env)
    import django

    django.setup()


def use_database(name: str) -> None:
    """Point Django's default connection at another database of the same server."""
    from django.contrib.contenttypes.models import ContentType
    from django.db import connections

    connections.close_all()
    connections["default"].settings_dict["NAME"] = name
    ContentType.objects.clear_cache()


def migrations_pending() -> bool:
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor

    executor = MigrationExecutor(connection)
    return bool(executor.migration_plan(executor.loader.graph.leaf_nodes()))


def migrate() -> None:
    from django.core.management import call_command

    call_command("migrate", interactive=False, verbosity=0)


def reset_games() -> None:
    """Empty every table the phases fill, ids restarting at 1 (a fresh start between phases)."""
    from django.db import connection

    from accounts.models import Club, ClubMembership, User
    from games.models import FinalizerRun, GameResult, HandResult, Seat, Table, TableEvent
    from ratings.models import Pool, RatedGame, Rating, RatingBucket, RatingChange

    models: list[Any] = [
        RatingChange,
        Rating,
        RatingBucket,
        RatedGame,
        Pool,
        FinalizerRun,
        GameResult,
    ]
    models += [HandResult, TableEvent, Seat, Table, ClubMembership, Club, User]
    names = ", ".join(connection.ops.quote_name(m._meta.db_table) for m in models)
    with connection.cursor() as cursor:
        cursor.execute(f"TRUNCATE {names} RESTART IDENTITY CASCADE")


def run_rating_hook(table_id: int) -> float:
    """The ratings finalization hook on one finished table, as the worker runs it (in its own
    transaction, a savepoint inside an open one); its wall time in seconds."""
    from games import finalization

    start = time.perf_counter()
    ran = finalization.run_hook(table_id, "ratings")
    seconds = time.perf_counter() - start
    if not ran:
        raise RuntimeError(f"the ratings hook did not run for table {table_id}")
    return seconds


# --- Rows --------------------------------------------------------------------------------------


def scalar(cursor: Any, sql: str, params: Sequence[Any] = ()) -> Any:
    """The first column of the one row ``sql`` answers."""
    cursor.execute(sql, params)
    return cursor.fetchone()[0]


def set_sequences(cursor: Any, tables: Iterable[str]) -> None:
    """Each table's id sequence continues after its largest id (rows were copied with ids)."""
    for table in tables:
        cursor.execute(
            f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), "
            f"COALESCE(MAX(id), 1), MAX(id) IS NOT NULL) FROM {table}"
        )


def table_row(
    table_id: int, ruleset: int, rules: str, seats: int, club: int | None, creator: int, at: Any
) -> tuple[Any, ...]:
    """A finished rated table with the fewest values its NOT NULL columns need."""
    overrides, deals, banks, withdrawn = "{}", "[]", "{}", "[]"
    clock = (60, 0, 8)  # turn_seconds, time_bank_seconds, between_hands_seconds
    head = (table_id, ruleset, rules, overrides, seats, "finished", 0, deals, *clock, banks)
    return (*head, True, withdrawn, club, creator, at, at, at)
