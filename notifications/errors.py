"""The notifications' refusals: a ``config.errors.ServiceError`` like every app's."""

from __future__ import annotations

from config.errors import ServiceError


class NotificationError(ServiceError):
    """A refused call about notices or their settings (``bad_request``)."""
