"""Who may open a WebSocket: the origin check and the API token, around Channels' session auth.

- ``OriginCheck`` refuses a handshake whose ``Origin`` header is not one of the site's own
  origins (scheme, host and port, as Django's CSRF check compares them), so a page on another
  site, or on another port or scheme of this host, cannot open a socket with the visitor's
  session cookie. A handshake without ``Origin`` passes: browsers always send one, so
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
from urllib.parse import parse_qs, urlparse

from channels.auth import AuthMiddlewareStack
from channels.db import database_sync_to_async
from channels.middleware import BaseMiddleware
from channels.security.websocket import OriginValidator, WebsocketDenier
from django.conf import settings
from django.db import DatabaseError, connection
from django.http.request import split_domain_port, validate_host
from rest_framework.authtoken.models import Token

from config.rows import columns, fetch, load, quote
from config.unavailable import is_unavailable, unavailable_socket

# Channels' own fallback when DEBUG runs with an empty ALLOWED_HOSTS.
DEBUG_HOSTS = ["localhost", "127.0.0.1", "[::1]"]


class OriginCheck(OriginValidator):
    """Channels' ``OriginValidator``, matching scheme, host and port, against the origins this
    site is served at, read at each handshake (``site_origins``). A handshake without an
    ``Origin`` header is let through."""

    def __init__(self, application: Any) -> None:
        # The base class stores a fixed list; the origins depend on the handshake instead.
        self.application = application

    async def __call__(self, scope: Any, receive: Any, send: Any) -> Any:
        headers = dict(scope.get("headers", []))
        origin = headers.get(b"origin")
        # Latin-1 cannot fail to decode, so only an absent header passes unchecked.
        if origin is not None and not any(
            self.match_allowed_origin(urlparse(origin.decode("latin-1")), pattern)
            for pattern in site_origins(scope)
        ):
            return await WebsocketDenier()(scope, receive, send)
        return await self.application(scope, receive, send)


def site_origins(scope: Any) -> list[str]:
    """The origins a page opening this socket may have, each ``scheme://host[:port]``, as
    Django's CSRF check accepts a form's: ``SITE_URL``'s, each of ``CSRF_TRUSTED_ORIGINS``
    (``*.`` for any subdomain) and the handshake's own (its ``Host`` header, if one of
    ``ALLOWED_HOSTS``, under its scheme: a trusted proxy's ``X-Forwarded-Proto``, else the
    server's). A page from another port or scheme of an allowed host is foreign.

    >>> site_origins({"headers": [(b"host", b"localhost:8000")]})
    ['https://rummy.example', 'http://localhost:8000']
    """
    site = urlparse(settings.SITE_URL)
    origins = [f"{site.scheme}://{site.netloc}"]
    origins += [o.replace("://*.", "://.") for o in settings.CSRF_TRUSTED_ORIGINS]
    headers = dict(scope.get("headers", []))
    host = headers.get(b"host", b"").decode("latin-1")
    if host and validate_host(split_domain_port(host)[0], _allowed_hosts()):
        origins.append(f"{_scheme(scope)}://{host}")
    return origins


def _allowed_hosts() -> list[str]:
    hosts = list(settings.ALLOWED_HOSTS)
    return DEBUG_HOSTS if settings.DEBUG and not hosts else hosts


def _scheme(scope: Any) -> str:
    """``https`` or ``http``: the scheme the page's browser reached this server by, as the
    server or a trusted proxy said (``config.forwarded`` decides ``scope["scheme"]`` first)."""
    return "https" if scope.get("scheme") in ("wss", "https") else "http"


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
