"""Failed log-ins counted per client address and per username, refused past a limit: the counting
rules of the django-axes handler this project runs (``AXES_HANDLER``).

django-axes guards the doors: its authentication backend, first in ``AUTHENTICATION_BACKENDS``,
asks ``is_locked`` before any password is checked in every ``authenticate`` call (the log-in
page, the admin's log-in, ``POST /api/auth/token/``), and Django's ``user_login_failed`` and
``user_logged_in`` signals reach this handler through it. Its middleware hands a refused page to
``lockout_response`` (429, ``Retry-After``); the token call asks ``login_blocked`` itself, to answer
in the API's error shape. Axes' own handlers are not used because they hold one limit for every
counter, count from the last failure rather than in windows, and clear the address's count on a
success too.

Two counters, because each alone is escaped: one address guessing many usernames is stopped by
the address counter, many addresses guessing one username by the username counter. The username
is counted by its canonical key (accounts.usernames), the key log-ins find the account by, so no
spelling that reaches an account (``Ann``, a fullwidth ``ANN``) is counted apart from it. The
address is DRF's reading of the client (``NUM_PROXIES``), the one the API throttles count. Counts
live in the cache, so with Redis (full mode) every server sees the same ones.

Windows are fixed (``LOGIN_FAILURE_WINDOW`` seconds, numbered from the epoch, read through
``django.utils.timezone.now`` so tests move time): a count starts afresh when a window ends. A
right password clears its username's count, never its address's (else an attacker could clear
theirs by logging into an account of their own between guesses). An attempt refused by the guard
is not counted: no password was checked. The username limit lets anyone lock an account's
password log-in for a window at most, the price of stopping distributed guessing.
"""

from __future__ import annotations

import hashlib
import math
from typing import Any

from axes.backends import AxesStandaloneBackend
from axes.handlers.base import AbstractAxesHandler, AxesBaseHandler
from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest, HttpResponse
from django.utils import timezone
from rest_framework.throttling import BaseThrottle

from accounts.usernames import canonical

# A request the guard refused carries the seconds to wait, for the form's message and the answer.
_WAIT = "login_guard_wait"


def _window() -> tuple[int, float]:
    """The current window's number and the seconds left in it."""
    length = settings.LOGIN_FAILURE_WINDOW
    now = timezone.now().timestamp()
    number = int(now // length)
    return number, (number + 1) * length - now


def client_address(request: Any) -> str:
    """``AXES_CLIENT_IP_CALLABLE``: the client's address as DRF's throttles read it
    (``NUM_PROXIES``)."""
    return str(BaseThrottle().get_ident(request))


def axes_username(request: Any, credentials: dict[str, Any] | None) -> str:
    """The canonical key of the username tried: ``AXES_USERNAME_CALLABLE``."""
    name = (credentials or {}).get("username")
    if name is None:
        name = getattr(request, "POST", {}).get("username", "")
    return canonical(str(name))


def _user_key(number: int, username: str) -> str:
    digest = hashlib.sha256(canonical(username).encode()).hexdigest()
    return f"login-fail:{number}:user:{digest}"


def _keys(request: Any, username: str) -> list[tuple[str, int]]:
    """Each counter's cache key in the current window, with its limit."""
    number, _ = _window()
    address = f"login-fail:{number}:addr:{client_address(request)}"
    return [
        (address, settings.LOGIN_FAILURES_PER_ADDRESS),
        (_user_key(number, username), settings.LOGIN_FAILURES_PER_USERNAME),
    ]


def login_blocked(request: Any, username: str) -> int | None:
    """Seconds until a log-in may be tried again, or None if it may be tried now."""
    if any(cache.get(key, 0) >= limit for key, limit in _keys(request, username)):
        return max(1, math.ceil(_window()[1]))
    return None


def login_failed(request: Any, username: str) -> None:
    """Count a wrong password (or an unknown username) against the address and the username."""
    timeout = settings.LOGIN_FAILURE_WINDOW + 1
    for key, _ in _keys(request, username):
        cache.add(key, 0, timeout=timeout)
        try:
            cache.incr(key)
        except ValueError:  # expired between add and incr: this failure starts the count
            cache.set(key, 1, timeout=timeout)


def login_succeeded(request: Any, username: str) -> None:
    """Clear the username's count: its owner got in."""
    cache.delete(_keys(request, username)[1][0])


def locked_wait(request: Any) -> int | None:
    """The seconds to wait when the guard refused this request's log-in, else None."""
    return getattr(request, _WAIT, None) if getattr(request, "axes_locked_out", False) else None


def locked_message(wait: int) -> str:
    minutes = math.ceil(wait / 60)
    return f"Too many failed log-ins. Try again in {minutes} minute{'s' if minutes != 1 else ''}."


def lockout_response(
    request: HttpRequest, response: HttpResponse, credentials: dict[str, Any] | None
) -> HttpResponse:
    """``AXES_LOCKOUT_CALLABLE``: the log-in page the door answered (its form already says why,
    ``forms.LockoutMessage``), as 429 with ``Retry-After``."""
    wait = locked_wait(request) or max(1, math.ceil(_window()[1]))
    response.status_code = 429
    response["Retry-After"] = str(wait)
    return response


class GuardBackend(AxesStandaloneBackend):
    """Axes' backend, first in ``AUTHENTICATION_BACKENDS``: refuses a locked log-in before any
    password is checked. A call without a request (Django's test client ``login``, a shell) comes
    through no door and has no address to count by; axes would raise, this lets it pass."""

    def authenticate(
        self,
        request: HttpRequest | None,
        username: str | None = None,
        password: str | None = None,
        **kwargs: Any,
    ) -> None:
        if request is not None:
            super().authenticate(request, username, password, **kwargs)


class LoginGuard(AbstractAxesHandler, AxesBaseHandler):
    """The axes handler: the counters above behind axes' interface."""

    def is_locked(self, request: Any, credentials: dict[str, Any] | None = None) -> bool:
        wait = login_blocked(request, axes_username(request, credentials))
        setattr(request, _WAIT, wait)
        return wait is not None

    def get_failures(self, request: Any, credentials: dict[str, Any] | None = None) -> int:
        keys = _keys(request, axes_username(request, credentials))
        return max(int(cache.get(key, 0)) for key, _ in keys)

    def user_login_failed(
        self, sender: Any, credentials: dict[str, Any], request: Any = None, **kwargs: Any
    ) -> None:
        if request is None or getattr(request, "axes_locked_out", False):
            return  # no request to count by, or refused by the guard before any password check
        login_failed(request, axes_username(request, credentials))

    def user_logged_in(self, sender: Any, request: Any, user: Any, **kwargs: Any) -> None:
        if request is not None:
            login_succeeded(request, user.get_username())

    def user_logged_out(self, sender: Any, request: Any, user: Any, **kwargs: Any) -> None:
        pass

    def reset_attempts(
        self,
        *,
        ip_address: str | None = None,
        username: str | None = None,
        ip_or_username: bool = False,
    ) -> int:
        """This window's count of an address or a username, cleared (``manage.py
        axes_reset_ip ADDRESS`` / ``axes_reset_username NAME``, to unlock at once)."""
        number, _ = _window()
        keys = [f"login-fail:{number}:addr:{ip_address}"] if ip_address else []
        keys += [_user_key(number, username)] if username else []
        return sum(bool(cache.delete(key)) for key in keys)
