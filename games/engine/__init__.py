"""Rummy 500 rules engine: pure Python, no Django, fully typed.

The public API (others code against these names): cards and notation, the rule configuration,
actions, immutable game states and ``apply``, legal actions, timeout play, views, loading a full
state, the fair shuffle, and the replay tool. See RULES.md, PROTOCOL.md and
docs/engine-decisions.md for the contract and every choice made where it is silent.
"""

from .actions import (
    Action,
    ActionType,
    Discard,
    Draw,
    DrawSource,
    Layoff,
    MeldAction,
    Rummy,
    parse_action,
)
from .cards import JOKER, Card, format_card, format_played, parse_card, parse_played
from .engine import Transition, apply
from .errors import ERROR_CODES, ConfigError, EngineError, IllegalAction, InvalidAction, StateError
from .events import Event, EventType
from .legal import legal_actions
from .load import state_from_dict
from .melds import Meld, TableCard
from .replay import ScenarioError, run_scenario
from .rules import PRESETS, Rules
from .scoring import card_value, hand_scores, hand_value, meld_points
from .shuffle import commitment, shuffled_deck
from .state import Ended, GameState, HandResult, Phase, PlayerState, Score, deal_next_hand, new_game
from .summary import rules_summary
from .timeout import apply_timeout, mark_absent, mark_back, timeout_action
from .views import full_state, player_view, public_view

__all__ = [
    "ERROR_CODES",
    "JOKER",
    "PRESETS",
    "Action",
    "ActionType",
    "Card",
    "ConfigError",
    "Discard",
    "Draw",
    "DrawSource",
    "Ended",
    "EngineError",
    "Event",
    "EventType",
    "GameState",
    "HandResult",
    "IllegalAction",
    "InvalidAction",
    "Layoff",
    "Meld",
    "MeldAction",
    "Phase",
    "PlayerState",
    "Rules",
    "Rummy",
    "ScenarioError",
    "Score",
    "StateError",
    "TableCard",
    "Transition",
    "apply",
    "apply_timeout",
    "card_value",
    "commitment",
    "deal_next_hand",
    "format_card",
    "format_played",
    "full_state",
    "hand_scores",
    "hand_value",
    "legal_actions",
    "mark_absent",
    "mark_back",
    "meld_points",
    "new_game",
    "parse_action",
    "parse_card",
    "parse_played",
    "player_view",
    "public_view",
    "rules_summary",
    "run_scenario",
    "shuffled_deck",
    "state_from_dict",
    "timeout_action",
]
