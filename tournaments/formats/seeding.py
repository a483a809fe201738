"""Seeding a field: by rating in the event's pool, by the organizer's hand, or at random.

The random order is a pure function of the recorded seed string and the player ids (each id is
ranked by SHA-256 of ``"<seed>:<id>"``), so anyone holding the seed can check it, and the order
does not depend on the order the players were listed in.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence

from .base import Entrant, FormatError


def _numbered(players: Sequence[tuple[int, float]]) -> list[Entrant]:
    ids = [pid for pid, _ in players]
    if len(set(ids)) != len(ids):
        raise FormatError("a player is listed twice")
    return [Entrant(pid, seed, rating) for seed, (pid, rating) in enumerate(players, 1)]


def seed_by_rating(players: Sequence[tuple[int, float]]) -> list[Entrant]:
    """Seed ``(id, rating)`` pairs best rating first; equal ratings by id.

    :raises FormatError: an id listed twice.

    >>> [(e.id, e.seed) for e in seed_by_rating([(5, 1500.0), (2, 1700.0), (9, 1500.0)])]
    [(2, 1), (5, 2), (9, 3)]
    """
    return _numbered(sorted(players, key=lambda p: (-p[1], p[0])))


def seed_by_hand(order: Sequence[int], ratings: Mapping[int, float]) -> list[Entrant]:
    """Seed the ids in the organizer's ``order`` (first is the top seed), with their ratings.

    :raises FormatError: an id listed twice, or an id without a rating.

    >>> [(e.id, e.seed, e.rating) for e in seed_by_hand([4, 1], {1: 1600.0, 4: 1400.0})]
    [(4, 1, 1400.0), (1, 2, 1600.0)]
    """
    missing = [pid for pid in order if pid not in ratings]
    if missing:
        raise FormatError(f"no rating for player {missing[0]}")
    return _numbered([(pid, ratings[pid]) for pid in order])


def seed_at_random(players: Sequence[tuple[int, float]], seed: str) -> list[Entrant]:
    """Seed ``(id, rating)`` pairs in a random order fixed by ``seed`` (recorded by the caller):
    ids are ordered by SHA-256 of ``"<seed>:<id>"``.

    :raises FormatError: an id listed twice.

    >>> a = seed_at_random([(1, 0.0), (2, 0.0), (3, 0.0)], "spring-open")
    >>> b = seed_at_random([(3, 0.0), (1, 0.0), (2, 0.0)], "spring-open")
    >>> a == b and sorted(e.id for e in a) == [1, 2, 3]
    True
    """

    def draw(player: tuple[int, float]) -> bytes:
        return hashlib.sha256(f"{seed}:{player[0]}".encode()).digest()

    return _numbered(sorted(players, key=draw))
