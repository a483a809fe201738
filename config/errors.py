"""The one base of the services' refusals, and its one mapping for the sockets.

Every app's service errors derive from ``ServiceError`` (``games.errors.TableError``,
``tournaments.errors.EventError``, ``ratings.selectors.BoardError``, the accounts' own), so an
entry point needs no knowledge of which app refused: the REST API maps any of them in
``config.exceptions.api_exception_handler``, the sockets with ``error_frame`` below, and both give
PROTOCOL.md's error body ``{"error": CODE, "message": TEXT}`` plus the error's extra fields (the
current ``version`` of a ``stale_version``, the ``fields`` of a weak password, ``retry_after``).
"""

from __future__ import annotations

from typing import Any

BAD_REQUEST = "bad_request"
UNAVAILABLE = "unavailable"


class ServiceError(Exception):
    """A refused call: a protocol ``code``, a ``message`` for people, the HTTP ``status`` it
    answers with, and ``extra`` fields merged into the body.

    >>> ServiceError("stale_version", "the table is at version 7", 409, version=7).body()
    {'error': 'stale_version', 'message': 'the table is at version 7', 'version': 7}
    """

    def __init__(self, code: str, message: str, status: int = 400, **extra: Any) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.status = status
        self.extra = extra

    def body(self) -> dict[str, Any]:
        """The error body of PROTOCOL.md, as the REST API answers it."""
        return {"error": self.code, "message": self.message, **self.extra}


def error_frame(error: ServiceError, **answering: Any) -> dict[str, Any]:
    """The socket's ``error`` frame: its ``type``, what names the message it answers (a table
    socket's ``client_id``, None when the message had none or could not be read), and the body.

    >>> error_frame(ServiceError(BAD_REQUEST, "not JSON"), client_id=None)
    {'type': 'error', 'client_id': None, 'error': 'bad_request', 'message': 'not JSON'}
    """
    return {"type": "error", **answering, **error.body()}


def refuse(refusal: ServiceError | None) -> None:
    """Raise ``refusal``, if there is one: how a service acts on its own precondition check (a
    ``*_refusal`` function), which the pages call too, to offer only what would be accepted."""
    if refusal is not None:
        raise refusal
