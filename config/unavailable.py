"""What the service answers while it cannot reach its database: ``unavailable``, retryable.

A database that refuses connections for a few seconds (a restart, a failover, a full connection
table) is not a bug, and a client can do nothing better than try again shortly, so every entry
point says exactly that instead of a 500 with a traceback:

- the REST API: 503 ``{"error": "unavailable", "message", "retry_after"}`` with a
  ``Retry-After`` header (``config.exceptions``);
- the pages: a plain 503 page with the same header (``UnavailableMiddleware``, below);
- the sockets: ``{"type": "error", "client_id", "error": "unavailable", "message",
  "retry_after"}``, and the socket stays open (``games.consumers``, ``tournaments.consumers``).

Nothing is half-applied: every write is one transaction, rolled back when its connection fails
(``transaction.atomic``), and Django closes a connection that raised such an error when the
request or the database call ends, so the next one connects afresh. The service recovers by
itself once the database answers; an action sent again with its ``client_id`` is applied once.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from typing import Any

from django.db import InterfaceError, OperationalError
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.template.loader import render_to_string

from config.errors import UNAVAILABLE, ServiceError

MESSAGE = "the service cannot reach its database just now; try again shortly"
# Close code of a socket turned away for it: the application range (4000-4999) as 4404 is for
# "no such table"; RFC 6455's own 1013 (try again later) is one daphne refuses to send.
CLOSE_TRY_AGAIN = 4503
# Seconds a client should wait: a PostgreSQL restart or failover takes a few, and a client
# that waits longer than it must only loses its own time.
RETRY_AFTER_SECONDS = 2
# SQLSTATE classes that mean "the server cannot take this now": 08 connection exception,
# 53 insufficient resources (too many connections), 57 operator intervention (shutting down,
# starting up). psycopg gives no SQLSTATE at all when it never reached a server.
_SQLSTATE_CLASSES = ("08", "53", "57")
# SQLite (the embedded default): busy and locked (another writer held on too long), cannot open.
_SQLITE_CODES = (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED, sqlite3.SQLITE_CANTOPEN)


def is_unavailable(exc: BaseException) -> bool:
    """Whether ``exc`` means the database cannot be reached or used just now, so the same
    request may succeed later, rather than a fault of the request or the code (which stays a
    500: a missing table is an OperationalError too)."""
    if isinstance(exc, InterfaceError):  # the connection is closed or broken
        return True
    if not isinstance(exc, OperationalError):
        return False
    cause = exc.__cause__
    if isinstance(cause, sqlite3.Error):
        return getattr(cause, "sqlite_errorcode", 0) & 0xFF in _SQLITE_CODES
    sqlstate = getattr(cause, "sqlstate", None)
    return sqlstate is None or sqlstate[:2] in _SQLSTATE_CLASSES


def unavailable_error() -> ServiceError:
    """The refusal every entry point gives while the database is out of reach."""
    return ServiceError(UNAVAILABLE, MESSAGE, 503, retry_after=RETRY_AFTER_SECONDS)


def unavailable_body() -> dict[str, object]:
    return unavailable_error().body()


async def unavailable_socket(scope: Any, receive: Any, send: Any) -> None:
    """An ASGI app for a WebSocket handshake that cannot be served without the database: it
    completes the handshake only to send the ``unavailable`` error, then closes with 4503 (try
    again later), so a client learns why and when to come back, not just a refusal."""
    await receive()  # websocket.connect
    await send({"type": "websocket.accept"})
    frame = {"type": "error", "client_id": None, **unavailable_body()}
    await send({"type": "websocket.send", "text": json.dumps(frame)})
    await send({"type": "websocket.close", "code": CLOSE_TRY_AGAIN})


class UnavailableMiddleware:
    """A page or API view that failed because the database is unreachable answers 503 (JSON
    under /api/, a plain page elsewhere), with ``Retry-After``, never a traceback."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if not is_unavailable(exception):
            return None
        response: HttpResponse
        if request.path.startswith("/api/"):
            response = JsonResponse(unavailable_body(), status=503)
        else:
            # Rendered without the request: context processors would reach for the database.
            page = render_to_string("503.html", {"retry_after": RETRY_AFTER_SECONDS})
            response = HttpResponse(page, status=503)
        response["Retry-After"] = str(RETRY_AFTER_SECONDS)
        return response
