"""Who may open a WebSocket: the origin check and the API token, around Channels' session auth.

- ``OriginCheck`` refuses a handshake whose ``Origin`` header names a host outside
  ``ALLOWED_HOSTS`` (Channels' matching), so a page on another site cannot open a socket with the
  visitor's session cookie. A handshake without ``Origin`` passes: browsers always send one, so
  only bots and other non-browser clients leave it out, and they cannot be made to act for
  someone else's cookie.
- ``TokenAuthMiddleware`` sets ``scope["user"]`` from ``?token=KEY`` (DRF's token model, the
  same key as ``Authorization: Token KEY`` on the REST API); without ``token`` the session user
  stays. A token that names no active user refuses the handshake rather than falling back to
  anonymous, so a bot with a mistyped key learns it at once. While the database is out of
  reach the handshake completes only to say so (``config.unavailable.unavailable_socket``).
"""

from __future__ import annotations

from functools import cache
from typing import Any
from urllib.parse import ParseResult, parse_qs

from channels.auth import AuthMiddlewareStack
from channels.db import database_sync_to_async
from channels.middleware import BaseMiddleware
from channels.security.websocket import OriginValidator, WebsocketDenier
from django.conf import settings
from django.db import DatabaseError, connection
from rest_framework.authtoken.models import Token

from config.rows import columns, fetch, load, quote
from config.unavailable import is_unavailable, unavailable_socket

# Channels' own fallback when DEBUG runs with an empty ALLOWED_HOSTS.
DEBUG_HOSTS = ["localhost", "127.0.0.1", "[::1]"]


class OriginCheck(OriginValidator):
    """Channels' ``OriginValidator`` over ``settings.ALLOWED_HOSTS``, read at each handshake,
    letting a handshake without an ``Origin`` header through."""

    def __init__(self, application: Any) -> None:
        # The base class stores a fixed list; the hosts are read from the settings instead.
        self.application = application

    @property
    def allowed_origins(self) -> list[str]:
        hosts = list(settings.ALLOWED_HOSTS)
        if settings.DEBUG and not hosts:
            hosts = DEBUG_HOSTS
        return hosts

    def valid_origin(self, parsed_origin: ParseResult | None) -> bool:
        # The base class parses the header as latin-1, which cannot fail: None means absent.
        if parsed_origin is None:
            return True
        return bool(self.validate_origin(parsed_origin))


@database_sync_to_async
def token_user(key: str) -> Any:
    """The active user whose API token is ``key``, or None."""
    # Once per socket opening, so by a statement written once (``config.rows``).
    user_model = Token._meta.get_field("user").related_model
    assert isinstance(user_model, type)
    found: list[Any] = load(user_model, fetch(_token_user_sql(connection.vendor), [key]))
    if not found or not found[0].is_active:
        return None
    return found[0]


@cache
def _token_user_sql(vendor: str) -> str:
    token = Token._meta
    user_model = token.get_field("user").related_model
    assert isinstance(user_model, type)
    user = user_model._meta
    return (
        f"SELECT {columns(user_model)} FROM {quote(user.db_table)} JOIN {quote(token.db_table)} "
        f"ON {quote(token.db_table)}.{quote('user_id')} = "
        f"{quote(user.db_table)}.{quote(user.pk.column)} "
        f"WHERE {quote(token.db_table)}.{quote('key')} = %s"
    )


class TokenAuthMiddleware(BaseMiddleware):
    """``scope["user"]`` from ``?token=KEY`` when the query string has ``token``; refuses the
    handshake when the key is unknown, empty, given twice or its user inactive."""

    async def __call__(self, scope: Any, receive: Any, send: Any) -> Any:
        query = parse_qs(scope.get("query_string", b"").decode("latin-1"), keep_blank_values=True)
        if "token" in query:
            keys = query["token"]
            try:
                user = await token_user(keys[0]) if len(keys) == 1 and keys[0] else None
            except DatabaseError as exc:
                if not is_unavailable(exc):
                    raise
                return await unavailable_socket(scope, receive, send)
            if user is None:
                return await WebsocketDenier()(scope, receive, send)
            scope = {**scope, "user": user}
        return await super().__call__(scope, receive, send)


def TokenAuthMiddlewareStack(inner: Any) -> Any:
    """Session auth (cookie), then the token, which wins when given."""
    return AuthMiddlewareStack(TokenAuthMiddleware(inner))
