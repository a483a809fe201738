"""``play_game``: the driver loop that plays a whole game between bots (see ``bots.py``).

Kept apart from the bots themselves: the driver only asks a ``Bot`` for claims and moves and tells
every bot what was played.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from .actions import Action
from .bot_base import Bot, Seed
from .engine import Transition, apply
from .rules import Rules
from .state import GameState, Phase, deal_next_hand, new_game

OnAction = Callable[[GameState, str, Action, Transition], None]


class GameTooLong(RuntimeError):
    """``play_game`` reached its ``max_actions`` cap before the game ended."""


def hand_seed(seed: Seed, number: int) -> str:
    """The shuffle seed of hand ``number`` of the game played with ``seed`` by ``play_game``.

    >>> hand_seed(42, 3)
    '42:hand:3'
    """
    return f"{seed}:hand:{number}"


def _window_open(state: GameState) -> bool:
    return (
        state.rules.rummy_call and state.phase == Phase.DRAW and state.last_discard_by is not None
    )


def next_move(state: GameState, bots: Mapping[str, Bot]) -> tuple[str, Action]:
    """Who acts next and how: offered "Rummy!" claims first (from the discarder's left), then
    the player to move.

    :raises ValueError: nobody is to move (the hand or the game is over).
    """
    if state.turn is None:
        raise ValueError("no player is to move")
    names = state.names
    if _window_open(state):
        n = len(names)
        for k in range(n):
            seat = (state.turn + k) % n
            if seat != state.last_discard_by:
                claim = bots[names[seat]].claim(state, names[seat])
                if claim is not None:
                    return names[seat], claim
    mover = names[state.turn]
    return mover, bots[mover].choose(state, mover)


@dataclass
class _Counter:
    actions: int = 0


def play_game(
    rules: Rules,
    bots: Mapping[str, Bot],
    seed: Seed,
    *,
    max_actions: int = 100_000,
    on_action: OnAction | None = None,
) -> GameState:
    """Play a whole game between ``bots`` (seated in mapping order) and return the final state.

    Hand ``h`` is shuffled with ``hand_seed(seed, h)``. ``on_action(before, player, action,
    transition)`` is called after each applied action (to record or check a game).

    >>> from games.engine import Rules
    >>> from games.engine.bots import GreedyBot
    >>> end = play_game(Rules(target=100), {"ann": GreedyBot(1), "bob": GreedyBot(2)}, seed=5)
    >>> end.phase, end.winner is not None
    (<Phase.GAME_OVER: 'game_over'>, True)

    :raises GameTooLong: more than ``max_actions`` actions were applied.
    :raises IllegalAction: a bot made an illegal move (never from the bots of this module).
    """
    state = new_game(rules, list(bots), seed=hand_seed(seed, 1))
    count = _Counter()
    while state.phase != Phase.GAME_OVER:
        if state.phase == Phase.HAND_OVER:
            state = deal_next_hand(state, seed=hand_seed(seed, state.hand_number + 1))
            continue
        state = _step(state, bots, count, max_actions, on_action)
    return state


def _step(
    state: GameState,
    bots: Mapping[str, Bot],
    count: _Counter,
    max_actions: int,
    on_action: OnAction | None,
) -> GameState:
    count.actions += 1
    if count.actions > max_actions:
        raise GameTooLong(f"no result after {max_actions} actions (hand {state.hand_number})")
    player, action = next_move(state, bots)
    t = apply(state, player, action)
    for bot in bots.values():
        bot.observe(state, player, action, t.state)
    if on_action is not None:
        on_action(state, player, action, t)
    return t.state
