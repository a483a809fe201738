"""Suite-wide setup: the services check and a clean cache for every test."""

import gc
import importlib
import os
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from celery._state import _set_task_join_will_block
from django.conf import settings
from django.core.cache import cache

# (environment variable, default port) of each service the full suite runs against.
SERVICES = (("DATABASE_URL", 5432), ("REDIS_URL", 6379))


def _unreachable(url: str, default_port: int) -> str | None:
    """None when something accepts TCP connections at the URL's address, else the reason."""
    parts = urlsplit(url)
    address = (parts.hostname or "127.0.0.1", parts.port or default_port)
    try:
        socket.create_connection(address, timeout=3).close()
    except OSError as exc:
        return f"{address[0]}:{address[1]} does not answer ({exc})"
    return None


def pytest_configure(config: pytest.Config) -> None:
    """With REQUIRE_SERVICES=1, stop before any test unless PostgreSQL and Redis answer.

    Without it a missing service just means the embedded default (SQLite, in-memory layer and
    broker); CI sets it so a broken service can never pass silently as the fallback.
    """
    if os.environ.get("REQUIRE_SERVICES") != "1":
        return
    problems = []
    for name, port in SERVICES:
        url = os.environ.get(name, "")
        reason = _unreachable(url, port) if url else "is not set"
        if reason:
            problems.append(f"{name} {reason}")
    if problems:
        raise pytest.UsageError("REQUIRE_SERVICES=1 but " + "; ".join(problems))


