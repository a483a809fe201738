"""config.ws_auth: the WebSocket origin check and the ``?token=`` login, each on a bare app."""

from collections.abc import AsyncIterator
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from channels.testing import WebsocketCommunicator
from django.db import connections
from django.test import Client

from accounts.services import user_register
from config.forwarded import ForwardedSocketMiddleware
from config.ws_auth import OriginCheck, TokenAuthMiddleware, TokenAuthMiddlewareStack

# Consumers touch the database from a worker thread (closing old connections as they end).
pytestmark = pytest.mark.django_db(transaction=True)

PASSWORD = "correct-horse-battery-staple"
TIMEOUT = 10  # seconds; generous for a loaded CI machine, never reached when things work


@pytest.fixture(autouse=True)
async def _close_worker_connections() -> AsyncIterator[None]:
    """Close the database connection of the thread the consumers' queries ran in: kept open
    for reuse (CONN_MAX_AGE), it would still hold the test database when pytest drops it."""
    yield
    await database_sync_to_async(connections.close_all)()


class WhoAmI(AsyncJsonWebsocketConsumer):
    """Accepts, then says who ``scope["user"]`` is."""

    async def connect(self) -> None:
        await self.accept()
        user = self.scope.get("user")
        name = user.username if user is not None and user.is_authenticated else None
        await self.send_json({"user": name})


async def handshake(app: Any, path: str = "/", headers: list[Any] | None = None) -> Any:
    """The first frame of an accepted socket (then closed), or ``(False, code)`` if refused."""
    communicator = WebsocketCommunicator(app, path, headers=headers)
    try:
        connected, code = await communicator.connect(timeout=TIMEOUT)
        if not connected:
            return (False, code)
        return await communicator.receive_json_from(timeout=TIMEOUT)
    finally:
        await communicator.disconnect(timeout=TIMEOUT)


# --- origin ---------------------------------------------------------------------------------


@pytest.fixture
def hosts(settings: Any) -> None:
    settings.ALLOWED_HOSTS = ["rummy.example", ".club.example"]
    settings.SITE_URL = "https://rummy.example"
    settings.CSRF_TRUSTED_ORIGINS = ["https://*.club.example", "http://scores.example:8080"]


def host(name: bytes) -> list[tuple[bytes, bytes]]:
    return [(b"host", name)]


@pytest.mark.usefixtures("hosts")
async def test_a_handshake_without_origin_is_let_through() -> None:
    """Bots and other non-browser clients send no Origin; browsers always do."""
    assert await handshake(OriginCheck(WhoAmI.as_asgi())) == {"user": None}


def served(app: Any, **scope: Any) -> Any:
    """``app`` under a server that puts ``scope``'s keys in the handshake's scope (``scheme``
    ``wss`` over TLS, the peer as ``client``); the test communicator sets neither."""

    async def serving(given: Any, receive: Any, send: Any) -> Any:
        return await app({**given, **scope}, receive, send)

    return serving


@pytest.mark.usefixtures("hosts")
@pytest.mark.parametrize(
    ("origin", "headers", "scheme"),
    [
        (b"https://rummy.example", [], None),  # SITE_URL's
        (b"https://rummy.example:443", [], None),
        (b"https://east.club.example", [], None),  # a trusted origin's subdomain
        (b"http://scores.example:8080", [], None),
        # The handshake's own: its Host, an allowed host, under the server's scheme.
        (b"http://rummy.example:8000", host(b"rummy.example:8000"), None),
        (b"https://east.club.example:8443", host(b"east.club.example:8443"), "wss"),
    ],
)
async def test_an_origin_of_the_site_is_let_through(
    origin: bytes, headers: list[Any], scheme: str | None
) -> None:
    app = OriginCheck(WhoAmI.as_asgi())
    app = served(app, scheme=scheme) if scheme else app
    assert await handshake(app, headers=[(b"origin", origin), *headers]) == {"user": None}


@pytest.mark.usefixtures("hosts")
@pytest.mark.parametrize(
    ("origin", "headers"),
    [
        (b"https://evil.example", []),
        (b"https://rummy.example.evil.example", []),
        (b"null", []),
        (b"", []),
        # An allowed host, but another scheme or port than the site's: another origin.
        (b"http://rummy.example", []),
        (b"https://rummy.example:8443", []),
        (b"http://east.club.example", []),
        (b"http://scores.example", []),
        (b"https://scores.example:8080", []),
        # The handshake's own host, from another port or scheme.
        (b"http://rummy.example:9000", host(b"rummy.example:8000")),
        (b"https://rummy.example:8000", host(b"rummy.example:8000")),
        # A Host outside ALLOWED_HOSTS does not make its origin the site's.
        (b"http://evil.example", host(b"evil.example")),
    ],
)
async def test_a_foreign_or_opaque_origin_is_refused(origin: bytes, headers: list[Any]) -> None:
    app = OriginCheck(WhoAmI.as_asgi())
    connected, _ = await handshake(app, headers=[(b"origin", origin), *headers])
    assert connected is False


