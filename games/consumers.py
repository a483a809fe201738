"""The table socket ``/ws/tables/{id}/`` (PROTOCOL.md, WebSocket): thin, like the REST views.

Each connection listens to its table's one group (``games.push.table_group``), whose pushes hold
every seat's frame and the public frame, each encoded once: a connection sends its seated user's
own frame, or the public one, as the text it came in. A seated connection is counted on its seat
(``services.seat_connected``), which is all the ``connected`` flag in the views is; opening or
closing a socket never changes the game.

Frames from the group may arrive out of order when several processes push (each push is built
after its own commit), so a connection never sends a frame older than the last one it sent.
Equal versions are sent again only when they differ (a changed ``connected`` flag, say).

While the table waits for players, each frame a connection sends carries that connection's user's
``actions`` (``games.refusals.seat_actions``: join, leave, start), read per connection since the
public frame is shared; once the game has begun frames go out as the group sent them.
"""

from __future__ import annotations

import json
import time
from contextlib import suppress
from typing import Any

from channels.consumer import get_handler_name
from channels.db import database_sync_to_async
from channels.exceptions import StopConsumer
from django.db import DatabaseError

from chat.socket import ChatSocket
from config.errors import ServiceError
from config.jsontext import dumps, loads
from config.unavailable import CLOSE_TRY_AGAIN, is_unavailable, unavailable_error
from config.ws_limit import RateLimitedConsumer
from games import clock_services, rematch, services
from games.chat_rooms import table_room_keys, table_rooms_read
from games.engine.errors import BAD_REQUEST, NOT_SEATED
from games.errors import TableError
from games.models import Seat, Table
from games.push import CONNECTION_WORK, Encoded, encode_frame, state_frame, table_group
from games.refusals import NO_ACTIONS, SeatActions, seat_actions
from games.selectors import log_since, table_get, table_read, table_seats, view_for

CLOSE_NOT_FOUND = 4404  # application range (4000-4999): no such table


def _db(func: Any) -> Any:
    """``func`` run in a thread pool with Django's connection handling.

    Channels' default (``thread_sensitive``) runs every database call of the process in one
    thread, so one table's row lock or PostgreSQL round trip would hold up every other table's.
    Each call here is a whole service call with its own transaction, so any thread will do.
    """
    return database_sync_to_async(func, thread_sensitive=False)


def _db_socket(func: Any) -> Any:
    """``func`` (a socket's opening or closing) on the threads kept for that
    (``push.CONNECTION_WORK``), so a storm of openings never delays a table's actions."""
    return database_sync_to_async(func, thread_sensitive=False, executor=CONNECTION_WORK)


def _is_seated(table_id: int, user: Any) -> bool:
    """Whether ``user`` (None: anonymous) sits at the table.

    :raises TableError: ``not_found``.
    """
    table = table_get(table_id)
    return user is not None and Seat.objects.filter(table=table, user=user).exists()


def _frame(table_id: int, user: Any, seated: bool) -> dict[str, Any]:
    """The current ``state`` frame for ``user`` (None: anonymous): their own view when
    ``seated``, else the public view; while the table waits, with their ``actions``."""
    table = table_read(table_id)
    seats = table_seats(table)
    frame = state_frame(table, seats, user.username if seated else None)
    if frame["status"] == Table.Status.WAITING:
        frame["actions"] = seat_actions(table, user, seats)
    return frame


def _open(table_id: int, user: Any) -> tuple[bool, dict[str, Any], float]:
    """A connection opening (or its user's seat changing): count it on the user's seat if they
    have one, and read its first frame, in one trip to the database. Returns whether it is
    seated, the frame, and when it was read (as pushes say: ``games.push``).

    :raises TableError: ``not_found``.
    """
    seated = user is not None and services.seat_connected(
        table_id=table_id, user_id=user.pk, delta=1
    )
    read_at = time.time()  # after the count: a push read before it is older than this frame
    table = table_read(table_id)
    seats = table_seats(table)
    frame = state_frame(table, seats, user.username if seated else None)
    if frame["status"] == Table.Status.WAITING:
        frame["actions"] = seat_actions(table, user, seats)
    return seated, frame, read_at


