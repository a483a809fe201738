"""The lobby socket ``/ws/lobby/`` (docs/lobby.md): anyone may listen; a signed-in player also
hears their own quick play.

Every connection listens to ``LOBBY_GROUP`` (``games.push``): ``table`` frames as tables are
created, seated, started, finished or aborted, and ``pools`` frames as the pools' counts change.
A signed-in player's connections also listen to their own group (``lobby_user_group``):
``matched`` when quick play seated them, ``me`` when their place in quick play changed; and
they are counted (``presence_change``): a waiter whose every lobby socket has been closed for
the grace period leaves the pool. On connect, and on ``{"type": "sync"}``: ``pools`` and ``me``.
"""

from __future__ import annotations

from typing import Any

from channels.db import database_sync_to_async
from django.db import DatabaseError
from django.urls import reverse

from config.errors import error_frame
from config.unavailable import is_unavailable, unavailable_error
from config.ws_limit import SyncOnlyConsumer
from games.push import LOBBY_GROUP, lobby_user_group
from lobby.selectors import pool_counts, pool_me
from lobby.services import presence_change


def _db(func: Any) -> Any:
    # Each call is a short read or write of its own; any thread will do (see games.consumers).
    return database_sync_to_async(func, thread_sensitive=False)


def _hello(user: Any) -> list[dict[str, Any]]:
    return [{"type": "pools", "pools": pool_counts()}, {"type": "me", "me": pool_me(user)}]


class LobbyConsumer(SyncOnlyConsumer):
    """One lobby page (or bot); takes ``sync`` only, under the limits of ``config.ws_limit``."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.user: Any = None
        self.groups_joined: list[str] = []
        self.counted = False

    async def connect(self) -> None:
        user = self.scope.get("user")
        self.user = user if user is not None and user.is_authenticated else None
        groups = [LOBBY_GROUP]
        if self.user is not None:
            groups.append(lobby_user_group(self.user.pk))
        for group in groups:
            await self.channel_layer.group_add(group, self.channel_name)
            self.groups_joined.append(group)
        try:
            if self.user is not None:
                await _db(presence_change)(user_id=self.user.pk, delta=1)
                self.counted = True
            frames = await _db(_hello)(self.user)
        except DatabaseError as exc:
            if not is_unavailable(exc):
                raise
            await self.accept()
            await self.send_json(error_frame(unavailable_error()))
            return
        await self.accept()
        for frame in frames:
            await self.send_json(frame)

    async def disconnect(self, code: int) -> None:
        for group in self.groups_joined:
            await self.channel_layer.group_discard(group, self.channel_name)
        self.groups_joined = []
        if self.counted:
            self.counted = False
            await _db(presence_change)(user_id=self.user.pk, delta=-1)

    # --- pushes ---------------------------------------------------------------------------

    async def lobby_table(self, message: dict[str, Any]) -> None:
        await self.send_json({"type": "table", "table": message["table"]})

    async def lobby_pools(self, message: dict[str, Any]) -> None:
        await self.send_json({"type": "pools", "pools": message["pools"]})

    async def lobby_matched(self, message: dict[str, Any]) -> None:
        table = message["table"]
        url = reverse("games:table", args=[table])
        await self.send_json({"type": "matched", "table": table, "url": url})

    async def lobby_me(self, message: dict[str, Any]) -> None:
        await self.send_json({"type": "me", "me": message["me"]})

    async def layer_reconnected(self, message: dict[str, Any]) -> None:
        """Redis came back (``config.layers``): pushes may be lost, so the counts and the
        player's place again, and ``resync`` so the page re-reads its lists."""
        for frame in await _db(_hello)(self.user):
            await self.send_json(frame)
        await self.send_json({"type": "resync"})

    # --- from the client ------------------------------------------------------------------

    async def synced(self) -> None:
        """``sync``: the counts and the player's place again."""
        for frame in await _db(_hello)(self.user):
            await self.send_json(frame)
