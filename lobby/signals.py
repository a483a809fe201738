"""What quick play hears from elsewhere: a player logging out leaves their pool."""

from __future__ import annotations

from typing import Any

from lobby.services import pool_leave


def left_on_logout(sender: Any, request: Any, user: Any, **kwargs: Any) -> None:
    if user is not None and user.is_authenticated:
        pool_leave(user=user)
