"""Chat over another app's socket (the table's, the event's): a mixin for its consumer.

A connection reads chat only when its URL asks for it (``?chat=1``): bots and older clients,
which read frames in order, see no frame they do not know (PROTOCOL.md only ever adds). The
owning consumer names its rooms (``{"players": "table:12:players", ...}``), says which of them
its reader may read now (``chat_read``, called again whenever that changes: a seat taken or
left, a game over), and hands the client's ``chat`` messages to ``chat_receive``.

Frames sent: ``chat_history`` for each room as it is joined (and again for every room when the
reader's mutes change), ``chat_left`` for a room no longer readable (a spectator who took a
seat), ``chat`` for each new message, ``chat_deleted``, ``chat_switch``. The
pushes of a room are shared by all its readers, so each connection drops the messages of the
authors its own reader muted, with a mute set read on connect and again on each change.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs

from channels.db import database_sync_to_async

from accounts.models import User
from chat import services
from chat.access import room_access
from chat.errors import login_required
from chat.push import mutes_group, room_group
from chat.selectors import chat_room, muted_ids
from config.errors import BAD_REQUEST, ServiceError


def _db(func: Any) -> Any:
    # A whole short call with its own transaction: any thread will do (see games.consumers).
    return database_sync_to_async(func, thread_sensitive=False)


def _history(name: str, key: str, user: User | None) -> dict[str, Any]:
    room = chat_room(key, user, room_access(key, user))
    return {**room, "type": "chat_history", "room": name, "key": key}


class ChatSocket:
    """Mixed into a ``config.ws_limit.RateLimitedConsumer``, which calls ``chat_setup`` once it
    knows its rooms (``keys``: every room name of this socket and its key) and its reader."""

    # The consumer's own (annotations only: nothing here shadows them).
    channel_layer: Any
    channel_name: str
    scope: Any
    send_json: Any
    send_error: Any

    def chat_setup(self, keys: dict[str, str], user: User | None) -> None:
        self.chat_keys = keys
        self.chat_user = user
        self.chat_rooms: dict[str, str] = {}  # name -> key, joined
        self.chat_muted: set[int] = set()
        query = parse_qs(self.scope.get("query_string", b"").decode(errors="replace"))
        self.chat_wanted = query.get("chat") == ["1"]
        self.chat_mutes_joined = False

    # --- rooms -----------------------------------------------------------------------------

    async def chat_read(self, names: list[str]) -> None:
        """From now on read exactly the rooms ``names``: leave the others, join the new ones and
        send each new one's history (nothing unless the client asked for chat)."""
        if not self.chat_wanted:
            return
        if self.chat_user is not None and not self.chat_mutes_joined:
            self.chat_mutes_joined = True
            await self.channel_layer.group_add(mutes_group(self.chat_user.pk), self.channel_name)
            self.chat_muted = await _db(muted_ids)(self.chat_user)
        for name in [n for n in self.chat_rooms if n not in names]:
            key = self.chat_rooms.pop(name)
            await self.channel_layer.group_discard(room_group(key), self.channel_name)
            await self.send_json({"type": "chat_left", "room": name})  # no longer readable
        for name in [n for n in names if n not in self.chat_rooms]:
            key = self.chat_keys[name]
            # Joined before the history is read: no message can fall between the two.
            self.chat_rooms[name] = key
            await self.channel_layer.group_add(room_group(key), self.channel_name)
            await self.send_json(await _db(_history)(name, key, self.chat_user))

    async def chat_leave(self) -> None:
        for key in self.chat_rooms.values():
            await self.channel_layer.group_discard(room_group(key), self.channel_name)
        self.chat_rooms = {}
        if self.chat_mutes_joined and self.chat_user is not None:
            self.chat_mutes_joined = False
            group = mutes_group(self.chat_user.pk)
            await self.channel_layer.group_discard(group, self.channel_name)

    def _chat_name(self, key: str) -> str | None:
        return next((n for n, k in self.chat_rooms.items() if k == key), None)

    # --- pushes ----------------------------------------------------------------------------

    async def chat_message(self, event: dict[str, Any]) -> None:
        name = self._chat_name(event["room"])
        if name is None or event["author_id"] in self.chat_muted:
            return
        await self.send_json({"type": "chat", "room": name, "message": event["message"]})

    async def chat_deleted(self, event: dict[str, Any]) -> None:
        name = self._chat_name(event["room"])
        if name is not None:
            await self.send_json({"type": "chat_deleted", "room": name, "id": event["id"]})

    async def chat_switch(self, event: dict[str, Any]) -> None:
        name = self._chat_name(event["room"])
        if name is not None:
            await self.send_json({"type": "chat_switch", "room": name, "enabled": event["enabled"]})

    async def chat_mutes(self, event: dict[str, Any]) -> None:
        """This reader muted or unmuted someone (on any page): every room's history again."""
        self.chat_muted = await _db(muted_ids)(self.chat_user)
        for name, key in self.chat_rooms.items():
            await self.send_json(await _db(_history)(name, key, self.chat_user))

    # --- client to server ------------------------------------------------------------------

    async def chat_receive(self, content: dict[str, Any], client_id: str | None) -> None:
        """A client's ``{"type": "chat", "room", "text", "client_id"}``: posted through the
        service; the message reaches its readers (the sender too) by the room's push, a
        refusal reaches the sender alone as an error frame."""
        default = next(iter(self.chat_keys)) if len(self.chat_keys) == 1 else None
        name = content.get("room", default)
        key = self.chat_keys.get(name) if isinstance(name, str) else None
        if key is None:
            rooms = " or ".join(self.chat_keys)
            await self.send_error(ServiceError(BAD_REQUEST, f"room: must be {rooms}"), client_id)
            return
        if self.chat_user is None:
            await self.send_error(login_required(), client_id)
            return
        try:
            await _db(services.chat_post)(room=key, author=self.chat_user, text=content.get("text"))
        except ServiceError as exc:
            await self.send_error(exc, client_id)
