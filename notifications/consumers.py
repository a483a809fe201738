"""The user's own socket ``/ws/me/`` (session cookie or ``?token=KEY``): the bell's feed.

On connect it sends ``{"type": "unread", "unread": n}``; then each frame ``notifications.push``
sends the user's group: ``{"type": "notification", "notification": {...}, "unread": n}`` for a
new notice and ``{"type": "unread", "unread": n}`` once notices are read. A client sends
``{"type": "sync"}`` (after a reconnect) for the count again. Anonymous visitors are refused
(closed with 4401 before the handshake completes). Frames are limited in size and rate as on
every socket (``config.ws_limit``).
"""

from __future__ import annotations

from typing import Any

from channels.db import database_sync_to_async
from django.db import DatabaseError

from config.unavailable import CLOSE_TRY_AGAIN, is_unavailable, unavailable_error
from config.ws_limit import SyncOnlyConsumer
from notifications.push import user_group
from notifications.selectors import unread_count

CLOSE_NOT_SIGNED_IN = 4401  # application range (4000-4999): sign in first


def _db(func: Any) -> Any:
    # A short read of its own: any thread will do (see games.consumers).
    return database_sync_to_async(func, thread_sensitive=False)


class UserConsumer(SyncOnlyConsumer):
    """One socket of one signed-in user; takes ``sync`` only."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.user_id = 0
        self.group: str | None = None

    async def connect(self) -> None:
        user = self.scope.get("user")
        if user is None or not user.is_authenticated:
            await self.close(code=CLOSE_NOT_SIGNED_IN)
            return
        self.user_id = user.pk
        # Listening before the count is read: a notice made in between is pushed after it.
        self.group = user_group(self.user_id)
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()
        try:
            await self._send_unread()
        except DatabaseError as exc:
            await self._unavailable(exc)
            await self.close(code=CLOSE_TRY_AGAIN)

    async def disconnect(self, code: int) -> None:
        if self.group is not None:
            await self.channel_layer.group_discard(self.group, self.channel_name)
            self.group = None

    async def user_frame(self, message: dict[str, Any]) -> None:
        """A push from ``notifications.push``, sent as it came."""
        await self.send_json(message["frame"])

    async def layer_reconnected(self, message: dict[str, Any]) -> None:
        """Redis came back (``config.layers``): pushes may be lost, so the count again."""
        await self._send_unread()

    async def _send_unread(self) -> None:
        count = await _db(unread_count)(self.user_id)
        await self.send_json({"type": "unread", "unread": count})

    async def _unavailable(self, exc: DatabaseError) -> None:
        if not is_unavailable(exc):
            raise exc
        await self.send_error(unavailable_error(), None)

    async def synced(self) -> None:
        """``sync``: the unread count again."""
        await self._send_unread()
