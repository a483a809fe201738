"""Pushes of a table's state to its sockets, each person their own view (after commit).

Every socket on a table listens to the table's one group (``table_group``). A change is pushed
there as one message (``table.frames``) holding each seated player's frame and the public frame
(spectators, anonymous visitors), each already encoded as JSON text: one Redis ``PUBLISH`` per
change, and one encoding per seat instead of one per socket. Each socket sends the frame of its
own seat, or the public one: a socket never sends a frame that is not its reader's (DESIGN.md
decision 5); the message itself travels only between the server's own processes, as each seat's
frame did before.

A change that moves the table in or out of the lobby's lists, or changes what they show (created,
a seat taken or given up, started, finished, aborted), is also sent to ``LOBBY_GROUP``, every
lobby socket, as ``{"type": "table", "table": ...}`` (docs/lobby.md): here, where every change
of every table passes after its commit, so whoever changes a table (a player, an event, a
rematch, quick play) need not remember the lobby. Moves of a game in play are not its business.

Each frame carries the reader's ``moves`` after version ``moves_since`` (docs/tables.md,
"Moves"): a push, the rows its change added (those the change wrote, kept in memory, or read
once for all its frames); a frame read on connect or ``sync``, the whole list.

Frames of one version differ only in ``connected`` flags, and a push read before a socket's
first frame may reach it after that frame: each push says when it was read (``read_at``, the
server's clock), and a socket drops a frame of the version it has that was read before the one
it sent.

A socket opening or closing changes only a ``connected`` flag: those pushes are gathered per
table for ``PRESENCE_DELAY`` seconds (``push_presence``), so the four players of a table that
opens at once cost one push, not four.
"""

from __future__ import annotations

import asyncio
import logging
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from django.db import close_old_connections, transaction

from config.jsontext import dumps
from config.push import group_send_many, nobody_listens, server_loop
from games.listing import listing_entry
from games.models import Table
from games.payloads import GameOverOutput
from games.rows import table_row
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

logger = logging.getLogger(__name__)

#: Every lobby socket (``/ws/lobby/``) listens here: table-list changes and pool counts.
LOBBY_GROUP = "lobby"

#: How long a socket's opening or closing waits for others on its table before one push tells
#: them all: short next to a reconnect, long enough to gather a table's players opening at once.
PRESENCE_DELAY = 0.15

#: Sockets opening and closing (a seat counted, a first frame read) and the presence pushes they
#: cause run on threads of their own: a round opening hundreds of sockets at once queues there,
#: not ahead of the actions of the tables already playing, whose database calls use the
#: server's default pool (docs/scaling.md, "The connection storm").
CONNECTION_WORK = ThreadPoolExecutor(max_workers=2, thread_name_prefix="sockets")

#: An encoded frame: its JSON text without the moves (what two frames of one version are
#: compared by) and its whole JSON text (what the socket sends).
Encoded = tuple[str, str]

# What a frame says of the game besides its moves: a push's moves are the rows its change
# added, a fresh frame's the whole log, so two frames of one version differ in these alone.
_MOVES = ("moves", "moves_since")


def lobby_user_group(user_id: int) -> str:
    """A signed-in user's lobby sockets: quick play's ``matched`` goes there."""
    return f"lobby-user-{user_id}"


def table_group(table_id: int) -> str:
    """Every socket on the table, seated or watching: its ``table.frames`` pushes."""
    return f"table-{table_id}"


