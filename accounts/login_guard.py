"""Failed log-ins counted per client address and per username, refused past a limit.

Every door that checks a password (the log-in page, ``POST /api/auth/token/``) asks
``login_blocked`` first, reports a wrong password with ``login_failed`` and a right one with
``login_succeeded``. Two counters, because each alone is escaped: one address guessing many
usernames is stopped by the address counter, many addresses guessing one username by the
username counter. Counts live in the cache, so with Redis (full mode) every server sees the same
ones.

Windows are fixed (``LOGIN_FAILURE_WINDOW`` seconds, numbered from the epoch, read through
``django.utils.timezone.now`` so tests move time): a count starts afresh when a window ends. A
right password clears its username's count, never its address's (else an attacker could clear
theirs by logging into an account of their own between guesses). The username limit lets anyone
lock an account's password log-in for a window at most, the price of stopping distributed guessing.
"""

from __future__ import annotations

import hashlib
import math

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest
from django.utils import timezone
from rest_framework.throttling import BaseThrottle


def _window() -> tuple[int, float]:
    """The current window's number and the seconds left in it."""
    length = settings.LOGIN_FAILURE_WINDOW
    now = timezone.now().timestamp()
    number = int(now // length)
    return number, (number + 1) * length - now


def _address(request: HttpRequest) -> str:
    # DRF's reading of the client address, so NUM_PROXIES governs both kinds of throttling.
    return str(BaseThrottle().get_ident(request))  # type: ignore[arg-type]  # reads META only


def _keys(request: HttpRequest, username: str) -> list[tuple[str, int]]:
    """Each counter's cache key in the current window, with its limit."""
    number, _ = _window()
    name = hashlib.sha256(username.strip().casefold().encode()).hexdigest()
    return [
        (f"login-fail:{number}:addr:{_address(request)}", settings.LOGIN_FAILURES_PER_ADDRESS),
        (f"login-fail:{number}:user:{name}", settings.LOGIN_FAILURES_PER_USERNAME),
    ]


def login_blocked(request: HttpRequest, username: str) -> int | None:
    """Seconds until a log-in may be tried again, or None if it may be tried now."""
    if any(cache.get(key, 0) >= limit for key, limit in _keys(request, username)):
        return max(1, math.ceil(_window()[1]))
    return None


def login_failed(request: HttpRequest, username: str) -> None:
    """Count a wrong password (or an unknown username) against the address and the username."""
    timeout = settings.LOGIN_FAILURE_WINDOW + 1
    for key, _ in _keys(request, username):
        cache.add(key, 0, timeout=timeout)
        try:
            cache.incr(key)
        except ValueError:  # expired between add and incr: this failure starts the count
            cache.set(key, 1, timeout=timeout)


def login_succeeded(request: HttpRequest, username: str) -> None:
    """Clear the username's count: its owner got in."""
    cache.delete(_keys(request, username)[1][0])
