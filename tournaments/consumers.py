"""The event socket ``/ws/events/<slug>/``: anyone may watch an event (a draft only its
organizers). It listens to the event's group (``tournaments.push``) and, for each change that
committed, sends ``{"type": "event", "what", "status", "round"}``: what changed, the event's
status and its current round's number, read fresh. The page then re-reads what it shows; a
client that reconnects sends ``{"type": "sync"}`` and gets a frame (``what``: ``sync``) at once.
Its frames are limited in size and rate as the table socket's are (``config.ws_limit``).
"""

from __future__ import annotations

from typing import Any

from channels.db import database_sync_to_async
from django.db import DatabaseError

from chat.socket import ChatSocket
from config.errors import BAD_REQUEST, error_frame
from config.unavailable import is_unavailable, unavailable_error
from config.ws_limit import RateLimitedConsumer
from tournaments.chat_rooms import event_room_key
from tournaments.errors import EventError
from tournaments.models import Tournament
from tournaments.push import event_group
from tournaments.selectors import current_round, event_get

CLOSE_NOT_FOUND = 4404  # application range (4000-4999): no such event


def _db(func: Any) -> Any:
    # Each call is a short read of its own; any thread will do (see games.consumers).
    return database_sync_to_async(func, thread_sensitive=False)


def _event_id(slug: str, user: Any) -> int | None:
    try:
        return event_get(slug, user).pk
    except EventError:
        return None


def _frame(event_id: int, what: str) -> dict[str, Any]:
    event = Tournament.objects.get(pk=event_id)
    latest = current_round(event)
    return {
        "type": "event",
        "what": what,
        "status": event.status,
        "round": latest.number if latest else None,
    }


class EventConsumer(ChatSocket, RateLimitedConsumer):
    """One watcher of one event; takes ``sync`` and ``chat`` messages, under the size and rate
    limits of ``config.ws_limit``; with ``?chat=1`` it reads the event's chat room
    (``chat.socket``, ``tournaments.chat_rooms``)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.event_id = 0
        self.group: str | None = None

    async def connect(self) -> None:
        slug = self.scope["url_route"]["kwargs"]["slug"]
        user = self.scope.get("user")
        user = user if user is not None and user.is_authenticated else None
        found = await _db(_event_id)(slug, user)
        if found is None:
            await self.close(code=CLOSE_NOT_FOUND)
            return
        self.event_id = found
        self.chat_setup({"event": event_room_key(found)}, user)
        self.group = event_group(found)
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()
        await self.chat_read(["event"])  # whoever may see the event reads its chat

    async def disconnect(self, code: int) -> None:
        if self.group is not None:
            await self.channel_layer.group_discard(self.group, self.channel_name)
            self.group = None
            await self.chat_leave()

    async def event_changed(self, message: dict[str, Any]) -> None:
        """A push from ``tournaments.push.on_commit_event``."""
        await self.send_json(await _db(_frame)(self.event_id, message["what"]))

    async def layer_reconnected(self, message: dict[str, Any]) -> None:
        """Redis came back after an outage (``config.layers``): changes may have been missed, so
        the page is told to re-read, as after its own ``sync``."""
        await self.send_json(await _db(_frame)(self.event_id, "sync"))

    async def receive_json(self, content: Any, **kwargs: Any) -> None:
        if isinstance(content, dict) and content.get("type") == "chat":
            client_id = content.get("client_id")
            await self.chat_receive(content, client_id if isinstance(client_id, str) else None)
            return
        if isinstance(content, dict) and content.get("type") == "sync":
            try:
                await self.send_json(await _db(_frame)(self.event_id, "sync"))
            except DatabaseError as exc:
                if not is_unavailable(exc):
                    raise
                # Retryable, and the socket stays open (config.unavailable).
                await self.send_json(error_frame(unavailable_error()))
            return
        await self.send_json(error_frame(EventError(BAD_REQUEST, "type: must be chat or sync")))

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        if await self.refused(text_data, bytes_data):
            return
        try:
            await super().receive(text_data=text_data, bytes_data=bytes_data)
        except ValueError:  # not JSON
            await self.send_json(error_frame(EventError(BAD_REQUEST, "a message must be JSON")))
