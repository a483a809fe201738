"""Statements of the busiest paths written once per process, not built by the ORM on every call.

The ORM compiles every query afresh: on a table action, and on a socket's opening, that was about
a third of the server's own work (docs/scaling.md). The helpers here make their statements from
the models' metadata the first time they are needed and keep them, so column names, quoting,
each field's conversion of its value for the database (``get_db_prep_save``) and back
(``from_db_value``, the backend's converters) stay the ORM's own, on PostgreSQL and SQLite
alike; only the building of the SQL text is done once. Only the hot paths named in
docs/scaling.md use them: everything else goes through the ORM as usual.

On PostgreSQL writes go with server-side parameters: Django's default client-side binding
spells every parameter into the SQL text, which for a snapshot of some kilobytes of JSON means
escaping it on the server's thread and parsing it again in PostgreSQL. Errors are Django's
(``IntegrityError`` for a repeated ``client_id``), and every statement passes through Django's
``execute_wrappers`` and is logged where Django logs queries (``connection.queries``, the tests
that count them).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from functools import cache, partial
from typing import Any

from django.db import connection
from django.db.models import Model
from psycopg import Cursor

Converter = Callable[[Any, Any, Any], Any]


def quote(name: object) -> str:
    """A table or column name quoted for the database (names from the models' metadata)."""
    assert isinstance(name, str)
    return connection.ops.quote_name(name)


@cache
def _loader(
    model: type[Model], vendor: str
) -> tuple[str, list[str], list[tuple[int, list[Converter], Any]]]:
    """The column list of ``model``'s rows, their attribute names, and the converters each
    column needs to become the attribute's value (as the ORM would apply them)."""
    fields = model._meta.concrete_fields
    columns = ", ".join(f"{quote(model._meta.db_table)}.{quote(f.column)}" for f in fields)
    converters = []
    for index, field in enumerate(fields):
        column = field.get_col(model._meta.db_table)
        found = connection.ops.get_db_converters(column) + field.get_db_converters(connection)
        if found:
            converters.append((index, found, column))
    return columns, [f.attname for f in fields], converters


def columns(model: type[Model]) -> str:
    """Every column of ``model``'s rows, qualified by its table, in the order ``load`` takes."""
    return _loader(model, connection.vendor)[0]


def load[M: Model](model: type[M], rows: Sequence[Sequence[Any]]) -> list[M]:
    """Model instances from rows of ``columns(model)``, as the ORM would make them."""
    _, names, converters = _loader(model, connection.vendor)
    out = []
    for row in rows:
        values = list(row)
        for index, found, column in converters:
            value = values[index]
            for convert in found:
                value = convert(value, column, connection)
            values[index] = value
        out.append(model.from_db(connection.alias, names, values))
    return out


#: A 64-bit column's range: a whole number outside it names no row.
BIGINT = range(-(2**63), 2**63)


def fetch(sql: str, params: Sequence[Any]) -> list[tuple[Any, ...]]:
    """The rows a read returns (Django's cursor: its parameters are small). A whole-number
    parameter past a 64-bit column (an id of 10**20 from a URL) matches nothing, as in Django's
    own lookups: SQLite would raise ``OverflowError`` for it."""
    if any(type(p) is int and p not in BIGINT for p in params):
        return []
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall()


def execute(sql: str, params: list[Any], *, returning: bool = False) -> Any:
    """Run one write. Returns the first column of the row it returns with ``returning`` (else,
    on SQLite, the row id it inserted); on PostgreSQL without it, the rows it changed."""
    if connection.vendor != "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            return cursor.fetchone()[0] if returning else cursor.lastrowid
    # What Django's cursor() does first: a health check when due, and a connection.
    connection.close_if_health_check_failed()
    connection.ensure_connection()
    start = time.monotonic()
    with connection.wrap_database_errors, Cursor(connection.connection) as cursor:
        run: Any = _plain_execute
        for wrapper in reversed(connection.execute_wrappers):  # as Django's cursor applies them
            run = partial(wrapper, run)
        run(sql, params, False, {"connection": connection, "cursor": cursor})
        row = cursor.fetchone() if returning else None
        changed = cursor.rowcount
    if connection.queries_logged:
        took = time.monotonic() - start
        connection.queries_log.append({"sql": sql, "time": f"{took:.3f}"})
    return changed if row is None else row[0]


def _plain_execute(sql: str, params: Any, many: bool, context: dict[str, Any]) -> Any:
    return context["cursor"].execute(sql, params)


@cache
def _insert_sql(model: type[Model], vendor: str, returning: bool) -> tuple[str, tuple[Any, ...]]:
    fields = tuple(f for f in model._meta.concrete_fields if not f.primary_key)
    names = ", ".join(quote(f.column) for f in fields)
    marks = ", ".join(["%s"] * len(fields))
    sql = f"INSERT INTO {quote(model._meta.db_table)} ({names}) VALUES ({marks})"
    if returning:
        sql += f" RETURNING {quote(model._meta.pk.column)}"
    return sql, fields


def insert_statement(obj: Model) -> tuple[str, list[Any]]:
    """The ``INSERT`` of ``obj`` and its parameters, as ``save`` would make them: each field's
    ``pre_save`` (``auto_now_add``) and conversion for the database."""
    sql, fields = _insert_sql(type(obj), connection.vendor, False)
    return sql, [f.get_db_prep_save(f.pre_save(obj, True), connection) for f in fields]


def insert(obj: Model) -> None:
    """Insert ``obj`` (a new row, its primary key given by the database) as ``save`` would."""
    returning = connection.features.can_return_columns_from_insert
    sql, fields = _insert_sql(type(obj), connection.vendor, returning)
    params = [f.get_db_prep_save(f.pre_save(obj, True), connection) for f in fields]
    obj.pk = execute(sql, params, returning=True) if returning else execute(sql, params)
    saved(obj)


def saved(obj: Model) -> None:
    """Mark ``obj`` as a row of the database, as ``save`` does once it has inserted it."""
    obj._state.adding = False
    obj._state.db = connection.alias


@cache
def _update_sql(
    model: type[Model], names: tuple[str, ...], vendor: str
) -> tuple[str, tuple[Any, ...]]:
    concrete = {f.name: f for f in model._meta.concrete_fields}
    fields = tuple(concrete[n] for n in names)
    sets = ", ".join(f"{quote(f.column)} = %s" for f in fields)
    pk = quote(model._meta.pk.column)
    return f"UPDATE {quote(model._meta.db_table)} SET {sets} WHERE {pk} = %s", fields


def update_statement(obj: Model, names: Sequence[str]) -> tuple[str, list[Any]]:
    """The ``UPDATE`` of the fields ``names`` of ``obj``'s row and its parameters."""
    sql, fields = _update_sql(type(obj), tuple(names), connection.vendor)
    params = [f.get_db_prep_save(f.pre_save(obj, False), connection) for f in fields]
    return sql, [*params, obj.pk]


def update(obj: Model, names: Sequence[str]) -> None:
    """Write the fields ``names`` of ``obj``'s row, as ``save(update_fields=names)`` would."""
    execute(*update_statement(obj, names))