@pytest.mark.usefixtures("hosts")
async def test_behind_a_tls_proxy_the_forwarded_scheme_is_the_handshakes(settings: Any) -> None:
    """As config.asgi stacks them: a trusted proxy's X-Forwarded-Proto decides the scheme."""
    settings.TRUSTED_PROXIES = ["10.0.0.0/8"]
    app = served(ForwardedSocketMiddleware(OriginCheck(WhoAmI.as_asgi())), client=["10.0.0.2", 1])
    proxied = [*host(b"rummy.example:8000"), (b"x-forwarded-proto", b"https")]
    good = [(b"origin", b"https://rummy.example:8000"), *proxied]
    assert await handshake(app, headers=good) == {"user": None}
    bad = [(b"origin", b"http://rummy.example:8000"), *proxied]
    assert (await handshake(app, headers=bad))[0] is False
    # From a peer nobody trusts the header is dropped: the handshake is plain HTTP's.
    stranger = served(
        ForwardedSocketMiddleware(OriginCheck(WhoAmI.as_asgi())), client=["9.9.9.9", 1]
    )
    assert (await handshake(stranger, headers=good))[0] is False


async def test_the_site_origins_are_read_at_each_handshake(settings: Any) -> None:
    app = OriginCheck(WhoAmI.as_asgi())
    headers = [(b"origin", b"https://late.example")]
    settings.CSRF_TRUSTED_ORIGINS = []
    settings.SITE_URL = "https://rummy.example"
    assert (await handshake(app, headers=headers))[0] is False
    settings.SITE_URL = "https://late.example"
    assert await handshake(app, headers=headers) == {"user": None}
    settings.ALLOWED_HOSTS = ["*"]
    any_host = [(b"origin", b"http://any.example"), *host(b"any.example")]
    assert await handshake(app, headers=any_host) == {"user": None}


# --- token ----------------------------------------------------------------------------------


@pytest.fixture
def ann() -> Any:
    return user_register(username="ann", password=PASSWORD)[1]


async def test_a_token_in_the_query_string_sets_the_user(ann: Any) -> None:
    app = TokenAuthMiddlewareStack(WhoAmI.as_asgi())
    assert await handshake(app, f"/?token={ann.key}") == {"user": "ann"}


async def test_without_a_token_the_session_user_stays(ann: Any) -> None:
    def session_cookie() -> bytes:
        client = Client()
        client.force_login(ann.user)
        return f"sessionid={client.cookies['sessionid'].value}".encode()

    cookie = await database_sync_to_async(session_cookie)()
    app = TokenAuthMiddlewareStack(WhoAmI.as_asgi())
    assert await handshake(app, "/?other=1", headers=[(b"cookie", cookie)]) == {"user": "ann"}
    assert await handshake(app, "/") == {"user": None}


async def test_a_token_wins_over_the_session(ann: Any) -> None:
    bob, _ = await database_sync_to_async(user_register)(username="bob", password=PASSWORD)

    def session_cookie() -> bytes:
        client = Client()
        client.force_login(bob)
        return f"sessionid={client.cookies['sessionid'].value}".encode()

    cookie = await database_sync_to_async(session_cookie)()
    app = TokenAuthMiddlewareStack(WhoAmI.as_asgi())
    assert await handshake(app, f"/?token={ann.key}", [(b"cookie", cookie)]) == {"user": "ann"}


@pytest.mark.parametrize(
    "query", ["token=nope", "token=", "token", "token={key}&token={key}", "token={key}x"]
)
async def test_a_bad_token_refuses_the_handshake(ann: Any, query: str) -> None:
    app = TokenAuthMiddleware(WhoAmI.as_asgi())
    connected, _ = await handshake(app, "/?" + query.format(key=ann.key))
    assert connected is False


async def test_the_token_of_an_inactive_user_refuses_the_handshake(ann: Any) -> None:
    def deactivate() -> None:
        ann.user.is_active = False
        ann.user.save(update_fields=["is_active"])

    await database_sync_to_async(deactivate)()
    connected, _ = await handshake(TokenAuthMiddleware(WhoAmI.as_asgi()), f"/?token={ann.key}")
    assert connected is False
