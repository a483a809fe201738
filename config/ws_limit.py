"""What the sockets take from a client: frames up to a size, at a rate (per connection).

A frame over ``MAX_FRAME_BYTES`` gets a ``bad_request`` error and the socket is closed with 1009
(message too big). The rate is a token bucket over every frame a client sends: one socket may
send ``WS_RATE_BURST`` frames at once and ``WS_RATE_PER_SECOND`` after that. A frame over the
limit is not processed: its sender gets ``{"type": "error", "client_id", "error":
"rate_limited", "message", "retry_after"}`` (seconds until a frame would be taken). Refusals are
forgiven at the same rate as tokens come back; a socket that runs up ``FLOOD_FACTOR`` times the
burst of them is not a client that misread a ``retry_after`` but a flood, and is closed with
1008 (policy violation) after that error frame. Whatever arrives after the server closed a
socket is dropped unread.

The limits are per connection, in the process that holds it: they keep one socket from taking a
server's time from the others; they are no defence against many sockets (that is the proxy's
job), nor against a frame too big to buffer: the server refuses those itself (daphne's
``--websocket_max_message_size``, 1 MiB by default; uvicorn's ``--ws-max-size``, 16 MiB).
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Awaitable, Callable
from typing import Any

from channels.generic.websocket import AsyncJsonWebsocketConsumer
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.db import DatabaseError

from config.errors import BAD_REQUEST, ServiceError, error_frame
from config.metrics import OPEN_SOCKETS
from config.unavailable import is_unavailable, unavailable_error

# A real message is a few hundred bytes; anything near this is a mistake or an attack.
MAX_FRAME_BYTES = 64 * 1024
CLOSE_TOO_BIG = 1009  # RFC 6455: message too big
RATE_LIMITED = "rate_limited"
CLOSE_POLICY = 1008  # RFC 6455: policy violation
# Refusals outstanding, in bursts, before a socket counts as flooding: generous, since a client
# that honours retry_after runs up one refusal at a time.
FLOOD_FACTOR = 5


class TokenBucket:
    """``burst`` tokens, refilled at ``per_second``; ``clock`` is a monotonic clock in seconds.

    A clock that steps back refills nothing (the time is taken as not having passed).
    """

    def __init__(self, burst: int, per_second: float, clock: Callable[[], float]) -> None:
        if burst < 1 or not per_second > 0:
            raise ImproperlyConfigured("WS_RATE_BURST must be at least 1, WS_RATE_PER_SECOND > 0")
        self.burst = burst
        self.per_second = per_second
        self.clock = clock
        self.tokens = float(burst)
        self.refused = 0.0  # refusals not yet forgiven
        self.stamp = clock()

    def take(self) -> float:
        """0.0 when a token was taken, else the seconds until one will be there (nothing taken)."""
        now = self.clock()
        refill = max(0.0, now - self.stamp) * self.per_second
        self.stamp = now
        self.tokens = min(float(self.burst), self.tokens + refill)
        self.refused = max(0.0, self.refused - refill)
        if self.tokens >= 1:
            self.tokens -= 1
            return 0.0
        self.refused += 1
        return (1 - self.tokens) / self.per_second

    @property
    def flooding(self) -> bool:
        return self.refused >= FLOOD_FACTOR * self.burst


def _size(text_data: str | None, bytes_data: bytes | None) -> int:
    """The frame's size in bytes as it came on the wire (UTF-8 for text)."""
    if text_data is None:
        return len(bytes_data or b"")
    return len(text_data.encode(errors="surrogatepass"))


def _client_id(text_data: str | None) -> str | None:
    """The ``client_id`` of a refused frame if it has one, so the client can match the error."""
    try:
        content = json.loads(text_data or "")
    except (ValueError, RecursionError):
        return None
    client_id = content.get("client_id") if isinstance(content, dict) else None
    return client_id if isinstance(client_id, str) else None


class RateLimitedConsumer(AsyncJsonWebsocketConsumer):
    """A JSON socket whose ``receive`` starts with
    ``if await self.refused(text_data, bytes_data): return``.

    ``clock`` is read through the class, so a test replaces it there to move time by hand.
    """

    clock: Callable[[], float] = time.monotonic

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.bucket = TokenBucket(
            settings.WS_RATE_BURST, settings.WS_RATE_PER_SECOND, type(self).clock
        )
        self.closing = False  # the server has closed this socket
        self.in_gauge = False  # counted in the open sockets' gauge (config.metrics)

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        """The consumer's whole life: out of the gauge however it ends (a close, a handler
        that failed and took the socket down without a ``disconnect``, a cancelled task)."""
        try:
            await super().__call__(scope, receive, send)
        finally:
            if self.in_gauge:
                self.in_gauge = False
                OPEN_SOCKETS.labels(type(self).__name__).dec()

    async def accept(self, subprotocol: str | None = None, headers: Any = None) -> None:
        await super().accept(subprotocol, headers)
        if not self.in_gauge:
            self.in_gauge = True
            OPEN_SOCKETS.labels(type(self).__name__).inc()

    async def close(self, code: int | bool | None = None, reason: str | None = None) -> None:
        self.closing = True
        await super().close(code, reason)

    async def refused(self, text_data: str | None, bytes_data: bytes | None = None) -> bool:
        """Whether this frame must go unprocessed: the socket is closing, or the frame is too
        big (then the socket is closed) or over the rate (then its sender is told so, and a
        flood is closed)."""
        if self.closing:
            return True
        if _size(text_data, bytes_data) > MAX_FRAME_BYTES:
            too_big = ServiceError(BAD_REQUEST, f"frames are limited to {MAX_FRAME_BYTES} bytes")
            await self.send_error(too_big, None)
            await self.close(code=CLOSE_TOO_BIG)
            return True
        wait = self.bucket.take()
        if not wait:
            return False
        message = f"at most {self.bucket.per_second:g} messages a second; slow down"
        retry_after = math.ceil(wait * 1000) / 1000
        limited = ServiceError(RATE_LIMITED, message, 429, retry_after=retry_after)
        await self.send_error(limited, _client_id(text_data))
        if self.bucket.flooding:
            await self.close(code=CLOSE_POLICY)
        return True

    async def send_error(self, error: ServiceError, client_id: str | None) -> None:
        """Answer the message ``client_id`` names (None: none, or unreadable) with ``error``."""
        await self.send_json(error_frame(error, client_id=client_id))


class SyncOnlyConsumer(RateLimitedConsumer):
    """A socket that only tells (the lobby's, the user's own): the one message it reads is
    ``{"type": "sync"}``, answered by ``synced``; anything else is refused with ``bad_request``
    and the socket stays open. A database out of reach answers ``unavailable`` (retryable).
    Each subclass defines ``synced``: send what a fresh connection gets."""

    synced: Callable[[], Awaitable[None]]

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        if await self.refused(text_data, bytes_data):
            return
        try:
            content = json.loads(text_data or "")
        except (ValueError, RecursionError):
            await self.send_error(ServiceError(BAD_REQUEST, "a message must be JSON"), None)
            return
        if not isinstance(content, dict) or content.get("type") != "sync":
            await self.send_error(ServiceError(BAD_REQUEST, "type: must be sync"), None)
            return
        try:
            await self.synced()
        except DatabaseError as exc:
            if not is_unavailable(exc):
                raise
            await self.send_error(unavailable_error(), None)
