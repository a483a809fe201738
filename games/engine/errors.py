"""The two error kinds of the engine and the protocol's error codes.

``InvalidAction`` is a malformed request (code ``bad_request``); ``IllegalAction`` is a well-formed
action that the rules do not allow now. ``ConfigError`` refuses an unplayable rule configuration.
"""

from __future__ import annotations

BAD_REQUEST = "bad_request"
NOT_YOUR_TURN = "not_your_turn"
WRONG_PHASE = "wrong_phase"
NOT_IN_HAND = "not_in_hand"
INVALID_MELD = "invalid_meld"
INVALID_LAYOFF = "invalid_layoff"
UNKNOWN_MELD = "unknown_meld"
PICKUP_NOT_MELDABLE = "pickup_not_meldable"
REQUIRED_CARD_PENDING = "required_card_pending"
CANNOT_DISCARD_TAKEN_CARD = "cannot_discard_taken_card"
MUST_KEEP_DISCARD = "must_keep_discard"
NO_RUMMY = "no_rummy"
GAME_OVER = "game_over"
STALE_VERSION = "stale_version"
NOT_SEATED = "not_seated"
FORBIDDEN = "forbidden"

ERROR_CODES = (
    BAD_REQUEST,
    NOT_YOUR_TURN,
    WRONG_PHASE,
    NOT_IN_HAND,
    INVALID_MELD,
    INVALID_LAYOFF,
    UNKNOWN_MELD,
    PICKUP_NOT_MELDABLE,
    REQUIRED_CARD_PENDING,
    CANNOT_DISCARD_TAKEN_CARD,
    MUST_KEEP_DISCARD,
    NO_RUMMY,
    GAME_OVER,
    STALE_VERSION,
    NOT_SEATED,
    FORBIDDEN,
)


class EngineError(Exception):
    """Base of the action errors: a protocol ``code`` and a human ``message``."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


class InvalidAction(EngineError):
    """A malformed action, card or state (protocol code ``bad_request``).

    >>> InvalidAction("no such card: 1S").code
    'bad_request'
    """

    def __init__(self, message: str) -> None:
        super().__init__(BAD_REQUEST, message)


class IllegalAction(EngineError):
    """A well-formed action the rules do not allow now.

    >>> e = IllegalAction("not_your_turn", "it is bob's turn")
    >>> (e.code, e.message)
    ('not_your_turn', "it is bob's turn")
    """


class ConfigError(ValueError):
    """An unknown, mistyped or unplayable rule configuration; the message names the field.

    >>> ConfigError("target", "must be at least 1").field
    'target'
    """

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


class StateError(ValueError):
    """A full state (or scenario) that is malformed or inconsistent; the message says what."""
