"""The one error type of the event services, answered as ``{"error", "message"}``."""

from __future__ import annotations


class EventError(Exception):
    """A refused call: a protocol-style ``code``, a ``message`` and the HTTP ``status``."""

    def __init__(self, code: str, message: str, status: int = 400) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.status = status

    def to_dict(self) -> dict[str, str]:
        return {"error": self.code, "message": self.message}


def forbidden(message: str) -> EventError:
    return EventError("forbidden", message, 403)


def wrong_status(message: str) -> EventError:
    return EventError("wrong_status", message, 409)


def not_eligible(message: str) -> EventError:
    return EventError("not_eligible", message, 403)
