"""The replay tool: run a scenario file and print the results and the final full state.

A scenario: ``{"rules": {"preset": ..., overrides...}, "players": [names], "deal": {...},
"actions": [{"player": name, ...protocol action...}, ...]}``. The deal is one of:

- ``{"seed": S}``: each hand ``h`` is shuffled with seed ``str(S)`` and hand number ``h``;
- ``{"deck": [...]}`` or ``{"decks": [[...], ...]}``: the dealing order of each hand in turn
  (``deck`` is ``decks`` with one entry); ``seed`` may be given too, for the hands after the list;
- ``{"state": {...}}``: play starts from exactly that full state (``players`` may then be left out;
  when given, it must name the state's players in seat order).

When a hand ends and the game is not over, the next hand is dealt at once from ``decks[h-1]``,
else by the seed; with neither the state stays in ``hand_over``. Each action gives
``{"ok": true}`` or ``{"ok": false, "error": CODE, "message": ...}``; a refused action changes
nothing. An action without a ``player`` string is ``bad_request``.
"""

from __future__ import annotations

from typing import Any

from .engine import apply
from .errors import ConfigError, EngineError, StateError
from .load import state_from_dict
from .rules import Rules
from .state import GameState, Phase, deal_next_hand, new_game
from .views import full_state

_NOTES = {"name", "description", "comment", "notes", "expect"}


class ScenarioError(ValueError):
    """A malformed or inconsistent scenario; the message says what is wrong."""


def _deal_source(deal: dict[str, Any]) -> tuple[str | None, list[Any]]:
    unknown = set(deal) - {"seed", "deck", "decks", "state"}
    if unknown:
        raise ScenarioError(f"unknown key(s) in deal: {', '.join(sorted(unknown))}")
    seed = deal.get("seed")
    if seed is not None and (not isinstance(seed, str | int) or isinstance(seed, bool)):
        raise ScenarioError("deal.seed must be a string or an integer")
    if "deck" in deal and "decks" in deal:
        raise ScenarioError("give deal.deck or deal.decks, not both")
    decks = [deal["deck"]] if "deck" in deal else deal.get("decks", [])
    if not isinstance(decks, list) or not all(isinstance(d, list) for d in decks):
        raise ScenarioError("deal.decks must be a list of card lists")
    return (None if seed is None else str(seed)), decks


def _start(scenario: dict[str, Any], rules: Rules) -> tuple[GameState, str | None, list[Any]]:
    deal = scenario.get("deal", {})
    if not isinstance(deal, dict):
        raise ScenarioError("deal must be an object")
    if "state" in deal:
        if set(deal) != {"state"}:
            raise ScenarioError("deal.state cannot be combined with seed, deck or decks")
        try:
            state = state_from_dict(deal["state"], rules)
        except StateError as exc:
            raise ScenarioError(f"deal.state: {exc}") from None
        players = scenario.get("players")
        if players is not None and players != list(state.names):
            raise ScenarioError(
                f"players {players!r} differ from the players of deal.state {list(state.names)!r}"
            )
        return state, None, []
    seed, decks = _deal_source(deal)
    if seed is None and not decks:
        raise ScenarioError("deal needs a seed, a deck, decks or a state")
    players = scenario.get("players")
    try:
        if decks:
            return new_game(rules, players or [], deck=decks[0]), seed, decks
        return new_game(rules, players or [], seed=seed), seed, decks
    except ConfigError as exc:
        raise ScenarioError(str(exc)) from None


def _next_hand(state: GameState, seed: str | None, decks: list[Any]) -> GameState:
    if state.phase != Phase.HAND_OVER:
        return state
    h = state.hand_number + 1
    try:
        if len(decks) >= h:
            return deal_next_hand(state, deck=decks[h - 1])
        if seed is not None:
            return deal_next_hand(state, seed=seed)
    except ConfigError as exc:
        raise ScenarioError(f"deck of hand {h}: {exc}") from None
    return state


def _result(state: GameState, action: object) -> tuple[GameState, dict[str, Any]]:
    if not isinstance(action, dict) or not isinstance(action.get("player"), str):
        return state, {"ok": False, "error": "bad_request", "message": "an action needs a player"}
    body = {k: v for k, v in action.items() if k != "player"}
    try:
        return apply(state, action["player"], body).state, {"ok": True}
    except EngineError as exc:
        return state, {"ok": False, "error": exc.code, "message": exc.message}


def run_scenario(scenario: dict[str, Any]) -> dict[str, Any]:
    """Run a scenario; ``{"results": [...], "state": {...full state...}}``.

    >>> out = run_scenario({"players": ["ann", "bob"], "deal": {"seed": 7}, "actions": [
    ...     {"player": "bob", "type": "draw", "source": "stock"},
    ...     {"player": "ann", "type": "draw", "source": "stock"}]})
    >>> out["results"][0]["error"], out["results"][1], out["state"]["phase"]
    ('not_your_turn', {'ok': True}, 'play')

    :raises ScenarioError: a malformed or inconsistent scenario.
    """
    if not isinstance(scenario, dict):
        raise ScenarioError("a scenario must be a JSON object")
    unknown = set(scenario) - {"rules", "players", "deal", "actions", *_NOTES}
    if unknown:
        raise ScenarioError(f"unknown key(s) in scenario: {', '.join(sorted(unknown))}")
    try:
        rules = Rules.from_dict(scenario.get("rules", {}))
    except ConfigError as exc:
        raise ScenarioError(f"rules: {exc}") from None
    actions = scenario.get("actions", [])
    if not isinstance(actions, list):
        raise ScenarioError("actions must be a list")
    state, seed, decks = _start(scenario, rules)
    results = []
    for action in actions:
        state, result = _result(state, action)
        results.append(result)
        state = _next_hand(state, seed, decks)
    return {"results": results, "state": full_state(state)}
