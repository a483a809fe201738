"""The statements of a table's busiest paths, written once per process (``config.rows``): an
action's lock, seats, log row and snapshot; a socket's count on its seat and its first frame.

The ORM builds every query afresh, which was about a third of the server's own work on these
paths (docs/scaling.md). Everything else reads and writes tables through the ORM as usual.
"""

from __future__ import annotations

from functools import cache

from django.db import connection

from config.jsontext import loads
from config.rows import (
    columns,
    execute,
    fetch,
    insert,
    insert_statement,
    load,
    quote,
    saved,
    update_statement,
)
from config.rows import update as update_row
from games.models import Seat, Table, TableEvent

SeatRow = tuple[int, str, int]  # user id, username, open connections


@cache
def _table_sql(vendor: str, lock: bool, seats: bool) -> str:
    table = quote(Table._meta.db_table)
    picked = columns(Table)
    if seats:
        # The seats in the same round trip, as JSON: [[user id, username, connections], ...].
        picked += f", ({_seats_json_sql()})::text"
    sql = f"SELECT {picked} FROM {table} WHERE {table}.{quote('id')} = %s"
    return f"{sql} FOR UPDATE OF {table}" if lock else sql


def _seats_json_sql() -> str:
    seat, user = Seat._meta, Seat._meta.get_field("user").related_model._meta
    return (
        f"SELECT json_agg(json_build_array(s.{quote('user_id')}, u.{quote('username')}, "
        f"s.{quote('connections')}) ORDER BY s.{quote('position')}) "
        f"FROM {quote(seat.db_table)} s JOIN {quote(user.db_table)} u "
        f"ON u.{quote(user.pk.column)} = s.{quote('user_id')} "
        f"WHERE s.{quote('table_id')} = {quote(Table._meta.db_table)}.{quote('id')}"
    )


def table_row(table_id: int) -> Table | None:
    """The table row (no related rows: they load when touched), or None."""
    found = fetch(_table_sql(connection.vendor, False, False), [table_id])
    return load(Table, found)[0] if found else None


def lock_table_row(table_id: int) -> Table | None:
    """The table row, locked until the transaction ends (``SELECT ... FOR UPDATE``; SQLite,
    which has no row locks, serializes writers by itself), or None when there is none."""
    locks = connection.features.has_select_for_update
    found = fetch(_table_sql(connection.vendor, locks, False), [table_id])
    return load(Table, found)[0] if found else None


def lock_table_with_seats(table_id: int) -> tuple[Table | None, list[SeatRow]]:
    """The table row locked (``lock_table_row``) and its seats (``seat_rows``): one round
    trip on PostgreSQL."""
    if connection.vendor != "postgresql":
        table = lock_table_row(table_id)
        return table, seat_rows(table_id) if table is not None else []
    found = fetch(_table_sql(connection.vendor, True, True), [table_id])
    if not found:
        return None, []
    *row, seats = found[0]
    return load(Table, [row])[0], [(int(u), str(n), int(c)) for u, n, c in loads(seats or "[]")]


@cache
def _seats_sql(vendor: str) -> str:
    seat, user = Seat._meta, Seat._meta.get_field("user").related_model._meta
    return (
        f"SELECT s.{quote('user_id')}, u.{quote('username')}, s.{quote('connections')} "
        f"FROM {quote(seat.db_table)} s JOIN {quote(user.db_table)} u "
        f"ON u.{quote(user.pk.column)} = s.{quote('user_id')} "
        f"WHERE s.{quote('table_id')} = %s ORDER BY s.{quote('position')}"
    )


def seat_rows(table_id: int) -> list[SeatRow]:
    """``(user id, username, open connections)`` of each seat of the table, in seat order."""
    found = fetch(_seats_sql(connection.vendor), [table_id])
    return [(int(u), str(name), int(n)) for u, name, n in found]


@cache
def _count_sql(vendor: str) -> str:
    count = quote("connections")
    return (
        f"UPDATE {quote(Seat._meta.db_table)} SET {count} = "
        f"CASE WHEN {count} + %s > 0 THEN {count} + %s ELSE 0 END "
        f"WHERE {quote('table_id')} = %s AND {quote('user_id')} = %s"
    )


def count_connection(table_id: int, user_id: int, delta: int) -> bool:
    """Add ``delta`` to the user's open connections on their seat (never below 0); False when
    they have no seat at the table."""
    sql = _count_sql(connection.vendor)
    if connection.vendor != "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(sql, [delta, delta, table_id, user_id])
            return bool(cursor.rowcount)
    return bool(execute(sql, [delta, delta, table_id, user_id]))


@cache
def _events_sql(vendor: str) -> str:
    event = quote(TableEvent._meta.db_table)
    return (
        f"SELECT {columns(TableEvent)} FROM {event} WHERE {event}.{quote('table_id')} = %s "
        f"AND {event}.{quote('version')} > %s AND {event}.{quote('version')} <= %s "
        f"ORDER BY {event}.{quote('version')}"
    )


def events_after(table: Table, since: int) -> list[TableEvent]:
    """The table's log rows after version ``since``, up to its version, in order (their
    ``actor`` loads when touched: only an organizer's rows are told with it)."""
    found = fetch(_events_sql(connection.vendor), [table.pk, since, table.version])
    events = load(TableEvent, found)
    for event in events:
        event.table = table
    return events


def record(event: TableEvent, table: Table, names: list[str]) -> None:
    """Insert the log row ``event`` and write the fields ``names`` of ``table``: one round
    trip on PostgreSQL (a data-changing ``WITH``), two elsewhere."""
    if connection.vendor != "postgresql":
        insert(event)
        update_row(table, names)
        return
    insert_sql, insert_params = insert_statement(event)
    update_sql, update_params = update_statement(table, names)
    pk = quote(TableEvent._meta.pk.column)
    sql = f"WITH e AS ({insert_sql} RETURNING {pk}) {update_sql} RETURNING (SELECT {pk} FROM e)"
    event.pk = execute(sql, [*insert_params, *update_params], returning=True)
    saved(event)
