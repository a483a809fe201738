"""Events: what happened, for the server to log and push.

An event's ``data`` is public. A stock draw's card is kept in ``private`` (for the drawing
player only) and left out of ``to_dict()`` unless asked for.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any


class EventType(StrEnum):
    """What happened; the values are the ``type`` of the logged and pushed events."""

    DREW = "drew"
    MELDED = "melded"
    LAID_OFF = "laid_off"
    DISCARDED = "discarded"
    RUMMY = "rummy"
    RESHUFFLED = "reshuffled"
    HAND_ENDED = "hand_ended"
    GAME_ENDED = "game_ended"
    TIMEOUT = "timeout"
    ABSENT = "absent"
    BACK = "back"


@dataclass(frozen=True, slots=True)
class Event:
    """One event: its ``type``, the acting ``player`` (or None) and public ``data``.

    >>> Event(EventType.DREW, "ann", {"source": "stock"}, {"card": "9D"}).to_dict()
    {'type': 'drew', 'player': 'ann', 'source': 'stock'}
    """

    type: EventType
    player: str | None = None
    data: dict[str, Any] = field(default_factory=dict)
    private: dict[str, Any] | None = None

    def to_dict(self, *, include_private: bool = False) -> dict[str, Any]:
        """The JSON form; the private part only with ``include_private``."""
        out: dict[str, Any] = {"type": self.type.value, "player": self.player, **self.data}
        if include_private and self.private:
            out.update(self.private)
        return out
