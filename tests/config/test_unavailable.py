"""The ``unavailable`` answer (config/unavailable.py) at each entry point, with the database
failure injected where the entry point calls it; tests/faults/test_database_outage.py makes a
real PostgreSQL disappear behind a proxy instead.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NoReturn

import psycopg
import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.db import IntegrityError, InterfaceError, OperationalError, ProgrammingError
from django.db import connections as databases
from django.test import Client
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from config import push as config_push
from config.asgi import application
from config.unavailable import CLOSE_TRY_AGAIN, MESSAGE, RETRY_AFTER_SECONDS, is_unavailable
from games import consumers, services, views
from games.models import Table
from tests.accounts.factories import UserFactory
from tests.games.tables import players, started_table
from tests.tournaments.factories import make_event
from tournaments import consumers as event_consumers

UNAVAILABLE = {"error": "unavailable", "message": MESSAGE, "retry_after": RETRY_AFTER_SECONDS}


def wrapped(django_error: type[Exception], cause: BaseException | None) -> Exception:
    """A Django database error as Django raises it: the driver's error as its cause."""
    error = django_error(str(cause))
    error.__cause__ = cause
    return error


def database_gone(*_: Any, **__: Any) -> NoReturn:
    raise wrapped(OperationalError, psycopg.OperationalError("connection failed: refused"))


@pytest.mark.parametrize(
    ("error", "unavailable"),
    [
        (wrapped(OperationalError, psycopg.OperationalError("connection failed")), True),
        (wrapped(OperationalError, psycopg.errors.AdminShutdown("terminating")), True),
        (wrapped(OperationalError, psycopg.errors.TooManyConnections("too many")), True),
        (wrapped(InterfaceError, psycopg.InterfaceError("the connection is closed")), True),
        (wrapped(OperationalError, psycopg.errors.DeadlockDetected("deadlock")), False),
        (wrapped(ProgrammingError, psycopg.errors.UndefinedTable("no table")), False),
        (wrapped(IntegrityError, psycopg.errors.UniqueViolation("duplicate")), False),
        (ValueError("not a database error"), False),
    ],
)
def test_only_an_unreachable_database_is_unavailable(error: Exception, unavailable: bool) -> None:
    assert is_unavailable(error) is unavailable


def sqlite_error(run: Any) -> Exception:
    try:
        run()
    except sqlite3.Error as exc:
        return wrapped(OperationalError, exc)
    raise AssertionError("no error")


def test_on_sqlite_a_busy_database_is_unavailable_and_a_missing_table_is_not(
    tmp_path: Path,
) -> None:
    path = tmp_path / "db.sqlite3"
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("CREATE TABLE t (x)")
    holder.execute("BEGIN IMMEDIATE")  # the write lock, held
    other = sqlite3.connect(path, timeout=0, isolation_level=None)
    assert is_unavailable(sqlite_error(lambda: other.execute("BEGIN IMMEDIATE")))
    assert not is_unavailable(sqlite_error(lambda: other.execute("SELECT * FROM missing")))
    holder.close()
    other.close()


@pytest.mark.django_db
def test_an_api_call_answers_503_with_retry_after(monkeypatch: pytest.MonkeyPatch) -> None:
    (ann,) = players("ann")
    monkeypatch.setattr(services, "table_apply_action", database_gone)
    client = APIClient()
    client.force_authenticate(ann)
    body = {"action": {"type": "draw", "source": "stock"}, "version": 1, "client_id": "c1"}
    response = client.post("/api/tables/1/actions/", body, format="json")
    assert (response.status_code, response.json()) == (503, UNAVAILABLE)
    assert response["Retry-After"] == str(RETRY_AFTER_SECONDS)


