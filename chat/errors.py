"""The chat services' refusals: ``ServiceError``s (``config.errors``) with their codes."""

from __future__ import annotations

from config.errors import ServiceError

NOT_FOUND = "not_found"
FORBIDDEN = "forbidden"
BAD_TEXT = "chat_bad_text"
RATE_LIMITED = "chat_rate_limited"
CHAT_OFF = "chat_off"
LOGIN = "chat_login_required"


class ChatError(ServiceError):
    """A refused chat call."""


def not_found(what: str) -> ChatError:
    return ChatError(NOT_FOUND, f"no {what}", 404)


def forbidden(message: str) -> ChatError:
    return ChatError(FORBIDDEN, message, 403)


def bad_text(message: str) -> ChatError:
    return ChatError(BAD_TEXT, message, 400)


def chat_off() -> ChatError:
    return ChatError(CHAT_OFF, "the chat of this room is turned off", 403)


def login_required() -> ChatError:
    return ChatError(LOGIN, "log in to chat", 403)


def rate_limited(message: str, retry_after: float) -> ChatError:
    return ChatError(RATE_LIMITED, message, 429, retry_after=retry_after)
