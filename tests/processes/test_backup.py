"""The backup and restore procedure of docs/backup.md, run for real: ``pg_dump`` of a database
with games in every state and rated results, ``pg_restore`` into a fresh database, then the
checks the procedure ends with, run as separate processes on the restored database."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.db import connection

from games import finalization, services
from games.models import Table
from games.verify import verify_tables
from tests.games.tables import play_greedy, play_simple, players, started_table

ROOT = Path(__file__).resolve().parents[2]

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(
        not os.environ.get("DATABASE_URL"), reason="pg_dump needs PostgreSQL (DATABASE_URL)"
    ),
]


def _url(name: str) -> str:
    db = connection.settings_dict
    return f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{name}"


@pytest.fixture
def fresh_database() -> Iterator[str]:
    """An empty database of its own on the same server, dropped afterwards."""
    name = f"rummy_restore_{uuid.uuid4().hex[:12]}"
    server = _url("postgres")
    subprocess.run(["psql", server, "-qc", f'CREATE DATABASE "{name}"'], check=True)
    try:
        yield name
    finally:
        drop = f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'
        subprocess.run(["psql", server, "-qc", drop], check=True)


def _manage(url: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "DATABASE_URL": url, "DJANGO_SETTINGS_MODULE": "config.settings"}
    env.pop("REDIS_URL", None)  # the checks need the database alone
    command = [sys.executable, "manage.py", *args]
    return subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)


def _play() -> None:
    """A finished rated game, a game in play and a table still waiting."""
    users = players("ann", "bob", "cid")
    finished = started_table(users, overrides={"target": 1})
    play_greedy(finished, users, until=lambda t: t.status != Table.Status.PLAYING)
    assert finalization.run_hook(finished.pk, "ratings")
    running = started_table(users)
    play_simple(running, users, until=lambda t: t.version >= 20)
    services.table_create(creator=users[0], ruleset="standard", seats=4)


def _dump_and_restore(target_name: str, tmp_path: Path) -> str:
    """docs/backup.md's two commands: this test database dumped, restored into ``target_name``."""
    dump = tmp_path / "rummy.dump"
    source = _url(connection.settings_dict["NAME"])
    subprocess.run(["pg_dump", "--format=custom", f"--file={dump}", source], check=True)
    target = _url(target_name)
    restore = ["pg_restore", "--no-owner", "--exit-on-error", f"--dbname={target}", str(dump)]
    subprocess.run(restore, check=True)
    return target


def test_a_restored_dump_rebuilds_every_table_identically(
    fresh_database: str, tmp_path: Path
) -> None:
    _play()
    original = verify_tables()
    assert original.ok and original.replayed == 2
    target = _dump_and_restore(fresh_database, tmp_path)

    migrations = _manage(target, "migrate", "--check", "--noinput")
    assert migrations.returncode == 0, migrations.stdout + migrations.stderr
    tables = _manage(target, "tables_verify", "--json")
    assert tables.returncode == 0, tables.stdout + tables.stderr
    restored = json.loads(tables.stdout)
    assert restored["ok"] and restored["problems"] == []
    assert (restored["tables"], restored["replayed"]) == (original.tables, original.replayed)
    assert restored["digest"] == original.digest
    ratings = _manage(target, "ratings_recompute", "--check", "--json")
    assert ratings.returncode == 0, ratings.stdout + ratings.stderr
    assert json.loads(ratings.stdout)["equal"] is True


def test_a_damaged_restore_is_caught(fresh_database: str, tmp_path: Path) -> None:
    """The same check fails when the restored rows depart from their logs."""
    _play()
    target = _dump_and_restore(fresh_database, tmp_path)
    damage = "UPDATE games_table SET version = version + 1 WHERE status = 'playing'"
    subprocess.run(["psql", target, "-qc", damage], check=True)
    tables = _manage(target, "tables_verify")
    assert tables.returncode == 1
    assert "log versions do not run" in tables.stdout
