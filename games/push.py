"""Pushes of a table's state to its sockets, each person their own view (after commit).

Every socket on a table listens to one group: a seated player's own group, where only their
player view is sent, or the table's public group (spectators, anonymous visitors). One change
therefore costs one message per seated player plus one for every spectator together.

A change that moves the table in or out of the lobby's lists, or changes what they show (created,
a seat taken or given up, started, finished, aborted), is also sent to ``LOBBY_GROUP``, every
lobby socket, as ``{"type": "table", "table": ...}`` (docs/lobby.md): here, where every change
of every table passes after its commit, so whoever changes a table (a player, an event, a
rematch, quick play) need not remember the lobby. Moves of a game in play are not its business.

Each frame carries the reader's ``moves`` after version ``moves_since`` (docs/tables.md,
"Moves"): a push, the rows its change added (read once for all its frames); a frame read on
connect or ``sync``, the whole list.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction

from config.push import group_send_many
from games.listing import listing_entry
from games.models import Table
from games.payloads import GameOverOutput
from games.selectors import (
    LogSince,
    SeatInfo,
    deadline_text,
    log_since,
    table_clock,
    table_game_over,
    table_last_hand,
    table_seats,
    table_state,
    view_for,
)

#: Every lobby socket (``/ws/lobby/``) listens here: table-list changes and pool counts.
LOBBY_GROUP = "lobby"


def lobby_user_group(user_id: int) -> str:
    """A signed-in user's lobby sockets: quick play's ``matched`` goes there."""
    return f"lobby-user-{user_id}"


def public_group(table_id: int) -> str:
    return f"table-{table_id}-public"


def seat_group(table_id: int, user_id: int) -> str:
    return f"table-{table_id}-user-{user_id}"


def state_frame(
    table: Table,
    seats: list[SeatInfo],
    username: str | None,
    over: GameOverOutput | None = None,
    log: LogSince | None = None,
) -> dict[str, Any]:
    """The WebSocket ``state`` message for ``username`` (None: the public view). ``over``: the
    table's ``ratings`` and ``rematch`` as read once for every frame of a push, else read now;
    ``log``: the rows whose moves it carries (by default the whole log, read here)."""
    over = table_game_over(table) if over is None else over
    log = log_since(table) if log is None else log
    return {
        "type": "state",
        "version": table.version,
        "view": view_for(table, table_state(table), seats, username),
        "deadline": deadline_text(table),
        "clock": table_clock(table),
        "last_hand": table_last_hand(table),
        "status": table.status,
        "players": [s.username for s in seats],
        "seats": table.seats,
        **over,
        "moves": log.moves(username),
        "moves_since": log.since,
    }


def push_table(table: Table, seats: list[SeatInfo] | None = None, since: int | None = None) -> None:
    """Send every socket on ``table`` its current view (``seats``: as the caller read them)
    and the moves of the rows after version ``since``, where the change began (None: it added
    no row)."""
    seats = table_seats(table) if seats is None else seats
    over = table_game_over(table)  # everyone's: read once
    log = log_since(table, table.version if since is None else since)
    messages = [
        (
            seat_group(table.pk, s.user_id),
            {"type": "table.state", "frame": state_frame(table, seats, s.username, over, log)},
        )
        for s in seats
    ]
    public = state_frame(table, seats, None, over, log)
    messages.append((public_group(table.pk), {"type": "table.state", "frame": public}))
    if lists_change(table, since):
        listed = listing_entry(table, [s.username for s in seats])
        messages.append((LOBBY_GROUP, {"type": "lobby.table", "table": listed}))
    group_send_many(messages)


def lists_change(table: Table, since: int | None) -> bool:
    """Whether a change pushed may change the lobby's lists: anything while the table waits
    (a seat taken or given up) or once it is aborted, its start (a change that begins at
    version 0), its end (a change that logged rows); not the moves of a game in play, nor a
    finished table's connection flags and rematch answers."""
    if table.status in (Table.Status.WAITING, Table.Status.ABORTED):
        return True
    if table.status == Table.Status.PLAYING:
        return since == 0
    return since is not None


def on_commit_created(table: Table) -> None:
    """Tell the lobby of a new table once it commits: nobody listens to its own groups yet.
    A table started in the same transaction (an event's, quick play's) is told by its start."""

    def send() -> None:
        if table.status == Table.Status.WAITING:
            names = [s.username for s in table_seats(table)]
            group_send_many(
                [(LOBBY_GROUP, {"type": "lobby.table", "table": listing_entry(table, names)})]
            )

    transaction.on_commit(send)


def push_table_id(table_id: int) -> None:
    table = Table.objects.select_related("ruleset", "creator").filter(pk=table_id).first()
    if table is not None:
        push_table(table)


def push_left(table: Table, user_id: int) -> None:
    """Tell the sockets of a player who gave up their seat: the public frame, in which they
    are no longer seated, sent to their old seat group (the consumer then moves them)."""
    frame = state_frame(table, table_seats(table), None, log=log_since(table, table.version))
    group_send_many([(seat_group(table.pk, user_id), {"type": "table.state", "frame": frame})])


def on_commit_left(table: Table, user_id: int) -> None:
    transaction.on_commit(lambda: push_left(table, user_id))


def on_commit_table(
    table: Table, seats: list[SeatInfo] | None = None, since: int | None = None
) -> None:
    """Push ``table`` once the current transaction commits (nothing if it rolls back);
    ``since``: the version the change began at (None: it logged nothing)."""
    transaction.on_commit(lambda: push_table(table, seats, since))