def state_frame(
    table: Table,
    seats: list[SeatInfo],
    username: str | None,
    over: GameOverOutput | None = None,
    log: LogSince | None = None,
    shared: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The WebSocket ``state`` message for ``username`` (None: the public view). ``over``: the
    table's ``ratings`` and ``rematch`` as read once for every frame of a push, else read now;
    ``log``: the rows whose moves it carries (by default the whole log, read here);
    ``shared``: the parts every frame of a push has alike (``frame_shared``)."""
    shared = frame_shared(table, seats, over) if shared is None else shared
    log = log_since(table) if log is None else log
    return {
        "type": "state",
        "version": table.version,
        "view": view_for(table, table_state(table), seats, username),
        **shared,
        "moves": log.moves(username),
        "moves_since": log.since,
    }


def frame_shared(
    table: Table, seats: list[SeatInfo], over: GameOverOutput | None = None
) -> dict[str, Any]:
    """What every reader's ``state`` frame of the table says alike (all but the view and the
    moves): made once for all the frames of a push."""
    over = table_game_over(table) if over is None else over
    return {
        "deadline": deadline_text(table),
        "clock": table_clock(table),
        "last_hand": table_last_hand(table),
        "status": table.status,
        "players": [s.username for s in seats],
        "seats": table.seats,
        **over,
    }


def encode_frame(frame: dict[str, Any]) -> Encoded:
    """``frame`` as JSON text, and the text of all but its moves (``Encoded``). The moves come
    last, so the whole text is the rest's text with them added: one encoding gives both."""
    head = dumps({k: v for k, v in frame.items() if k not in _MOVES})
    if not all(k in frame for k in _MOVES) or head == "{}":
        return head, dumps(frame)
    moves = dumps(frame["moves"])
    return head, f'{head[:-1]},"moves":{moves},"moves_since":{frame["moves_since"]}}}'


def push_table(table: Table, seats: list[SeatInfo] | None = None, since: int | None = None) -> None:
    """Send every socket on ``table`` its current view (``seats``: as the caller read them)
    and the moves of the rows after version ``since``, where the change began (None: it added
    no row)."""
    listed = lists_change(table, since)
    if nobody_listens([table_group(table.pk), *([LOBBY_GROUP] if listed else [])]):
        return  # no socket in this process to tell (embedded mode): nothing to build
    read_at = time.time()  # before the read: the frames are at least this fresh
    seats = table_seats(table) if seats is None else seats
    shared = frame_shared(table, seats)  # everyone's: read once
    log = log_since(table, table.version if since is None else since)
    frames = {
        str(s.user_id): encode_frame(state_frame(table, seats, s.username, log=log, shared=shared))
        for s in seats
    }
    message = {
        "type": "table.frames",
        "version": table.version,
        "read_at": read_at,
        "status": table.status,
        "players": [s.username for s in seats],
        "frames": frames,
        "public": encode_frame(state_frame(table, seats, None, log=log, shared=shared)),
    }
    messages: list[tuple[str, dict[str, Any]]] = [(table_group(table.pk), message)]
    if listed:
        entry = listing_entry(table, [s.username for s in seats])
        messages.append((LOBBY_GROUP, {"type": "lobby.table", "table": entry}))
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
    table = table_row(table_id)  # a statement written once (``games.rows``)
    if table is not None:
        push_table(table)


# The tables whose presence push is waiting on the server loop (only that loop touches it).
_presence_due: set[int] = set()


def push_presence(table_id: int) -> None:
    """Push the table once a socket has opened or closed on it (a ``connected`` flag changed).

    Under a server the push waits ``PRESENCE_DELAY`` seconds and covers every other opening or
    closing on the table meanwhile; elsewhere (a test without a server) it is sent at once."""
    loop = server_loop()
    if loop is None:
        push_table_id(table_id)
        return
    loop.call_soon_threadsafe(_presence_later, loop, table_id)


def _presence_later(loop: asyncio.AbstractEventLoop, table_id: int) -> None:
    if table_id in _presence_due:
        return  # a push already waits: it will read this change too
    _presence_due.add(table_id)
    loop.call_later(PRESENCE_DELAY, _presence_now, loop, table_id)


def _presence_now(loop: asyncio.AbstractEventLoop, table_id: int) -> None:
    _presence_due.discard(table_id)  # before the read: a change after it is pushed again
    loop.run_in_executor(CONNECTION_WORK, _push_presence_read, table_id)


def _push_presence_read(table_id: int) -> None:
    close_old_connections()
    try:
        table = table_row(table_id)
        # A waiting table's frames and lobby entry show no ``connected`` flag (no view yet):
        # its sockets opening and closing change nothing anyone sees.
        if table is not None and table.status != Table.Status.WAITING:
            push_table(table)
    except Exception:
        # Only a connection flag is lost: the next change or a ``sync`` brings it.
        logger.exception("presence push of table %s failed", table_id)
    finally:
        close_old_connections()


def on_commit_table(
    table: Table, seats: list[SeatInfo] | None = None, since: int | None = None
) -> None:
    """Push ``table`` once the current transaction commits (nothing if it rolls back);
    ``since``: the version the change began at (None: it logged nothing)."""
    transaction.on_commit(lambda: push_table(table, seats, since))
