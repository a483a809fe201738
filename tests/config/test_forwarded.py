"""config.forwarded: X-Forwarded-For and X-Forwarded-Proto believed from trusted proxies only."""

import ipaddress
from typing import Any

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.http import HttpRequest, HttpResponse
from django.test import RequestFactory, override_settings
from rest_framework.test import APIClient
from rest_framework.throttling import ScopedRateThrottle

from config.forwarded import (
    ForwardedMiddleware,
    ForwardedSocketMiddleware,
    client_address,
    forwarded_scheme,
)

PROXIES = [ipaddress.ip_network("172.31.250.0/24"), ipaddress.ip_network("fd00::/8")]
CADDY = "172.31.250.2"
TOKEN = "/api/auth/token/"
WRONG = {"username": "ann", "password": "wrong"}


@pytest.mark.parametrize(
    ("peer", "forwarded", "expected"),
    [
        # Not from a proxy: whatever the client wrote is ignored.
        ("203.0.113.9", ["198.51.100.7"], "203.0.113.9"),
        # The proxy replaced the header (Caddy's way): the address it saw.
        (CADDY, ["198.51.100.7"], "198.51.100.7"),
        # The proxy appended to the client's own header: the client's part is ignored.
        (CADDY, ["10.0.0.1, 198.51.100.7"], "198.51.100.7"),
        (CADDY, ["10.0.0.1", "198.51.100.7"], "198.51.100.7"),
        # A spoofed chain naming the proxy itself cannot move the count left of the real hop.
        (CADDY, ["172.31.250.9, 198.51.100.7"], "198.51.100.7"),
        # Proxies in a row (all trusted) are skipped to the first untrusted hop.
        (CADDY, ["198.51.100.7, 172.31.250.3"], "198.51.100.7"),
        # Only trusted addresses: the left-most, a client inside the proxies' network.
        (CADDY, ["172.31.250.8"], "172.31.250.8"),
        # Garbage stops the walk at the hop that passed it on.
        (CADDY, ["not-an-address"], CADDY),
        (CADDY, ["not-an-address, 172.31.250.8"], "172.31.250.8"),
        # No header from the proxy: the proxy is the client (its own health check).
        (CADDY, [], CADDY),
        # IPv6, and an IPv4 peer seen on a dual-stack socket.
        ("fd00::2", ["2001:db8::7"], "2001:db8::7"),
        ("::ffff:172.31.250.2", ["198.51.100.7"], "198.51.100.7"),
        (None, ["198.51.100.7"], None),
    ],
)
def test_client_address(peer: str | None, forwarded: list[str], expected: str | None) -> None:
    assert client_address(peer, forwarded, PROXIES) == expected


def test_nothing_is_trusted_by_default() -> None:
    assert client_address(CADDY, ["198.51.100.7"], []) == CADDY


@pytest.mark.parametrize(
    ("peer", "proto", "expected"),
    [
        (CADDY, "https", "https"),
        (CADDY, "HTTP", "http"),
        (CADDY, "gopher", None),
        (CADDY, None, None),
        ("203.0.113.9", "https", None),
    ],
)
def test_forwarded_scheme(peer: str, proto: str | None, expected: str | None) -> None:
    assert forwarded_scheme(peer, proto, PROXIES) == expected


def through_middleware(**meta: str) -> HttpRequest:
    seen: list[HttpRequest] = []

    def view(request: HttpRequest) -> HttpResponse:
        seen.append(request)
        return HttpResponse()

    ForwardedMiddleware(view)(RequestFactory().get("/", **meta))
    return seen[0]


@override_settings(TRUSTED_PROXIES=["172.31.250.0/24"])
def test_middleware_from_the_proxy_sets_the_client_and_keeps_the_scheme() -> None:
    request = through_middleware(
        REMOTE_ADDR=CADDY, HTTP_X_FORWARDED_FOR="198.51.100.7", HTTP_X_FORWARDED_PROTO="https"
    )
    assert request.META["REMOTE_ADDR"] == "198.51.100.7"
    assert "HTTP_X_FORWARDED_FOR" not in request.META, "nothing downstream may read it again"
    assert request.META["HTTP_X_FORWARDED_PROTO"] == "https"


