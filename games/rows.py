"""The statements of the busiest path (an action: lock, seats, log row, snapshot), written once
per process instead of built by the ORM on every call.

The ORM compiles every query afresh: on an action that was about a third of the server's own
work (docs/scaling.md). These statements are made from the models' metadata the first time they
are needed, so column names, quoting and each field's conversion of its value for the database
(``get_db_prep_save``: JSON, datetimes, on PostgreSQL and SQLite alike) stay the ORM's own; only
the building of the SQL text is done once. Nothing else may use them: every other read and write
goes through the ORM as usual.

On PostgreSQL the log row and the snapshot are written with server-side parameters: Django's
default client-side binding spells every parameter into the SQL text, which for a snapshot of
some kilobytes of JSON means escaping it on the server's thread and parsing it again in
PostgreSQL. Errors are Django's (``IntegrityError`` for a repeated ``client_id``), and the
statements are logged where Django logs queries (``connection.queries``, tests that count them).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from functools import cache
from typing import Any

from django.db import connection
from django.db.models import Model
from psycopg import Cursor

from games.models import Seat, Table


def _quote(name: object) -> str:
    """A table or column name quoted for the database (names from the models' metadata)."""
    assert isinstance(name, str)
    return connection.ops.quote_name(name)


@cache
def _lock_sql(vendor: str, locks: bool) -> str:
    sql = f"SELECT * FROM {_quote(Table._meta.db_table)} WHERE {_quote('id')} = %s"
    return f"{sql} FOR UPDATE" if locks else sql


def lock_table_row(table_id: int) -> Table | None:
    """The table row, locked until the transaction ends (``SELECT ... FOR UPDATE``; SQLite,
    which has no row locks, serializes writers by itself), or None when there is none."""
    features = connection.features
    sql = _lock_sql(connection.vendor, features.has_select_for_update)
    found = list(Table.objects.raw(sql, [table_id]))
    return found[0] if found else None


@cache
def _seats_sql(vendor: str) -> str:
    seat, user = Seat._meta, Seat._meta.get_field("user").related_model._meta
    return (
        f"SELECT s.{_quote('user_id')}, u.{_quote('username')}, s.{_quote('connections')} "
        f"FROM {_quote(seat.db_table)} s JOIN {_quote(user.db_table)} u "
        f"ON u.{_quote(user.pk.column)} = s.{_quote('user_id')} "
        f"WHERE s.{_quote('table_id')} = %s ORDER BY s.{_quote('position')}"
    )


def seat_rows(table_id: int) -> list[tuple[int, str, int]]:
    """``(user id, username, open connections)`` of each seat of the table, in seat order."""
    with connection.cursor() as cursor:
        cursor.execute(_seats_sql(connection.vendor), [table_id])
        return [(int(u), str(name), int(n)) for u, name, n in cursor.fetchall()]


@cache
def _insert_sql(model: type[Model], vendor: str, returning: bool) -> tuple[str, tuple[Any, ...]]:
    fields = tuple(f for f in model._meta.concrete_fields if not f.primary_key)
    columns = ", ".join(_quote(f.column) for f in fields)
    marks = ", ".join(["%s"] * len(fields))
    sql = f"INSERT INTO {_quote(model._meta.db_table)} ({columns}) VALUES ({marks})"
    if returning:
        sql += f" RETURNING {_quote(model._meta.pk.column)}"
    return sql, fields


def _execute(sql: str, params: list[Any], *, returning: bool = False) -> Any:
    """Run one write; with ``returning``, the first column of the row it returns (else, on
    SQLite, the row id it inserted)."""
    if connection.vendor != "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            return cursor.fetchone()[0] if returning else cursor.lastrowid
    # What Django's cursor() does first: a health check when due, and a connection.
    connection.close_if_health_check_failed()
    connection.ensure_connection()
    start = time.monotonic()
    with connection.wrap_database_errors, Cursor(connection.connection) as cursor:
        cursor.execute(sql, params)
        row = cursor.fetchone() if returning else None
    if connection.queries_logged:
        took = time.monotonic() - start
        connection.queries_log.append({"sql": sql, "time": f"{took:.3f}"})
    return None if row is None else row[0]


def insert(obj: Model) -> None:
    """Insert ``obj`` (a new row, its primary key given by the database) as ``save`` would:
    each field's ``pre_save`` (``auto_now_add``) and conversion for the database."""
    returning = connection.features.can_return_columns_from_insert
    sql, fields = _insert_sql(type(obj), connection.vendor, returning)
    params = [f.get_db_prep_save(f.pre_save(obj, True), connection) for f in fields]
    obj.pk = _execute(sql, params, returning=returning)
    obj._state.adding = False
    obj._state.db = connection.alias


@cache
def _update_sql(
    model: type[Model], names: tuple[str, ...], vendor: str
) -> tuple[str, tuple[Any, ...]]:
    concrete = {f.name: f for f in model._meta.concrete_fields}
    fields = tuple(concrete[n] for n in names)
    sets = ", ".join(f"{_quote(f.column)} = %s" for f in fields)
    pk = _quote(model._meta.pk.column)
    return f"UPDATE {_quote(model._meta.db_table)} SET {sets} WHERE {pk} = %s", fields


def update(obj: Model, names: Sequence[str]) -> None:
    """Write the fields ``names`` of ``obj``'s row, as ``save(update_fields=names)`` would."""
    sql, fields = _update_sql(type(obj), tuple(names), connection.vendor)
    params = [f.get_db_prep_save(f.pre_save(obj, False), connection) for f in fields]
    _execute(sql, [*params, obj.pk])
