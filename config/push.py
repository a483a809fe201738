"""The one way to push a message to sockets: `group_send`, callable from any thread.

The in-memory channel layer keeps asyncio queues that belong to the server's event loop. A push
from another thread (an embedded Celery worker, say) must therefore run on that loop, handed over
with `asyncio.run_coroutine_threadsafe`; sending from a fresh loop would touch those queues from
the wrong thread. The ASGI application records its loop through `ServerLoopMiddleware`. Where no
server loop is known (a separate `celery worker` process on Redis, a test), the push runs on a
loop of its own, which the Redis layer supports.
"""

import asyncio
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

# Long enough for a Redis round trip under load, short enough not to stall a worker thread.
PUSH_TIMEOUT_SECONDS = 5.0

_server_loop: asyncio.AbstractEventLoop | None = None


def set_server_loop(loop: asyncio.AbstractEventLoop | None) -> None:
    """Record the event loop that serves sockets (None forgets it)."""
    global _server_loop
    _server_loop = loop


def _running_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


def group_send(group: str, message: dict[str, Any]) -> None:
    """Send `message` to every channel in `group`; blocks until the layer has taken it."""
    layer = get_channel_layer()
    if layer is None:
        raise RuntimeError("CHANNEL_LAYERS has no default layer")
    loop = _server_loop
    if loop is not None and loop.is_running() and _running_loop() is not loop:
        future = asyncio.run_coroutine_threadsafe(layer.group_send(group, message), loop)
        future.result(timeout=PUSH_TIMEOUT_SECONDS)
    else:
        async_to_sync(layer.group_send)(group, message)


class ServerLoopMiddleware:
    """ASGI wrapper that records the server's running loop on the first connection."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if _server_loop is None:
            set_server_loop(asyncio.get_running_loop())
        await self.app(scope, receive, send)


def group_send_many(messages: list[tuple[str, dict[str, Any]]]) -> None:
    """Send each ``(group, message)`` in order, in one hand-over to the layer's loop."""
    if not messages:
        return
    layer = get_channel_layer()
    if layer is None:
        raise RuntimeError("CHANNEL_LAYERS has no default layer")

    async def send_all() -> None:
        for group, message in messages:
            await layer.group_send(group, message)

    loop = _server_loop
    if loop is not None and loop.is_running() and _running_loop() is not loop:
        asyncio.run_coroutine_threadsafe(send_all(), loop).result(timeout=PUSH_TIMEOUT_SECONDS)
    else:
        async_to_sync(send_all)()
