"""The one way to push messages to sockets: `group_send_many` (or `group_send` for one), callable
from any thread.

The in-memory channel layer keeps asyncio queues that belong to the server's event loop. A push
from another thread (a sync view, a consumer's database call, an embedded Celery worker) must
therefore run on that loop, handed over with `call_soon_threadsafe`; sending from a fresh loop
would touch those queues from the wrong thread. The ASGI application records its loop through
`ServerLoopMiddleware`. Where no server loop is known (a separate `celery worker` process on
Redis), pushes go to a loop this process keeps for them in a thread of its own, so the Redis
layer's connection is made once, not once per push (a fresh loop per push costs a new
connection: about 4 ms against 0.3 ms), and the worker goes on with its next task while they
are sent. The in-memory layer, which exists only for one process's server loop, falls back to a
loop per call (tests without a server).
"""

import asyncio
import logging
import os
import threading
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import InMemoryChannelLayer, get_channel_layer

logger = logging.getLogger(__name__)

# Long enough for a Redis round trip under load, short enough not to stall a worker thread.
PUSH_TIMEOUT_SECONDS = 5.0

_server_loop: asyncio.AbstractEventLoop | None = None


def set_server_loop(loop: asyncio.AbstractEventLoop | None) -> None:
    """Record the event loop that serves sockets (None forgets it)."""
    global _server_loop
    _server_loop = loop


def server_loop() -> asyncio.AbstractEventLoop | None:
    """The event loop serving this process's sockets while it runs, else None."""
    loop = _server_loop
    return loop if loop is not None and loop.is_running() else None


def _running_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


def group_send(group: str, message: dict[str, Any]) -> None:
    """Send `message` to every channel in `group` (see `group_send_many`)."""
    group_send_many([(group, message)])


class ServerLoopMiddleware:
    """ASGI wrapper that records the server's running loop on the first connection."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if _server_loop is None:
            set_server_loop(asyncio.get_running_loop())
        await self.app(scope, receive, send)


def nobody_listens(groups: list[str]) -> bool:
    """Whether a push to ``groups`` is sure to reach nobody: the in-memory layer (one process)
    with no member in any of them. With Redis other processes may listen, so never."""
    layer = get_channel_layer()
    return isinstance(layer, InMemoryChannelLayer) and not any(g in layer.groups for g in groups)


def group_send_many(messages: list[tuple[str, dict[str, Any]]]) -> None:
    """Send each ``(group, message)`` in order.

    From a thread other than the server loop's (a sync view, a consumer's database call, a
    Celery task) the messages are handed to a loop's sender and this returns at once: the
    thread, which may be the one that runs every database call of the process, never waits on
    Redis. One sender per loop sends everything in the order it was handed over, so pushes never
    overtake each other. The loop is the server's where there is one, else this process's own
    push loop; only the in-memory layer without a server loop (a test) sends and waits.
    """
    if not messages:
        return
    loop = _server_loop
    if loop is not None and loop.is_running() and _running_loop() is not loop:
        loop.call_soon_threadsafe(_enqueue, list(messages))
        return
    layer = get_channel_layer()
    if layer is None:
        raise RuntimeError("CHANNEL_LAYERS has no default layer")
    if _running_loop() is None and not isinstance(layer, InMemoryChannelLayer):
        _push_loop().call_soon_threadsafe(_enqueue, list(messages))
        return
    if nobody_listens([g for g, _ in messages]):
        # Nobody in this process listens (a management command, a test without sockets): the
        # in-memory layer would drop every message, after a thread and a loop made to send it.
        return

    async def send_all() -> None:
        for group, message in messages:
            await layer.group_send(group, message)

    async_to_sync(send_all)()


# This process's own loop for pushes when it serves no sockets (a Celery worker), and its thread.
_own: tuple[asyncio.AbstractEventLoop, threading.Thread] | None = None
_own_lock = threading.Lock()


def _push_loop() -> asyncio.AbstractEventLoop:
    global _own
    with _own_lock:
        if _own is None or not _own[1].is_alive():
            loop = asyncio.new_event_loop()
            thread = threading.Thread(target=loop.run_forever, name="push-loop", daemon=True)
            thread.start()
            _own = (loop, thread)
        return _own[0]


def _forget_push_loop() -> None:
    """In a forked child (a prefork worker) the parent's thread does not exist: start afresh."""
    global _own, _own_lock
    _own, _own_lock = None, threading.Lock()


os.register_at_fork(after_in_child=_forget_push_loop)


def drain(timeout: float = PUSH_TIMEOUT_SECONDS) -> None:
    """Wait until this process's own push loop has sent everything handed to it (a worker
    process calls this as it shuts down)."""
    own = _own
    if own is None or not own[1].is_alive():
        return
    future = asyncio.run_coroutine_threadsafe(_sent(), own[0])
    try:
        future.result(timeout)
    except TimeoutError:
        logger.warning("pushes still unsent after %s s", timeout)


async def _sent() -> None:
    sender = _senders.get(asyncio.get_running_loop())
    while sender is not None and sender.task is not None and not sender.task.done():
        await asyncio.shield(sender.task)


@dataclass
class _Sender:
    """One loop's pushes not sent yet, in order, and the task sending them. The task ends when
    the queue is empty (nothing lingers on a loop that closes) and starts again with the next."""

    pending: deque[list[tuple[str, dict[str, Any]]]] = field(default_factory=deque)
    task: asyncio.Task[None] | None = None


# Each loop's sender; a loop only ever touches its own entry, from its own thread.
_senders: dict[asyncio.AbstractEventLoop, _Sender] = {}
_senders_lock = threading.Lock()


def _enqueue(messages: list[tuple[str, dict[str, Any]]]) -> None:
    """Runs on the sending loop: queue ``messages`` and make sure its sender runs."""
    loop = asyncio.get_running_loop()
    with _senders_lock:
        sender = _senders.get(loop)
        if sender is None:  # a new loop: forget those that have closed since
            for closed in [k for k in _senders if k.is_closed()]:
                del _senders[closed]
            sender = _senders[loop] = _Sender()
    sender.pending.append(messages)
    if sender.task is None or sender.task.done():
        sender.task = loop.create_task(_send_pending(sender))


async def _send_pending(sender: _Sender) -> None:
    # Only one sender task runs per loop, and _enqueue runs on the same loop between its
    # awaits, so everything queued is sent, in order.
    layer = get_channel_layer()
    while sender.pending:
        for group, message in sender.pending.popleft():
            try:
                await asyncio.wait_for(layer.group_send(group, message), PUSH_TIMEOUT_SECONDS)
            except Exception:
                # A lost push costs a client one frame (it resyncs on the next change or on
                # `sync`); it must never stop the pushes that follow.
                logger.exception("push to %s failed", group)
