"""The ratings bench's (bench/ratings.py) kept database: the population at scale (scale.py
here) is loaded into ``rummy_ratingsbench_big`` once and reused while its row counts and loader
version match; ``--reload`` loads it again. ``--quick`` makes a fresh one, dropped at the end."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from bench.ratings_bench.common import log, migrate, migrations_pending, scalar
from bench.ratings_bench.scale import META_TABLE, Scale, load_population
from bench.tables import fresh_database, with_path


def kept_population(url: str, scale: Scale) -> bool:
    """Whether the database at ``url`` holds a complete load of ``scale`` (the loader writes its
    meta row last, in the load's own transaction)."""
    import psycopg

    with psycopg.connect(url) as conn, conn.cursor() as cur:
        if not scalar(cur, "SELECT to_regclass(%s) IS NOT NULL", [META_TABLE]):
            return False
        cur.execute(f"SELECT meta FROM {META_TABLE}")
        row = cur.fetchone()
        if row is None or row[0] != scale.meta():
            return False
        changes = scalar(cur, "SELECT COUNT(*) FROM ratings_ratingchange")
        ratings = scalar(cur, "SELECT COUNT(*) FROM ratings_rating")
        users = scalar(cur, "SELECT COUNT(*) FROM accounts_user")
    return (changes, ratings, users) == (scale.changes, scale.players, scale.players)


@contextlib.contextmanager
def board_database(pg_url: str, name: str, keep: bool, reload: bool) -> Iterator[tuple[str, bool]]:
    """``(url, created)``: a database kept between runs (made when missing or ``reload``), or
    with ``keep`` off a fresh one dropped at the end."""
    if not keep:
        with fresh_database(pg_url, name) as url:
            yield url, True
        return
    import psycopg
    from psycopg import sql

    with psycopg.connect(with_path(pg_url, "/postgres"), autocommit=True) as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone()
        if exists and reload:
            conn.execute(sql.SQL("DROP DATABASE {} WITH (FORCE)").format(sql.Identifier(name)))
            exists = None
        if not exists:
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    yield with_path(pg_url, f"/{name}"), not exists


def recreate(pg_url: str, name: str) -> None:
    import psycopg
    from psycopg import sql

    with psycopg.connect(with_path(pg_url, "/postgres"), autocommit=True) as conn:
        conn.execute(
            sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
        )
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))


def ready_population(pg_url: str, name: str, made: bool, scale: Scale) -> dict[str, Any]:
    """Load the population into ``name`` (Django's connection points at it) when the database
    was made now or its load is out of date; what the load reports."""
    from django.db import connections

    url = with_path(pg_url, f"/{name}")
    if not made and (migrations_pending() or not kept_population(url, scale)):
        log(f"{name} is out of date: loading it again")
        connections.close_all()
        recreate(pg_url, name)
        made = True
    if not made:
        return {"loaded_now": False}
    migrate()
    log(f"loading {scale.players} players and {scale.changes} changes into {name}")
    return load_population(url, scale)
