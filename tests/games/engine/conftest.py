"""Helpers for the engine tests: build a position from a compact description."""

from collections.abc import Callable
from typing import Any

import pytest

from games.engine import GameState, Rules, state_from_dict

Build = Callable[..., GameState]


def build_state(
    hands: dict[str, list[str]],
    *,
    turn: str | None = None,
    phase: str = "draw",
    stock: list[str] | None = None,
    discard: list[str] | None = None,
    rules: dict[str, Any] | None = None,
    **extra: Any,
) -> GameState:
    """A state from the players' hands (seat order = dict order) and optional fields."""
    names = list(hands)
    d: dict[str, Any] = {
        "players": [{"name": n, "hand": h} for n, h in hands.items()],
        "turn": turn or names[0],
        "phase": phase,
        "stock": stock if stock is not None else ["JD", "QD"],
        "discard": discard if discard is not None else ["KH"],
        **extra,
    }
    return state_from_dict(d, Rules.from_dict(rules or {}))


@pytest.fixture
def make() -> Build:
    return build_state
