"""The pools the site offers for quick play: one place, read by the API, the page and the sweep.

A pool is a rule set (a preset's slug), a number of seats and a turn clock. Joining any other is
refused (``lobby.errors.NOT_OFFERED``). The set is small on purpose: every pool splits the players
who wait, and a pool nobody else is in seats nobody.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Pool:
    ruleset: str
    seats: int
    turn_seconds: int

    @property
    def key(self) -> str:
        """A short name: ``standard-4-30``."""
        return f"{self.ruleset}-{self.seats}-{self.turn_seconds}"


#: Standard rules at two, three and four seats on a 30-second clock (the common games), a
#: slower two-player game, and a six-seat table for the crowd (two decks from five players).
POOLS: tuple[Pool, ...] = (
    Pool("standard", 2, 30),
    Pool("standard", 3, 30),
    Pool("standard", 4, 30),
    Pool("standard", 2, 60),
    Pool("standard", 6, 30),
)


def pool_find(ruleset: object, seats: object, turn_seconds: object) -> Pool | None:
    """The offered pool with these settings, or None."""
    for pool in POOLS:
        if (pool.ruleset, pool.seats, pool.turn_seconds) == (ruleset, seats, turn_seconds):
            return pool
    return None
