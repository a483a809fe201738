"""The ``Bot`` interface: what a driver (``play.py``, the simulations, the server's stand-ins)
asks of a bot. The bots themselves are in ``bots.py``."""

from __future__ import annotations

import random
from abc import ABC, abstractmethod

from .actions import Action
from .state import GameState

#: A bot's or a game's seed, as ``random.Random`` and the shuffle take it.
Seed = int | str


class Bot(ABC):
    """Base of the bots: a seeded ``random.Random`` and the three calls a driver makes.

    Subclasses implement ``choose`` (abstract) and may override ``claim`` (default: never claim)
    and ``observe`` (default: remember nothing).

    >>> from games.engine.bots import RandomBot
    >>> RandomBot(seed=1).rng.random() == RandomBot(seed=1).rng.random()
    True
    """

    def __init__(self, seed: Seed = 0) -> None:
        self.seed = seed
        self.rng = random.Random(seed)

    @abstractmethod
    def choose(self, state: GameState, player: str) -> Action:
        """The next action of ``player``, who is to move."""

    def claim(self, state: GameState, player: str) -> Action | None:
        """A "Rummy!" claim to make now, or None (called while a window is open)."""
        return None

    def observe(self, before: GameState, player: str, action: Action, after: GameState) -> None:
        """Called after every applied action, whoever made it (the driver's broadcast)."""
        return None  # by default a bot remembers nothing (a hook, deliberately not abstract)
