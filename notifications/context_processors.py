"""``{{ notifications_unread }}`` for the bell in every page's header (signed-in users only):
the count as the page is made; ``/ws/me/`` keeps it current after that."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest

from notifications.selectors import unread_count


def unread(request: HttpRequest) -> dict[str, Any]:
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {}
    return {"notifications_unread": unread_count(user.pk)}
