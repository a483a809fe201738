"""The table services' refusals: ``ServiceError``s (``config.errors``) with the protocol's codes.

Engine errors keep their protocol codes (``games.engine.errors``, mapped here in one place by
``TableError.from_engine``); the services add their own for the table's life before and after the
game: ``not_found``, ``table_full``, ``already_started``, ``not_enough_players``, ``paused``
for an action while an organizer has paused the table, and ``rematch_over`` for an answer to a
rematch offer that a decline or the clock has ended, and ``too_many_tables`` for a seat past the
cap on waiting tables one player holds (``games.waiting``).
"""

from __future__ import annotations

from config.errors import ServiceError
from games.engine.errors import EngineError

NOT_FOUND = "not_found"
TABLE_FULL = "table_full"
ALREADY_STARTED = "already_started"
NOT_ENOUGH_PLAYERS = "not_enough_players"
PAUSED = "paused"
REMATCH_OVER = "rematch_over"
TOO_MANY_TABLES = "too_many_tables"


class TableError(ServiceError):
    """A refused call to a table service; ``extra`` is merged into the answer, e.g. the current
    ``version`` of a ``stale_version``."""

    @classmethod
    def not_found(cls, table_id: int) -> TableError:
        return cls(NOT_FOUND, f"no table {table_id}", status=404)

    @classmethod
    def from_engine(cls, exc: EngineError) -> TableError:
        """The engine's refusal (malformed or illegal) under its own protocol code."""
        return cls(exc.code, exc.message)
