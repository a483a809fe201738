"""Events: what happened, for the server to log and push.

An event's ``data`` is public. A stock draw's card is kept in ``private`` (for the drawing
player only) and left out of ``to_dict()`` unless asked for.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class Event:
    """One event: ``type`` (drew, melded, laid_off, discarded, rummy, reshuffled, hand_ended,
    game_ended, timeout, back), the acting ``player`` (or None) and public ``data``.

    >>> Event("drew", "ann", {"source": "stock"}, {"card": "9D"}).to_dict()
    {'type': 'drew', 'player': 'ann', 'source': 'stock'}
    """

    type: str
    player: str | None = None
    data: dict[str, Any] = field(default_factory=dict)
    private: dict[str, Any] | None = None

    def to_dict(self, *, include_private: bool = False) -> dict[str, Any]:
        """The JSON form; the private part only with ``include_private``."""
        out: dict[str, Any] = {"type": self.type, "player": self.player, **self.data}
        if include_private and self.private:
            out.update(self.private)
        return out
