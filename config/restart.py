"""Graceful restarts: on SIGTERM every socket is closed with 1012 (service restart), then the
server stops.

Without this, daphne cancels every consumer when it stops and the process exits under the
sockets: clients see an abnormal close (1006) and back off before trying again, and consumers
never run their ``disconnect`` (lobby presence, groups). With it, on SIGTERM the server

1. stops listening, so a client that reconnects at once (or the proxy retrying) reaches another
   server, or is refused until this one is back;
2. sends every open socket a close frame with code 1012, which clients read as "reconnect now"
   (``static/js/socket.js``; PROTOCOL.md), and waits up to ``WS_CLOSE_GRACE_SECONDS`` for the
   closes to complete (``OpenSockets`` counts them), so consumers see their
   ``websocket.disconnect``; a handshake that arrives meanwhile is refused;
3. stops the reactor as Twisted's own handler would (daphne then cancels what is left, the
   embedded worker stops: ``config/embedded.py``). A second SIGTERM stops at once.

HTTP requests in flight go on while the sockets close. ``OpenSockets`` is plain ASGI and knows no
server; ``stop_on_sigterm`` works on daphne's reactor (the server ``make run`` and compose run):
the close frame goes straight to daphne's autobahn protocols, since an application's
``websocket.close`` may not carry 1012 there. Under uvicorn nothing is hooked: uvicorn itself
closes sockets with 1012 on shutdown.
"""

from __future__ import annotations

import asyncio
import logging
import signal
import sys
import threading
from collections.abc import Awaitable, Callable
from typing import Any

from autobahn.twisted.websocket import WebSocketServerProtocol
from autobahn.websocket.protocol import WebSocketProtocol
from twisted.internet.interfaces import IListeningPort

logger = logging.getLogger(__name__)

CLOSE_SERVICE_RESTART = 1012  # RFC 6455 (IANA registry): the service is restarted
OPEN = WebSocketProtocol.STATE_OPEN

Send = Callable[[dict[str, Any]], Awaitable[None]]


class OpenSockets:
    """ASGI middleware that counts this process's open sockets, so a restart can wait for them
    to close. A socket counts from its ``websocket.accept`` until its ``websocket.disconnect``
    (or its application returns). Once draining, a handshake is refused instead of accepted."""

    def __init__(self, application: Any) -> None:
        self.application = application
        self.open: set[object] = set()
        self.draining = False
        self._all_closed: asyncio.Event | None = None

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Send) -> Any:
        if scope["type"] != "websocket":
            return await self.application(scope, receive, send)
        key = object()

        async def tracked_send(message: dict[str, Any]) -> None:
            if message["type"] == "websocket.accept":
                if self.draining:  # refused (403): the client tries again, elsewhere or later
                    message = {"type": "websocket.close"}
                else:
                    self.open.add(key)
            await send(message)

        async def tracked_receive() -> dict[str, Any]:
            message: dict[str, Any] = await receive()
            if message["type"] == "websocket.disconnect":
                self._forget(key)
            return message

        try:
            return await self.application(scope, tracked_receive, tracked_send)
        finally:
            self._forget(key)

    def _forget(self, key: object) -> None:
        self.open.discard(key)
        if not self.open and self._all_closed is not None:
            self._all_closed.set()

    def drain(self) -> None:
        """Refuse new sockets from now on."""
        self.draining = True
        self._all_closed = asyncio.Event()
        if not self.open:
            self._all_closed.set()

    async def closed(self, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds for every socket to close (after ``drain``); whether
        they all did."""
        assert self._all_closed is not None, "drain() first"
        if self._all_closed.is_set():
            return True
        try:
            await asyncio.wait_for(self._all_closed.wait(), timeout)
        except TimeoutError:
            return False
        return True


def _close_for_restart(protocol: WebSocketServerProtocol) -> None:
    # autobahn's public sendClose takes only 1000 and 3000-4999 from an application (and so does
    # daphne's ``websocket.close``, which calls it); 1012 is a code the protocol itself may send.
    protocol.sendCloseFrame(code=CLOSE_SERVICE_RESTART)


def stop_on_sigterm(sockets: OpenSockets, grace: float) -> None:
    """Under daphne, make SIGTERM close every socket with 1012 before the server stops.

    Twisted installs its own SIGTERM handler (stop the reactor) as the reactor starts; this one
    replaces it once the reactor runs. Elsewhere (uvicorn, a test importing the ASGI module,
    a Celery process) there is no running reactor to hook and nothing is done."""
    reactor: Any = sys.modules.get("twisted.internet.reactor")
    if reactor is None or not hasattr(reactor, "callWhenRunning"):
        return
    # The drain's task is kept here: the loop holds only a weak reference to it.
    state: dict[str, Any] = {"draining": False, "task": None}

    def drain() -> None:
        if state["draining"]:  # a second SIGTERM: no more waiting
            reactor.stop()
            return
        state["draining"] = True
        sockets.drain()
        count = 0
        # The reactor's readers are its listening ports and its connections; a connection
        # upgraded to a WebSocket carries daphne's autobahn protocol.
        for reader in reactor.getReaders():
            protocol = getattr(reader, "protocol", None)
            if IListeningPort.providedBy(reader):
                reader.stopListening()
            elif isinstance(protocol, WebSocketServerProtocol) and protocol.state == OPEN:
                _close_for_restart(protocol)
                count += 1
        logger.info("SIGTERM: closing %d sockets with 1012, then stopping", count)
        state["task"] = asyncio.ensure_future(wait_then_stop())

    async def wait_then_stop() -> None:
        try:
            if not await sockets.closed(grace):
                logger.warning("%d sockets still open after %gs", len(sockets.open), grace)
        finally:
            if reactor.running:
                reactor.stop()

    def on_sigterm(signum: int, frame: Any) -> None:
        # A signal handler may interrupt the reactor anywhere: hand the work to its loop.
        reactor.callFromThread(drain)

    def install() -> None:
        # Only the main thread may set a handler; a reactor run in another thread (a test's)
        # has no signals of its own either.
        if threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGTERM, on_sigterm)

    reactor.callWhenRunning(install)