# The slow groups, by their folder under tests/ (pyproject.toml registers the markers).
SLOW_GROUPS = ("faults", "bench", "hostile", "browser", "processes")
TESTS_DIR = Path(__file__).parent


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark each test of a slow group with the group's name and `slow`, by its folder, and
    order the tests (see `_run_order`).

    A browser module shares one Chromium among its tests (a module-scoped fixture), so under
    pytest-xdist (`--dist loadgroup`) each browser module runs on one worker rather than
    starting a browser on every worker that gets one of its tests.
    """
    for item in items:
        if not item.path.is_relative_to(TESTS_DIR):
            continue  # the engine's doctests
        parts = item.path.relative_to(TESTS_DIR).parts
        if parts[0] not in SLOW_GROUPS:
            continue
        item.add_marker(parts[0])
        item.add_marker("slow")
        if parts[0] == "browser":
            item.add_marker(pytest.mark.xdist_group(f"browser-{item.path.stem}"))
    items.sort(key=_run_order)


def _run_order(item: pytest.Item) -> tuple[int, bool]:
    """Tests without the database, then those in a rolled-back transaction, then transactional
    ones; slow groups first in each part. A stable sort over pytest-randomly's shuffle, so a
    seed still replays the order.

    A transactional test leaves the database flushed, without the rows data migrations made
    (the preset rule sets): no rolled-back test may come after one. pytest-django orders them
    so; this keeps its order (a run that put the slow groups first overall failed 410 tests
    with "no rule set 'standard'"). xdist hands tests out in this order as workers come free,
    so the minute-long ones (bench quick runs, the leak scan, schemathesis) start early rather
    than one starting last while the other workers sit idle.
    """
    names = set(getattr(item, "fixturenames", ()))
    marker = item.get_closest_marker("django_db")
    transactional = bool({"transactional_db", "live_server"} & names) or bool(
        marker
        and (
            marker.kwargs.get("transaction")
            or marker.kwargs.get("reset_sequences")
            or marker.args[:1] == (True,)
        )
    )
    rank = 2 if transactional else 1 if _uses_database(item) else 0
    return rank, item.get_closest_marker("slow") is None


@pytest.fixture(autouse=True)
def _clear_cache() -> Iterator[None]:
    # Throttle counters live in the cache; one test's requests must not throttle the next.
    # The engine's tests run without Django too (`-p no:django`): then there is no cache.
    if not settings.configured:
        yield
        return
    cache.clear()
    yield
    cache.clear()


@pytest.fixture(autouse=True)
def _celery_client() -> None:
    """Each test starts as a plain Celery client. An embedded worker that an earlier test
    started in this process (a browser test's server, ``config.embedded``) marks the whole
    process as a worker, where Celery refuses ``result.get()`` ("Never call result.get()
    within a task!"), so a test's ``task.apply().get()`` failed or passed by the order tests
    ran in. Celery keeps the mark in a private global; there is no public way to clear it."""
    _set_task_join_will_block(False)


def _transactional(request: pytest.FixtureRequest) -> bool:
    marker = request.node.get_closest_marker("django_db")
    if marker is not None and (marker.kwargs.get("transaction") or marker.args[:1] == (True,)):
        return True
    return bool({"transactional_db", "live_server"} & set(request.fixturenames))


@pytest.fixture(autouse=True)
def _rule_set_presets(request: pytest.FixtureRequest) -> None:
    """A transactional test starts from a flushed database: bring back the preset rule sets,
    which a data migration made (every other test sees them through its rolled-back copy)."""
    if not settings.configured or not _transactional(request):
        return
    request.getfixturevalue("transactional_db")
    from django.apps import apps

    importlib.import_module("games.migrations.0002_presets").create_presets(apps, None)


_DB_FIXTURES = {"db", "transactional_db", "live_server", "django_db_setup_tables"}


# How long a transactional test's teardown waits for other sessions on its database to finish.
QUIET_SECONDS = 30.0


@pytest.fixture(autouse=True)
def _quiet_before_flush(request: pytest.FixtureRequest) -> Iterator[None]:
    """A transactional test's database is flushed (one TRUNCATE of every table) only once no
    other session on it is inside a transaction.

    A live server can leave work running after its test: Django cancels a request whose
    browser went away, and a cancelled ``sync_to_async`` leaves its thread running the view;
    a socket's closing runs in a thread of its own. Such a transaction holds a lock on one
    table and asks for the next while the flush holds the first and asks for the other, and
    PostgreSQL kills the flush as a deadlock ("Database ... couldn't be flushed"). Torn down
    after the test's own fixtures (servers, pages) and before pytest-django's flush."""
    if not settings.configured or not _transactional(request):
        yield
        return
    request.getfixturevalue("transactional_db")
    yield
    from django.db import connection

    if connection.vendor != "postgresql":
        return  # SQLite's writers wait for each other: no deadlock to avoid
    deadline = time.monotonic() + QUIET_SECONDS
    with connection.cursor() as cursor:
        while time.monotonic() < deadline:
            cursor.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
                " AND pid <> pg_backend_pid() AND state IN ('active', 'idle in transaction')"
            )
            if cursor.fetchone()[0] == 0:
                return
            time.sleep(0.05)


def _uses_database(item: pytest.Item) -> bool:
    names = set(getattr(item, "fixturenames", ()))
    return bool(names & _DB_FIXTURES) or item.get_closest_marker("django_db") is not None


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    """After every test that used the database: each table's snapshot equals its log replayed.

    This is the replay test of STYLE.md principle 7, run over every game the suite plays (REST,
    WebSocket, browser), so a service that saved a snapshot its log cannot reproduce fails the
    test that made it. It runs before the test's database is torn down.
    """
    result = yield
    if settings.configured and _uses_database(item):
        from django.db import DatabaseError, connection

        from games.models import Table
        from games.selectors import table_mismatch

        # A test may leave the database unusable on purpose (a refused connection, a failed
        # transaction it expected): there is then nothing it can have played to check.
        if connection.needs_rollback:
            return result
        try:
            tables = list(Table.objects.filter(state__isnull=False))
        except DatabaseError:
            return result
        problems = [p for p in map(table_mismatch, tables) if p]
        assert not problems, "; ".join(problems)
    return result


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup: None, django_db_blocker: Any) -> Iterator[None]:
    """pytest-django's test database, with garbage collected before it is dropped.

    The consumers run their queries in executor threads (``thread_sensitive=False``); a thread's
    connection outlives the thread as garbage in a reference cycle, still open, and PostgreSQL
    will not drop a database that has sessions ("being accessed by other users").

    A session can also outlive its process by a moment: a server or worker a test killed, whose
    backend has not noticed yet. In a third of the parallel runs on PostgreSQL one still held a
    worker's database at the end, and the database was left behind. Every session on it is this
    process's (its name has the pid), so any left is ended before the drop.
    """
    yield
    gc.collect()
    from django.db import connection

    if connection.vendor != "postgresql":
        return
    with django_db_blocker.unblock(), connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
            " WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
    connection.close()
