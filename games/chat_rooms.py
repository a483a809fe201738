"""A table's two chat rooms and who may do what in them (``chat.access`` asks here).

``table:<id>:players``: the players talk; everyone who may watch the table reads it (a table is
public, so anyone, signed in or not). ``table:<id>:spectators``: the onlookers talk; the players
read it only once the game is over (as on lichess: nobody at the table hears the rail during
play). Staff and, at an event's table, its organizers moderate both (``can_manage``: never one
of the table's own players).
"""

from __future__ import annotations

from accounts.models import User
from chat.access import RoomAccess, register_rooms
from games.clock_services import can_manage
from games.models import Seat, Table

PLAYERS, SPECTATORS = "players", "spectators"
OVER = (Table.Status.FINISHED, Table.Status.ABORTED)


def table_room_key(table_id: int, name: str) -> str:
    return f"table:{table_id}:{name}"


def table_room_keys(table_id: int) -> dict[str, str]:
    """Each room of the table by its name on the table socket."""
    return {name: table_room_key(table_id, name) for name in (PLAYERS, SPECTATORS)}


def _access(table: Table, name: str, user: User | None) -> RoomAccess:
    seated = user is not None and Seat.objects.filter(table=table, user=user).exists()
    moderate = user is not None and can_manage(user, table)
    if name == PLAYERS:
        why = "only the table's players talk here"
        return RoomAccess(read=True, write=seated, moderate=moderate, write_refusal=why)
    return RoomAccess(
        read=not seated or table.status in OVER,
        write=user is not None and not seated,
        moderate=moderate,
        read_refusal="the players read the spectators' chat once the game is over",
        write_refusal="log in to talk here" if user is None else "the players talk in theirs",
    )


def table_room_access(key: str, user: User | None) -> RoomAccess | None:
    """The access to ``table:<id>:<name>`` of ``user`` (None: a visitor); None if no such room."""
    parts = key.split(":")
    if len(parts) != 3 or not parts[1].isdigit() or parts[2] not in (PLAYERS, SPECTATORS):
        return None
    _, table_id, name = parts
    table = Table.objects.filter(pk=int(table_id)).first()
    return None if table is None else _access(table, name, user)


def table_rooms_read(table_id: int, user: User | None) -> list[str]:
    """The names of the table's rooms ``user`` may read now."""
    keys = table_room_keys(table_id)
    return [name for name, key in keys.items() if (table_room_access(key, user) or _NONE).read]


_NONE = RoomAccess(read=False, write=False)


def register_table_rooms() -> None:
    register_rooms("table", table_room_access)
