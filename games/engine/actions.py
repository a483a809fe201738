"""Actions: the protocol's action objects, parsed strictly.

``{"type": "draw", "source": "discard"}`` without ``count`` means ``count`` 1. Unknown keys,
wrong types, a bare ``*`` in a meld or lay-off and a ``count`` below 1 are ``bad_request``.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from .cards import Card, format_card, format_played, parse_card, parse_played
from .errors import InvalidAction
from .melds import Played


class ActionType(StrEnum):
    """The ``type`` of an action object (PROTOCOL.md, "Actions")."""

    DRAW = "draw"
    MELD = "meld"
    LAYOFF = "layoff"
    DISCARD = "discard"
    RUMMY = "rummy"


class DrawSource(StrEnum):
    """Where a draw takes from."""

    STOCK = "stock"
    DISCARD = "discard"


@dataclass(frozen=True, slots=True)
class Action(ABC):
    """Base of every action; ``to_dict()`` gives the protocol's JSON object."""

    @abstractmethod
    def to_dict(self) -> dict[str, Any]:
        """The protocol form."""


@dataclass(frozen=True, slots=True)
class Draw(Action):
    """Draw from the stock (``count`` 0) or ``count`` cards from the top of the discard pile."""

    source: DrawSource
    count: int = 0

    def to_dict(self) -> dict[str, Any]:
        if self.source == DrawSource.STOCK:
            return {"type": ActionType.DRAW.value, "source": DrawSource.STOCK.value}
        return {
            "type": ActionType.DRAW.value,
            "source": DrawSource.DISCARD.value,
            "count": self.count,
        }


@dataclass(frozen=True, slots=True)
class MeldAction(Action):
    """A new meld from the hand."""

    cards: tuple[Played, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "type": ActionType.MELD.value,
            "cards": [format_played(c, s) for c, s in self.cards],
        }


@dataclass(frozen=True, slots=True)
class Layoff(Action):
    """Cards added to meld ``meld`` (anyone's)."""

    meld: int
    cards: tuple[Played, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "type": ActionType.LAYOFF.value,
            "meld": self.meld,
            "cards": [format_played(c, s) for c, s in self.cards],
        }


@dataclass(frozen=True, slots=True)
class Discard(Action):
    """Discard one card, ending the turn."""

    card: Card

    def to_dict(self) -> dict[str, Any]:
        return {"type": ActionType.DISCARD.value, "card": format_card(self.card)}


@dataclass(frozen=True, slots=True)
class Rummy(Action):
    """A "Rummy!" claim: take ``count`` discards and meld the deepest with taken cards only."""

    count: int
    melds: tuple[tuple[Played, ...], ...] = ()
    layoffs: tuple[tuple[int, tuple[Played, ...]], ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "type": ActionType.RUMMY.value,
            "count": self.count,
            "melds": [{"cards": [format_played(c, s) for c, s in m]} for m in self.melds],
            "layoffs": [
                {"meld": i, "cards": [format_played(c, s) for c, s in cs]} for i, cs in self.layoffs
            ],
        }


def _keys(d: dict[str, Any], allowed: set[str], what: str) -> None:
    extra = set(d) - allowed
    if extra:
        raise InvalidAction(f"unknown key(s) in {what}: {', '.join(sorted(map(str, extra)))}")


def _int(d: dict[str, Any], key: str) -> int:
    value = d.get(key)
    if not isinstance(value, int) or isinstance(value, bool):
        raise InvalidAction(f"{key} must be a whole number")
    return value


def _played_list(value: object, what: str) -> tuple[Played, ...]:
    if not isinstance(value, list) or not value:
        raise InvalidAction(f"{what} must be a non-empty list of cards")
    return tuple(parse_played(t) for t in value)


def _parse_draw(d: dict[str, Any]) -> Draw:
    _keys(d, {"type", "source", "count"}, "draw")
    source = d.get("source")
    if source == DrawSource.STOCK:
        if "count" in d:
            raise InvalidAction("a draw from the stock takes no count")
        return Draw(DrawSource.STOCK)
    if source != DrawSource.DISCARD:
        raise InvalidAction('source must be "stock" or "discard"')
    count = _int(d, "count") if "count" in d else 1
    if count < 1:
        raise InvalidAction("count must be at least 1")
    return Draw(DrawSource.DISCARD, count)


def _parse_rummy(d: dict[str, Any]) -> Rummy:
    _keys(d, {"type", "count", "melds", "layoffs"}, "rummy")
    count = _int(d, "count")
    if count < 1:
        raise InvalidAction("count must be at least 1")
    melds, layoffs = d.get("melds", []), d.get("layoffs", [])
    if not isinstance(melds, list) or not isinstance(layoffs, list):
        raise InvalidAction("melds and layoffs must be lists")
    parsed_melds = []
    for m in melds:
        if not isinstance(m, dict):
            raise InvalidAction("each meld must be an object with cards")
        _keys(m, {"cards"}, "meld")
        parsed_melds.append(_played_list(m.get("cards"), "cards"))
    parsed_layoffs = []
    for lo in layoffs:
        if not isinstance(lo, dict):
            raise InvalidAction("each layoff must be an object with meld and cards")
        _keys(lo, {"meld", "cards"}, "layoff")
        parsed_layoffs.append((_int(lo, "meld"), _played_list(lo.get("cards"), "cards")))
    return Rummy(count, tuple(parsed_melds), tuple(parsed_layoffs))


def parse_action(data: object) -> Action:
    """An action from its protocol dict.

    >>> parse_action({"type": "draw", "source": "discard", "count": 3})
    Draw(source=<DrawSource.DISCARD: 'discard'>, count=3)
    >>> parse_action({"type": "meld", "cards": ["7S", "8S", "*9S"]}).to_dict()
    {'type': 'meld', 'cards': ['7S', '8S', '*9S']}
    >>> parse_action({"type": "pass"})
    Traceback (most recent call last):
    ...
    games.engine.errors.InvalidAction: bad_request: unknown action type 'pass'

    :raises InvalidAction: anything malformed.
    """
    if not isinstance(data, dict):
        raise InvalidAction("an action must be a JSON object")
    kind = data.get("type")
    if kind == ActionType.DRAW:
        return _parse_draw(data)
    if kind == ActionType.MELD:
        _keys(data, {"type", "cards"}, "meld")
        return MeldAction(_played_list(data.get("cards"), "cards"))
    if kind == ActionType.LAYOFF:
        _keys(data, {"type", "meld", "cards"}, "layoff")
        return Layoff(_int(data, "meld"), _played_list(data.get("cards"), "cards"))
    if kind == ActionType.DISCARD:
        _keys(data, {"type", "card"}, "discard")
        return Discard(parse_card(data.get("card")))
    if kind == ActionType.RUMMY:
        return _parse_rummy(data)
    raise InvalidAction(f"unknown action type {kind!r}")
