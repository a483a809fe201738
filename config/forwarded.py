"""The client's address and scheme, decided once, here, for every request and socket.

Behind a reverse proxy the connecting address (the peer) is the proxy's, and the client's own
address comes in ``X-Forwarded-For``. That header is whatever the sender wrote, so it is believed
only when the peer is in ``TRUSTED_PROXIES`` (networks, e.g. ``172.31.250.0/24``; empty by
default: then the header is ignored and the peer is the client). From a trusted peer the
address is the right-most entry of ``X-Forwarded-For`` that is not itself a trusted proxy:
entries to the left of it were written by the client or by proxies nobody vouches for, so a
client that sends ``X-Forwarded-For: 1.2.3.4`` through the proxy is still counted by its own
address. ``X-Forwarded-Proto`` is believed from a trusted peer only, likewise.

What comes out replaces the peer (``REMOTE_ADDR``, the socket scope's ``client``), and the
``X-Forwarded-For`` header is removed, so nothing downstream (DRF's throttles, the log-in guard,
any library reading the header itself) can be told a different address. The server runs without
``--proxy-headers``: daphne's option trusts the header from any peer.

HTTP goes through ``ForwardedMiddleware`` (first in ``MIDDLEWARE``, so even the HTTPS redirect
sees the right scheme); sockets through ``ForwardedSocketMiddleware`` around the ASGI routes.
"""

from __future__ import annotations

import functools
import ipaddress
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.http import HttpRequest, HttpResponse

Network = ipaddress.IPv4Network | ipaddress.IPv6Network
Address = ipaddress.IPv4Address | ipaddress.IPv6Address


@functools.cache
def _networks(entries: tuple[str, ...]) -> tuple[Network, ...]:
    try:
        return tuple(ipaddress.ip_network(entry.strip(), strict=False) for entry in entries)
    except ValueError as exc:
        raise ImproperlyConfigured(f"TRUSTED_PROXIES: {exc}") from exc


def trusted_networks() -> tuple[Network, ...]:
    """``settings.TRUSTED_PROXIES`` parsed (read at each call, so tests can change it)."""
    return _networks(tuple(settings.TRUSTED_PROXIES))


def _parse(text: str) -> Address | None:
    try:
        address = ipaddress.ip_address(text.strip())
    except ValueError:
        return None
    # A dual-stack socket reports an IPv4 peer as ::ffff:a.b.c.d.
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped:
        return address.ipv4_mapped
    return address


def _trusted(address: Address | None, trusted: Sequence[Network]) -> bool:
    return address is not None and any(address in network for network in trusted)


def client_address(
    peer: str | None, forwarded_for: Iterable[str], trusted: Sequence[Network]
) -> str | None:
    """The client's address: ``peer`` unless it is a trusted proxy, then the right-most entry
    of the ``X-Forwarded-For`` values that is not a trusted proxy.

    An entry that is not an address ends the walk at the hop that passed it on, and a chain of
    trusted proxies only gives its left-most entry (a client inside a trusted network).

    >>> proxy = [ipaddress.ip_network("10.0.0.0/8")]
    >>> client_address("203.0.113.9", ["1.2.3.4"], proxy)  # not a proxy: the header is ignored
    '203.0.113.9'
    >>> client_address("10.0.0.2", ["1.2.3.4, 198.51.100.7"], proxy)  # 1.2.3.4: the client's say
    '198.51.100.7'
    >>> client_address("10.0.0.2", ["198.51.100.7", "10.0.0.3"], proxy)  # two proxies in a row
    '198.51.100.7'
    >>> client_address("10.0.0.2", [], proxy)
    '10.0.0.2'
    """
    current = _parse(peer or "")
    if not _trusted(current, trusted):
        return peer
    chain = [entry for value in forwarded_for for entry in value.split(",") if entry.strip()]
    hop = str(current)
    for entry in reversed(chain):
        address = _parse(entry)
        if address is None:
            break
        hop = str(address)
        if not _trusted(address, trusted):
            break
    return hop


def forwarded_scheme(peer: str | None, proto: str | None, trusted: Sequence[Network]) -> str | None:
    """``http`` or ``https`` as a trusted proxy reports it, else None (the header is ignored)."""
    if proto is None or not _trusted(_parse(peer or ""), trusted):
        return None
    scheme = proto.split(",")[-1].strip().lower()
    return scheme if scheme in ("http", "https") else None


class ForwardedMiddleware:
    """Sets ``REMOTE_ADDR`` to the client's address and drops the forwarding headers an
    untrusted peer sent; ``X-Forwarded-Proto`` from a trusted proxy stays for
    ``SECURE_PROXY_SSL_HEADER`` (production)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        meta = request.META
        trusted = trusted_networks()
        peer = meta.get("REMOTE_ADDR")
        forwarded = meta.pop("HTTP_X_FORWARDED_FOR", None)
        meta["REMOTE_ADDR"] = client_address(peer, [forwarded] if forwarded else [], trusted)
        scheme = forwarded_scheme(peer, meta.pop("HTTP_X_FORWARDED_PROTO", None), trusted)
        if scheme is not None:
            meta["HTTP_X_FORWARDED_PROTO"] = scheme
        return self.get_response(request)


FORWARDING_HEADERS = (b"x-forwarded-for", b"x-forwarded-proto")


class ForwardedSocketMiddleware:
    """ASGI middleware for WebSocket scopes: ``client`` becomes the client's address (port 0
    when it came from ``X-Forwarded-For``), ``scheme`` ``wss`` when a trusted proxy says the
    client spoke HTTPS, and the forwarding headers are removed."""

    def __init__(self, application: Any) -> None:
        self.application = application

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        if scope["type"] == "websocket":
            scope = resolve_socket_scope(scope, trusted_networks())
        return await self.application(scope, receive, send)


def resolve_socket_scope(scope: dict[str, Any], trusted: Sequence[Network]) -> dict[str, Any]:
    """A copy of the WebSocket ``scope`` with the client and scheme decided."""
    headers = scope.get("headers") or []
    values = {
        name: [v.decode("latin-1") for k, v in headers if k == name] for name in FORWARDING_HEADERS
    }
    client = scope.get("client")
    peer = client[0] if client else None
    address = client_address(peer, values[b"x-forwarded-for"], trusted)
    proto = values[b"x-forwarded-proto"]
    scheme = forwarded_scheme(peer, proto[-1] if proto else None, trusted)
    resolved = {**scope, "headers": [(k, v) for k, v in headers if k not in FORWARDING_HEADERS]}
    if address != peer:
        resolved["client"] = [address, 0]
    if scheme is not None:
        resolved["scheme"] = "wss" if scheme == "https" else "ws"
    return resolved
