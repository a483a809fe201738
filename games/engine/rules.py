"""The rule configuration: every field of RULES.md, the presets, and their checks.

``Rules`` is one frozen dataclass. ``Rules.from_dict`` takes an optional ``"preset"`` plus
overrides and refuses unknown fields, wrong types and impossible values with a ``ConfigError``
naming the field. Checks that need the player count (enough cards to deal) are made by
``Rules.check_players``, called when a game is created.

Bounds chosen where RULES.md gives none: ``low_ace`` 0-15, ``min_naturals`` 0-3 (above 3 no
three-card meld could ever be made), hand sizes 1-108 (two decks with their jokers), ``target``
1-100,000 (200 times the usual 500: a game to it would run for thousands of hands),
``turn_seconds`` 1-86,400 and ``time_bank_seconds`` 0-86,400 (a day; the services allow less),
``max_timeouts`` 1-10,000. Every whole number has an upper bound, so none overflows a column.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, fields
from typing import Any

from .errors import ConfigError

VALUE_TABLES = ("pip", "five_ten", "low5_high10")
STOCK_OUT = ("end", "reshuffle")
MIN_PLAYERS = 2
MAX_PLAYERS = 8
TARGET_MAX = 100_000
HAND_SIZE_MAX = 108
SECONDS_MAX = 86_400


@dataclass(frozen=True, slots=True)
class Rules:
    """A rule configuration (defaults as RULES.md writes them).

    >>> Rules().target, Rules.preset("six-deal").hand_size_five_plus
    (500, 6)
    """

    values: str = "pip"
    low_ace: int = 1
    jokers_per_deck: int = 2
    two_decks_from: int = 5
    hand_size_two: int = 13
    hand_size: int = 7
    hand_size_five_plus: int | None = None
    set_distinct_suits: bool = True
    run_wraps: bool = False
    min_naturals: int = 1
    no_rediscard_top: bool = True
    stock_out: str = "end"
    target: int = 500
    must_discard_to_go_out: bool = False
    top_discard_must_meld: bool = False
    deep_pickup_new_meld: bool = False
    rummy_call: bool = False
    winner_must_go_out: bool = False
    turn_seconds: int = 60
    time_bank_seconds: int = 0
    max_timeouts: int = 3

    def __post_init__(self) -> None:
        for f in fields(self):
            _check_field(f.name, getattr(self, f.name))

    @classmethod
    def preset(cls, name: str) -> Rules:
        """The preset called ``name``.

        >>> Rules.preset("no-jokers").jokers_per_deck
        0

        :raises ConfigError: an unknown preset name (field ``preset``).
        """
        if not isinstance(name, str) or name not in PRESETS:
            raise ConfigError("preset", f"unknown preset {name!r}; known: {', '.join(PRESETS)}")
        return PRESETS[name]

    @classmethod
    def from_dict(cls, data: object) -> Rules:
        """A configuration from ``{"preset": ..., field: value, ...}`` (all keys optional).

        >>> Rules.from_dict({"preset": "strict-club", "target": 300}).rummy_call
        True
        >>> Rules.from_dict({"colour": "red"})
        Traceback (most recent call last):
        ...
        games.engine.errors.ConfigError: colour: unknown rule field

        :raises ConfigError: not an object, unknown field, wrong type or impossible value.
        """
        if not isinstance(data, dict):
            raise ConfigError("rules", "must be a JSON object")
        base = cls.preset(data["preset"]) if "preset" in data else cls()
        overrides = {k: v for k, v in data.items() if k != "preset"}
        for key in overrides:
            if key not in _FIELD_NAMES:
                raise ConfigError(str(key), "unknown rule field")
        return dataclasses.replace(base, **overrides)

    def to_dict(self) -> dict[str, Any]:
        """Every field, JSON-ready; ``Rules.from_dict(r.to_dict()) == r``.

        >>> Rules().to_dict()["stock_out"]
        'end'
        """
        return {f.name: getattr(self, f.name) for f in fields(self)}

    def decks_for(self, players: int) -> int:
        """How many decks a table of ``players`` uses.

        >>> Rules().decks_for(4), Rules().decks_for(5)
        (1, 2)
        """
        return 2 if players >= self.two_decks_from else 1

    def meld_options(self, decks: int) -> dict[str, Any]:
        """Keyword options of ``build_meld``/``extend_meld`` for a table of ``decks`` decks.

        >>> Rules().meld_options(2)
        {'wraps': False, 'distinct': True, 'max_set': 4, 'min_naturals': 1}
        >>> Rules(set_distinct_suits=False).meld_options(2)["max_set"]
        8
        """
        return {
            "wraps": self.run_wraps,
            "distinct": self.set_distinct_suits,
            "max_set": 4 if self.set_distinct_suits else 4 * decks,
            "min_naturals": self.min_naturals,
        }

    def hand_size_for(self, players: int) -> int:
        """How many cards each player is dealt.

        >>> Rules().hand_size_for(2), Rules(hand_size_five_plus=6).hand_size_for(5)
        (13, 6)
        """
        return self.hand_size_field(players)[1]

    def hand_size_field(self, players: int) -> tuple[str, int]:
        """The field that sets the hand size for ``players``, and its value."""
        if players == 2:
            return "hand_size_two", self.hand_size_two
        if players >= 5 and self.hand_size_five_plus is not None:
            return "hand_size_five_plus", self.hand_size_five_plus
        return "hand_size", self.hand_size

    def check_players(self, players: int) -> None:
        """Refuse a table this configuration cannot deal to.

        >>> Rules(two_decks_from=9).check_players(8)  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        games.engine.errors.ConfigError: hand_size: 8 players x 7 cards need 57 cards ...

        :raises ConfigError: fewer than 2 or more than 8 players, or not enough cards.
        """
        if not MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise ConfigError("players", f"{players} players; a table seats 2 to 8")
        decks = self.decks_for(players)
        cards = decks * (52 + self.jokers_per_deck)
        name, size = self.hand_size_field(players)
        if players * size + 1 > cards:
            held = "one deck holds" if decks == 1 else "two decks hold"
            raise ConfigError(
                name,
                f"{players} players x {size} cards need {players * size + 1} cards "
                f"({players * size} dealt and 1 to start the discard pile) but {held} {cards}"
                " (see two_decks_from)",
            )


_INT_BOUNDS: dict[str, tuple[int, int]] = {
    "low_ace": (0, 15),
    "jokers_per_deck": (0, 2),
    "two_decks_from": (2, 9),
    "hand_size_two": (1, HAND_SIZE_MAX),
    "hand_size": (1, HAND_SIZE_MAX),
    "hand_size_five_plus": (1, HAND_SIZE_MAX),
    "min_naturals": (0, 3),
    "target": (1, TARGET_MAX),
    "turn_seconds": (1, SECONDS_MAX),
    "time_bank_seconds": (0, SECONDS_MAX),
    "max_timeouts": (1, 10_000),
}
_CHOICES: dict[str, tuple[str, ...]] = {"values": VALUE_TABLES, "stock_out": STOCK_OUT}


def _check_field(name: str, value: object) -> None:
    if name in _CHOICES:
        if not isinstance(value, str) or value not in _CHOICES[name]:
            raise ConfigError(name, f"must be one of {', '.join(_CHOICES[name])}, not {value!r}")
    elif name in _INT_BOUNDS:
        if value is None and name == "hand_size_five_plus":
            return
        if not isinstance(value, int) or isinstance(value, bool):
            raise ConfigError(name, f"must be a whole number, not {value!r}")
        low, high = _INT_BOUNDS[name]
        if not low <= value <= high:
            raise ConfigError(name, f"must be from {low} to {high}, not {value}")
    elif not isinstance(value, bool):
        raise ConfigError(name, f"must be true or false, not {value!r}")


_FIELD_NAMES = frozenset(f.name for f in fields(Rules))

PRESETS: dict[str, Rules] = {
    "standard": Rules(),
    "no-jokers": Rules(jokers_per_deck=0),
    "five-ten-fifteen": Rules(values="five_ten"),
    "six-deal": Rules(hand_size_five_plus=6, jokers_per_deck=0),
    "reshuffle-classic": Rules(
        values="low5_high10", jokers_per_deck=0, two_decks_from=6, stock_out="reshuffle"
    ),
    "strict-club": Rules(must_discard_to_go_out=True, top_discard_must_meld=True, rummy_call=True),
}