@pytest.mark.django_db
def test_a_page_answers_a_plain_503_never_a_traceback(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(views, "table_get", database_gone)
    response = Client(raise_request_exception=False).get("/tables/1/")
    assert response.status_code == 503
    assert response["Content-Type"] == "text/html; charset=utf-8"
    assert response["Retry-After"] == str(RETRY_AFTER_SECONDS)
    page = response.content.decode()
    assert "cannot reach its database" in page and "Traceback" not in page


@pytest.mark.django_db
def test_a_fault_that_is_not_an_outage_stays_a_500(monkeypatch: pytest.MonkeyPatch) -> None:
    def missing_table(*_: Any) -> NoReturn:
        raise wrapped(ProgrammingError, psycopg.errors.UndefinedTable("no such table"))

    monkeypatch.setattr(views, "table_get", missing_table)
    assert Client(raise_request_exception=False).get("/tables/1/").status_code == 500


# --- the table socket ------------------------------------------------------------------------


@pytest.fixture
def memory_layer(settings: Any) -> Iterator[None]:
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    config_push.set_server_loop(None)
    yield
    config_push.set_server_loop(None)


def _table_and_token() -> tuple[Table, str]:
    ann, bob = players("ann", "bob")
    table = started_table([ann, bob])
    return table, Token.objects.create(user=ann).key


@pytest.mark.django_db(transaction=True)
async def test_a_socket_action_gets_the_error_and_the_socket_stays_open(
    memory_layer: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    table, token = await database_sync_to_async(_table_and_token)()
    socket = WebsocketCommunicator(application, f"/ws/tables/{table.pk}/?token={token}")
    assert (await socket.connect())[0]
    first = await socket.receive_json_from(timeout=10)
    monkeypatch.setattr(services, "table_apply_action", database_gone)
    action = {"type": "draw", "source": "stock"}
    message = {"type": "action", "action": action, "version": first["version"], "client_id": "c1"}
    await socket.send_json_to(message)
    error = await socket.receive_json_from(timeout=10)
    assert error == {"type": "error", "client_id": "c1", **UNAVAILABLE}
    monkeypatch.undo()
    await socket.send_json_to(message)  # the same action once the database is back: applied
    frame = await socket.receive_json_from(timeout=10)
    assert (frame["type"], frame["version"]) == ("state", first["version"] + 1)
    await socket.disconnect()
    await database_sync_to_async(databases.close_all)()


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("broken", ["consumer", "token"])
async def test_a_socket_opened_without_the_database_is_told_why_and_closed(
    memory_layer: None, monkeypatch: pytest.MonkeyPatch, broken: str
) -> None:
    table, token = await database_sync_to_async(_table_and_token)()
    if broken == "consumer":
        monkeypatch.setattr(consumers, "_open", database_gone)
    else:
        monkeypatch.setattr("config.ws_auth.token_user", database_sync_to_async(database_gone))
    socket = WebsocketCommunicator(application, f"/ws/tables/{table.pk}/?token={token}")
    assert (await socket.connect())[0]
    assert await socket.receive_json_from(timeout=10) == {
        "type": "error",
        "client_id": None,
        **UNAVAILABLE,
    }
    assert (await socket.receive_output(timeout=10))["code"] == CLOSE_TRY_AGAIN
    await database_sync_to_async(databases.close_all)()


def _open_event() -> str:
    return make_event(UserFactory(is_staff=True), status="registration").slug


@pytest.mark.django_db(transaction=True)
async def test_an_event_socket_sync_gets_the_error_and_the_socket_stays_open(
    memory_layer: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    slug = await database_sync_to_async(_open_event)()
    socket = WebsocketCommunicator(application, f"/ws/events/{slug}/")
    assert (await socket.connect())[0]
    monkeypatch.setattr(event_consumers, "_frame", database_gone)
    await socket.send_json_to({"type": "sync"})
    assert await socket.receive_json_from(timeout=10) == {"type": "error", **UNAVAILABLE}
    monkeypatch.undo()
    await socket.send_json_to({"type": "sync"})
    assert (await socket.receive_json_from(timeout=10))["what"] == "sync"
    await socket.disconnect()
    await database_sync_to_async(databases.close_all)()
