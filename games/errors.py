"""The one error type of the table services, mapped to REST answers and WebSocket error frames.

Engine errors keep their protocol codes (``games.engine.errors``); the services add their own for
the table's life before and after the game: ``not_found``, ``table_full``, ``already_started``,
``not_enough_players`` and ``not_authenticated``, and ``paused`` for an action while an organizer
has paused the table.
"""

from __future__ import annotations

from typing import Any

from games.engine.errors import EngineError

NOT_FOUND = "not_found"
TABLE_FULL = "table_full"
ALREADY_STARTED = "already_started"
NOT_ENOUGH_PLAYERS = "not_enough_players"
PAUSED = "paused"


class TableError(Exception):
    """A refused call: a protocol ``code``, a ``message``, the HTTP ``status`` and extra fields.

    ``extra`` is merged into the answer, e.g. the current ``version`` of a ``stale_version``.
    """

    def __init__(self, code: str, message: str, status: int = 400, **extra: Any) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.status = status
        self.extra = extra

    @classmethod
    def not_found(cls, table_id: int) -> TableError:
        return cls(NOT_FOUND, f"no table {table_id}", status=404)

    @classmethod
    def from_engine(cls, exc: EngineError) -> TableError:
        return cls(exc.code, exc.message)

    def to_dict(self) -> dict[str, Any]:
        return {"error": self.code, "message": self.message, **self.extra}
