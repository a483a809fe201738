"""The event services' refusals: ``ServiceError``s (``config.errors``) with the protocol's codes."""

from __future__ import annotations

from config.errors import ServiceError


class EventError(ServiceError):
    """A refused call to an event service."""


def forbidden(message: str) -> EventError:
    return EventError("forbidden", message, 403)


def wrong_status(message: str) -> EventError:
    return EventError("wrong_status", message, 409)


def not_eligible(message: str) -> EventError:
    return EventError("not_eligible", message, 403)