def _actions(table_id: int, user: Any) -> SeatActions:
    """What ``user`` may do with a seat now (``games.refusals``); nothing at a table gone."""
    try:
        table = table_get(table_id)
    except TableError:
        return NO_ACTIONS.copy()
    return seat_actions(table, user, table_seats(table))


def _repeat_frame(result: services.ActionResult, username: str) -> dict[str, Any]:
    """The ``state`` frame that answered the change a repeated ``client_id`` made."""
    table, seats = result.table, result.seats
    # The moves of the change's own rows, as its push told them: a client that missed an
    # earlier frame sees a ``moves_since`` past what it holds and syncs.
    frame = state_frame(table, seats, username, log=log_since(table, result.since))
    if result.version != table.version:
        frame["version"] = result.version
        frame["view"] = view_for(table, result.state, seats, username)
        # The moves as far as the frame's version: the later ones come with their own pushes.
        frame["moves"] = [m for m in frame["moves"] if m["version"] <= result.version]
    return frame


class TableConsumer(ChatSocket, RateLimitedConsumer):
    """One socket on one table: sends ``state`` and ``error`` frames, takes ``action``,
    ``back``, ``rematch``, ``chat`` and ``sync`` messages, each frame under the size and rate
    limits of ``config.ws_limit``; with ``?chat=1``, the table's chat too (``chat.socket``:
    the rooms ``games.chat_rooms`` lets this reader read, asked again when a seat is taken or
    left and when the game ends)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.table_id = 0
        self.user: Any = None  # None for an anonymous visitor
        self.group: str | None = None  # the table's group, once joined
        self.seated = False  # sending the seat's frames, counted on the seat
        self.version = -1  # of the last state frame sent
        self.last_head = ""  # the last state frame's text without its moves
        self.read_at = 0.0  # when the freshest frame of that version sent was read
        self.chat_status = ""  # the table's status when the chat rooms were last decided

    # --- connection ------------------------------------------------------------------------

    async def connect(self) -> None:
        self.table_id = int(self.scope["url_route"]["kwargs"]["table_id"])
        user = self.scope.get("user")
        self.user = user if user is not None and user.is_authenticated else None
        self.chat_setup(table_room_keys(self.table_id), self.user)
        try:
            # Listening, counted and its first frame read before the handshake completes: a
            # client whose connect has returned is already visible to the others, and what
            # others do next reaches it as pushes after this frame (the group is joined before
            # the read, so no change falls between the two).
            self.group = table_group(self.table_id)
            await self.channel_layer.group_add(self.group, self.channel_name)
            self.seated, frame, read_at = await _db_socket(_open)(self.table_id, self.user)
        except TableError:
            await self.close(code=CLOSE_NOT_FOUND)
            return
        except DatabaseError as exc:
            # The database is out of reach: the handshake completes only to say so, and the
            # socket closes with 4503 (try again later).
            await self.accept()
            await self._unavailable(exc, None)
            await self.close(code=CLOSE_TRY_AGAIN)
            return
        await self.accept()
        await self._send_state(frame, read_at=read_at)
        await self._chat_rooms(frame["status"])

    async def disconnect(self, code: int) -> None:
        await self._leave()
        await self.chat_leave()
        if self.group is not None:
            await self.channel_layer.group_discard(self.group, self.channel_name)
            self.group = None

    async def _chat_rooms(self, status: str) -> None:
        """Read the chat rooms this reader may read now, the table being at ``status``."""
        self.chat_status = status
        if self.chat_wanted:
            await self.chat_read(await _db(table_rooms_read)(self.table_id, self.user))

    async def dispatch(self, message: dict[str, Any]) -> None:
        """Channels' dispatch, without its connection clean-up, leaving the groups and the seat
        count if a handler fails: the server then drops the socket without a ``disconnect``,
        and the seat would otherwise show this player connected for good."""
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"no handler for message type {message['type']}")
        try:
            # Channels' own dispatch first closes stale database connections, a hop to the
            # one sync thread for every message (four frames per action, each queued behind
            # database work). Every query here runs through _db, which does that itself.
            await handler(message)
        except StopConsumer:
            raise
        except Exception:
            with suppress(Exception):
                await self.disconnect(0)
            raise

    async def _leave(self) -> None:
        """No longer counted on the seat (the socket closes, or its user gave the seat up)."""
        if self.seated:
            self.seated = False
            await _db_socket(services.seat_connected)(
                table_id=self.table_id, user_id=self.user.pk, delta=-1
            )

    async def _reseat(self, *, asked: bool = False) -> None:
        """The user took a seat or gave theirs up (through the REST API, say) while connected:
        counted afresh, and from now on their view or the public one, starting with a frame
        read now."""
        await self._leave()
        self.seated, frame, read_at = await _db_socket(_open)(self.table_id, self.user)
        await self._send_state(frame, asked=asked, read_at=read_at)
        await self._chat_rooms(frame["status"])

    async def _fresh_frame(self) -> dict[str, Any]:
        frame: dict[str, Any] = await _db(_frame)(self.table_id, self.user, self.seated)
        return frame

    async def _send_fresh(self, *, asked: bool = False) -> None:
        """Send the state as the database has it now."""
        read_at = time.time()
        await self._send_state(await self._fresh_frame(), asked=asked, read_at=read_at)

    # --- server to client ------------------------------------------------------------------

    async def table_frames(self, event: dict[str, Any]) -> None:
        """A push from ``games.push``: every reader's frame of the new state, encoded."""
        if self.user is not None and (self.user.username in event["players"]) != self.seated:
            await self._reseat()  # a seat taken or given up while connected
            return
        mine: Encoded | None = (
            event["frames"].get(str(self.user.pk)) if self.seated else event["public"]
        )
        if mine is None:  # not expected: a seated reader's frame is always there
            await self._send_fresh()
            return
        head, text = mine
        if event["status"] == Table.Status.WAITING:
            # The group's frame is everyone's; what may be done with a seat is this user's own.
            # Asked only while the table waits: a game's frames go out as they came.
            frame = {**loads(text), "actions": await _db(_actions)(self.table_id, self.user)}
            await self._send_state(frame, read_at=event["read_at"])
        else:
            await self._send_text(event["version"], head, text, read_at=event["read_at"])
        if event["status"] != self.chat_status:
            await self._chat_rooms(event["status"])  # the game is over: the players read the rail

    async def layer_reconnected(self, event: dict[str, Any]) -> None:
        """The channel layer lost its Redis connection and has it back (``config.layers``):
        pushes may have been lost meanwhile, so send the state as the database has it (nothing,
        when this socket has it already)."""
        await self._send_fresh()

    async def _send_state(
        self,
        frame: dict[str, Any],
        *,
        asked: bool = False,
        client_id: str | None = None,
        read_at: float = 0.0,
    ) -> None:
        """Send ``frame`` (see ``_send_text``); with ``client_id``, as the answer to the
        message that carried it (a repeated action's), which is not part of the state."""
        head, text = encode_frame(frame)
        if client_id is not None:
            text = f'{text[:-1]},"client_id":{dumps(client_id)}}}'
        await self._send_text(frame["version"], head, text, asked=asked, read_at=read_at)

    async def _send_text(
        self, version: int, head: str, text: str, *, asked: bool = False, read_at: float = 0.0
    ) -> None:
        """Send a state frame unless this client has as much already: a frame older than the
        last one sent is dropped, and so is one of the same version that is the same (moves
        aside: a frame of the version this client has holds no move it lacks) or was read
        before it (a ``connected`` flag already out of date). Asked for, one of the same
        version is sent anyway."""
        if version < self.version:
            return  # never take a client back in time, even when it asked
        if (
            not asked
            and version == self.version
            and (head == self.last_head or read_at < self.read_at)
        ):
            return
        if version != self.version or read_at > self.read_at:
            self.read_at = read_at
        self.version = version
        self.last_head = head
        await self.send(text_data=text)

    # --- client to server ------------------------------------------------------------------

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        # Too big, too fast, or after the server closed the socket (config.ws_limit).
        if await self.refused(text_data, bytes_data):
            return
        if text_data is None:
            await self.send_error(TableError(BAD_REQUEST, "messages are JSON text frames"), None)
            return
        try:
            content = json.loads(text_data)
        except (ValueError, RecursionError):
            await self.send_error(TableError(BAD_REQUEST, "a message must be valid JSON"), None)
            return
        await self.receive_json(content)

    async def receive_json(self, content: Any, **kwargs: Any) -> None:
        if not isinstance(content, dict):
            await self.send_error(TableError(BAD_REQUEST, "a message must be a JSON object"), None)
            return
        client_id = content.get("client_id")
        client_id = client_id if isinstance(client_id, str) else None
        kind = content.get("type")
        try:
            if kind == "sync":
                await self._resync()
            elif kind == "action":
                await self._act(content, client_id)
            elif kind == "back":
                await self._back(client_id)
            elif kind == "rematch":
                await self._rematch(content.get("accept"), client_id)
            elif kind == "chat":
                await self.chat_receive(content, client_id)
            else:
                await self.send_error(
                    TableError(BAD_REQUEST, "type: must be action, back, chat, rematch or sync"),
                    client_id,
                )
        except DatabaseError as exc:
            await self._unavailable(exc, client_id)

    async def _unavailable(self, exc: DatabaseError, client_id: str | None) -> None:
        """Tell the sender the database is out of reach, so it may send the same message again
        after ``retry_after`` seconds (``config.unavailable``); any other database error is a
        fault and raised. The transaction was rolled back and the socket stays open."""
        if not is_unavailable(exc):
            raise exc
        await self.send_error(unavailable_error(), client_id)

    async def _resync(self) -> None:
        """A fresh ``state``; the seat is looked up again, in case it changed unannounced."""
        try:
            seated = await _db(_is_seated)(self.table_id, self.user)
        except ServiceError as exc:
            await self.send_error(exc, None)
            return
        if seated != self.seated:
            await self._reseat(asked=True)
            return
        await self._send_fresh(asked=True)

    async def _back(self, client_id: str | None) -> None:
        """The same service as ``POST /api/tables/{id}/back/``. Like an action's, its new state
        reaches everyone by the push after its commit; a player who was not absent changes
        nothing, so nothing is sent."""
        if self.user is None:
            await self.send_error(
                TableError(NOT_SEATED, "log in and take a seat to play"), client_id
            )
            return
        try:
            await _db(clock_services.table_back)(table_id=self.table_id, user=self.user)
        except ServiceError as exc:
            await self.send_error(exc, client_id)

    async def _rematch(self, accept: object, client_id: str | None) -> None:
        """The same service as ``POST /api/tables/{id}/rematch/``: the offer's change reaches
        every page on the table by the push after its commit; a refusal goes to the sender."""
        if self.user is None:
            await self.send_error(
                TableError(NOT_SEATED, "log in: only the table's players answer a rematch"),
                client_id,
            )
            return
        try:
            await _db(rematch.table_rematch)(table_id=self.table_id, user=self.user, accept=accept)
        except ServiceError as exc:
            await self.send_error(exc, client_id)

    async def _act(self, content: dict[str, Any], client_id: str | None) -> None:
        """The same service as ``POST /api/tables/{id}/actions/``. The new state reaches
        everyone, the sender too, by the pushes after its commit."""
        if self.user is None:
            await self.send_error(
                TableError(NOT_SEATED, "log in and take a seat to play"), client_id
            )
            return
        try:
            result = await _db(services.table_apply_action)(
                table_id=self.table_id,
                user=self.user,
                action=content.get("action"),
                version=content.get("version"),
                client_id=content.get("client_id"),
            )
        except ServiceError as exc:
            await self.send_error(exc, client_id)
            return
        if result.repeated:
            # Nothing changed, so nothing is pushed: answer the sender alone, as the first time.
            frame = await _db(_repeat_frame)(result, self.user.username)
            if frame["version"] < self.version:
                frame = await self._fresh_frame()  # never take a client back in time
            await self._send_state(frame, asked=True, client_id=client_id)
