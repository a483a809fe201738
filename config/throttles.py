"""Rate limits that hold at every door: one counter per scope and client, whether the request
came through the API or a page.

They are DRF throttles (rates in ``REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]``, counts in the
cache, so with Redis every server counts together), listed in an API view's
``throttle_classes``; a page asks ``page_wait`` with the same class, so the page and the API
spend one budget. The client address is ``REMOTE_ADDR`` as ``config.forwarded`` decided it (from
``X-Forwarded-For`` only through ``TRUSTED_PROXIES``), read by DRF as for the log-in guard.
"""

from __future__ import annotations

import math
from typing import Any

from django.http import HttpRequest
from rest_framework.throttling import SimpleRateThrottle


class SignUpThrottle(SimpleRateThrottle):
    """New accounts per client address (scope ``signup``): one address cannot mint accounts by
    the dozen, to crowd the lobby or a leaderboard."""

    scope = "signup"

    def get_cache_key(self, request: Any, view: Any) -> str:
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}


class EntryThrottle(SimpleRateThrottle):
    """Event registrations and withdrawals per player (scope ``entries``), whatever their
    address: each one changes a public list and may notify the organizers."""

    scope = "entries"

    def get_cache_key(self, request: Any, view: Any) -> str:
        user = request.user
        ident = f"user-{user.pk}" if user.is_authenticated else self.get_ident(request)
        return self.cache_format % {"scope": self.scope, "ident": ident}


def page_wait(request: HttpRequest, throttle: type[SimpleRateThrottle]) -> int | None:
    """Count a page's request against ``throttle``: None if it is within the rate, else the
    whole seconds until one would be."""
    counter = throttle()
    if counter.allow_request(request, None):  # type: ignore[arg-type]  # reads META and user
        return None
    return max(1, math.ceil(counter.wait() or 1))
