"""One rated game applied to the standings it touches: the step both the finalization hook and
``ratings_recompute`` take, so the two produce the same numbers to the last bit.

No Django here: the callers read the rows, call ``rate_game`` and write what it returns.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import NamedTuple

from ratings.elo import START, rated_places
from ratings.glicko import (
    START_DEVIATION,
    Skill,
    before_game,
    effective_k,
    provisional,
    rate_table,
)

Key = tuple[int, int]  # (pool id, user id)


class Player(NamedTuple):
    """One seat of a finished game as the ratings read it."""

    user: int
    place: int
    absent: bool
    acted: bool


class Game(NamedTuple):
    """A finished game of a rated table and the pools it counts in."""

    table: int
    finished_at: datetime
    pools: tuple[int, ...]
    players: tuple[Player, ...]
    played: bool = True  # False: an organizer decided the result (adjudicated), nobody won it

    @property
    def counted(self) -> bool:
        """A game fewer than two players ever acted in says nothing about anyone's skill, nor
        does one whose result an organizer decided."""
        return self.played and len(self.players) >= 2 and sum(p.acted for p in self.players) >= 2


class Standing(NamedTuple):
    """A player's rating in a pool between games."""

    rating: float = START
    games: int = 0
    peak: float = START
    last_played_at: datetime | None = None
    deviation: float = START_DEVIATION

    @property
    def provisional(self) -> bool:
        return provisional(self.deviation)

    @property
    def established(self) -> bool:
        return not self.provisional

    def brought_to(self, at: datetime) -> Skill:
        """The rating and deviation this player brings to a game that finished ``at``: the
        deviation grown by one game's drift and by the days since their last game."""
        days = 0.0
        if self.last_played_at is not None:
            days = (at - self.last_played_at).total_seconds() / 86400.0
        return Skill(self.rating, before_game(self.deviation, days))


class Change(NamedTuple):
    """What one game did to one player's rating in one pool."""

    pool: int
    user: int
    before: Standing | None  # None: their first game in the pool
    after: Standing
    k: float  # the K of Elo's formula this change amounts to (glicko.effective_k)
    place: int
    table_size: int
    deviation_before: float  # the deviation brought to the game (grown by drift and time away)


def rate_game(game: Game, standings: Mapping[Key, Standing]) -> list[Change]:
    """The changes ``game`` makes in each of its pools, from the standings before it."""
    if not game.counted:
        return []
    players, at = game.players, game.finished_at
    n = len(players)
    places = rated_places([p.place for p in players], [p.absent for p in players])
    changes: list[Change] = []
    add = changes.append
    for pool in game.pools:
        olds = [standings.get((pool, p.user)) for p in players]
        # A newcomer brings exactly ``Standing().brought_to(at)``: the start, which no drift or
        # time away can widen.
        brought = [NEWCOMER if old is None else old.brought_to(at) for old in olds]
        news = rate_table(brought, places)
        for player, old, bring, new, place in zip(
            players, olds, brought, news, places, strict=True
        ):
            rating, deviation = new
            if old is None:
                after = Standing(rating, 1, max(START, rating), at, deviation)
            else:
                after = Standing(rating, old.games + 1, max(old.peak, rating), at, deviation)
            add(
                Change(pool, player.user, old, after, effective_k(deviation, n), place, n, bring[1])
            )
    return changes


#: What a player without a rating in a pool brings to their first game there.
NEWCOMER = Skill(START, START_DEVIATION)


def bucket(rating: float) -> int:
    """The whole rating point a rating lies in (``floor``: 1499.9 is in 1499)."""
    return math.floor(rating)


def bucket_deltas(changes: Iterable[Change]) -> dict[tuple[int, int], list[int]]:
    """``(pool, bucket) -> [players, established]`` to add to the pools' buckets."""
    deltas: dict[tuple[int, int], list[int]] = {}
    for change in changes:
        if change.before is not None:
            _add(deltas, change.pool, change.before, -1)
        _add(deltas, change.pool, change.after, +1)
    return {key: d for key, d in deltas.items() if d != [0, 0]}


def _add(deltas: dict[tuple[int, int], list[int]], pool: int, s: Standing, sign: int) -> None:
    d = deltas.setdefault((pool, bucket(s.rating)), [0, 0])
    d[0] += sign
    d[1] += sign if s.established else 0
