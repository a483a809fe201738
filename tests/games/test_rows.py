"""``games.rows`` and ``config.rows``: the statements written once give what the ORM gives."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection, transaction
from django.db.models import Model
from rest_framework.authtoken.models import Token

from config.rows import load
from config.ws_auth import token_user
from games import rows
from games.models import Seat, Table, TableEvent
from games.selectors import table_seats
from tests.games.tables import act, players, started_table

pytestmark = pytest.mark.django_db


def fields_of(obj: Model) -> dict[str, Any]:
    return {f.attname: getattr(obj, f.attname) for f in type(obj)._meta.concrete_fields}


def test_the_table_row_is_the_orms() -> None:
    users = players("ann", "bob")
    table = started_table(users)
    act(table, users[0], {"type": "draw", "source": "stock"})
    orm = Table.objects.get(pk=table.pk)
    assert fields_of(rows.table_row(table.pk)) == fields_of(orm)  # type: ignore[arg-type]
    with transaction.atomic():
        locked, seats = rows.lock_table_with_seats(table.pk)
        assert locked is not None and fields_of(locked) == fields_of(orm)
        assert [(u, n, c > 0) for u, n, c in seats] == [
            (s.user_id, s.username, s.connected) for s in table_seats(orm)
        ]
        assert fields_of(rows.lock_table_row(table.pk)) == fields_of(orm)  # type: ignore[arg-type]
    assert rows.table_row(10**9) is None
    assert rows.lock_table_with_seats(10**9) == (None, [])


def test_the_log_rows_are_the_orms() -> None:
    users = players("ann", "bob")
    table = started_table(users)
    act(table, users[0], {"type": "draw", "source": "stock"})
    table.refresh_from_db()
    orm = list(TableEvent.objects.filter(table=table).order_by("version"))
    read = rows.events_after(table, 0)
    assert [fields_of(e) for e in read] == [fields_of(e) for e in orm]
    assert [e.version for e in rows.events_after(table, 1)] == [e.version for e in orm[1:]]
    assert read[-1].actor == users[0]  # loaded when touched


def test_an_action_writes_what_save_would() -> None:
    """The log row and the snapshot written in one statement read back as they were made."""
    users = players("ann", "bob")
    table = started_table(users)
    result = act(table, users[0], {"type": "draw", "source": "stock"})
    written = result.table.recorded[-1]  # type: ignore[index]
    assert written.pk is not None and not written._state.adding
    assert fields_of(TableEvent.objects.get(pk=written.pk)) == fields_of(written)
    stored = Table.objects.get(pk=table.pk)
    assert (stored.version, stored.state) == (result.table.version, result.table.state)
    assert stored.deadline == result.table.deadline and stored.banks == result.table.banks


def test_a_connection_count_never_goes_below_zero() -> None:
    users = players("ann", "bob")
    table = started_table(users)
    ann = users[0]
    assert rows.count_connection(table.pk, ann.pk, 1) is True
    assert rows.count_connection(table.pk, ann.pk, -1) is True
    assert rows.count_connection(table.pk, ann.pk, -1) is True
    assert Seat.objects.get(table=table, user=ann).connections == 0
    outsider = players("eve")[0]
    assert rows.count_connection(table.pk, outsider.pk, 1) is False


def test_the_tokens_user_is_the_orms() -> None:
    ann = players("ann")[0]
    key = Token.objects.create(user=ann).key
    found = token_user.func(key)  # the sync function under database_sync_to_async
    assert found is not None and fields_of(found) == fields_of(ann)
    assert token_user.func("no-such-key") is None
    ann.is_active = False
    ann.save()
    assert token_user.func(key) is None
    assert load(type(ann), []) == []


def test_the_statements_pass_through_djangos_execute_wrappers() -> None:
    """Instrumentation hooked on Django's cursor (``connection.execute_wrapper``: the load
    bench's statement counter, tracing) sees every statement an action makes."""
    users = players("ann", "bob")
    table = started_table(users)
    seen: list[str] = []

    def note(execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        seen.append(sql)
        return execute(sql, params, many, context)

    with connection.execute_wrapper(note):
        act(table, users[0], {"type": "draw", "source": "stock"})
    assert any("INSERT INTO" in sql and TableEvent._meta.db_table in sql for sql in seen)
    assert any("FOR UPDATE" in sql or "games_table" in sql for sql in seen)
