"""The signed-in user of a request, typed as our ``User``."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import PermissionDenied

from accounts.models import User


def signed_in(request: Any) -> User:
    """``request.user`` where the view lets in only signed-in users (DRF's ``IsAuthenticated``,
    ``login_required``, the admin): the check is theirs, this only says so to the type checker,
    and refuses rather than pass an anonymous user on should a view forget it.

    :raises PermissionDenied: nobody is signed in.
    """
    user = request.user
    if not isinstance(user, User):
        raise PermissionDenied("sign in first")
    return user