@override_settings(
    TRUSTED_PROXIES=["172.31.250.0/24"],
    SECURE_PROXY_SSL_HEADER=("HTTP_X_FORWARDED_PROTO", "https"),
)
def test_middleware_drops_what_a_direct_client_claims() -> None:
    request = through_middleware(
        REMOTE_ADDR="203.0.113.9",
        HTTP_X_FORWARDED_FOR="198.51.100.7",
        HTTP_X_FORWARDED_PROTO="https",
    )
    assert request.META["REMOTE_ADDR"] == "203.0.113.9"
    assert "HTTP_X_FORWARDED_FOR" not in request.META
    assert "HTTP_X_FORWARDED_PROTO" not in request.META
    assert not request.is_secure()


@override_settings(TRUSTED_PROXIES=["not a network"])
def test_a_bad_trusted_network_is_a_configuration_error() -> None:
    with pytest.raises(ImproperlyConfigured, match="TRUSTED_PROXIES"):
        through_middleware(REMOTE_ADDR=CADDY)


# --- the throttles, end to end through Django's middleware ---------------------------------------


@pytest.fixture
def tight(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ScopedRateThrottle, "THROTTLE_RATES", {"auth": "2/min"})


def statuses(**meta: str) -> list[int]:
    api = APIClient()
    return [api.post(TOKEN, WRONG, format="json", **meta).status_code for _ in range(3)]


@pytest.mark.django_db
@override_settings(TRUSTED_PROXIES=["172.31.250.0/24"])
def test_a_direct_client_is_throttled_by_its_own_address_whatever_it_forwards(
    tight: None,
) -> None:
    api = APIClient(REMOTE_ADDR="203.0.113.9")
    codes = [
        api.post(TOKEN, WRONG, format="json", HTTP_X_FORWARDED_FOR=f"198.51.100.{n}").status_code
        for n in range(3)
    ]
    assert codes == [401, 401, 429]


@pytest.mark.django_db
@override_settings(TRUSTED_PROXIES=["172.31.250.0/24"])
def test_through_the_proxy_each_client_is_counted_by_its_forwarded_address(tight: None) -> None:
    assert statuses(REMOTE_ADDR=CADDY, HTTP_X_FORWARDED_FOR="198.51.100.7") == [401, 401, 429]
    # Another client behind the same proxy has its own count.
    assert statuses(REMOTE_ADDR=CADDY, HTTP_X_FORWARDED_FOR="198.51.100.8")[0] == 401


@pytest.mark.django_db
@override_settings(TRUSTED_PROXIES=["172.31.250.0/24"])
def test_through_the_proxy_a_spoofed_chain_does_not_escape(tight: None) -> None:
    api = APIClient(REMOTE_ADDR=CADDY)
    codes = [
        api.post(
            TOKEN, WRONG, format="json", HTTP_X_FORWARDED_FOR=f"10.0.0.{n}, 198.51.100.7"
        ).status_code
        for n in range(3)
    ]
    assert codes == [401, 401, 429]


# --- sockets -------------------------------------------------------------------------------------


async def socket_scope(scope: dict[str, Any]) -> dict[str, Any]:
    seen: list[dict[str, Any]] = []

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        seen.append(scope)

    await ForwardedSocketMiddleware(app)(scope, None, None)
    return seen[0]


def ws(client: str, *headers: tuple[bytes, bytes]) -> dict[str, Any]:
    return {
        "type": "websocket",
        "client": [client, 40000],
        "scheme": "ws",
        "headers": [(b"host", b"rummy.example"), *headers],
    }


@override_settings(TRUSTED_PROXIES=["172.31.250.0/24"])
async def test_socket_from_the_proxy_gets_the_client_and_scheme() -> None:
    scope = await socket_scope(
        ws(CADDY, (b"x-forwarded-for", b"10.0.0.1, 198.51.100.7"), (b"x-forwarded-proto", b"https"))
    )
    assert scope["client"] == ["198.51.100.7", 0]
    assert scope["scheme"] == "wss"
    assert scope["headers"] == [(b"host", b"rummy.example")]


@override_settings(TRUSTED_PROXIES=["172.31.250.0/24"])
async def test_socket_from_a_direct_client_keeps_its_own_address() -> None:
    scope = await socket_scope(
        ws("203.0.113.9", (b"x-forwarded-for", b"198.51.100.7"), (b"x-forwarded-proto", b"https"))
    )
    assert scope["client"] == ["203.0.113.9", 40000]
    assert scope["scheme"] == "ws"
    assert scope["headers"] == [(b"host", b"rummy.example")]


async def test_http_scopes_pass_untouched() -> None:
    scope = {"type": "http", "client": [CADDY, 1], "headers": [(b"x-forwarded-for", b"1.2.3.4")]}
    assert await socket_scope(scope) is scope
