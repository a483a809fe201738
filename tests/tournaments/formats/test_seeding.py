"""Seeding a field by rating, by hand and at random."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence

import pytest

from tournaments.formats import Entrant, FormatError, seed_at_random, seed_by_hand, seed_by_rating

Seeder = Callable[[Sequence[tuple[int, float]]], list[Entrant]]


def test_by_rating_puts_the_best_first_and_breaks_ties_by_id() -> None:
    field = seed_by_rating([(7, 1500.0), (3, 1650.5), (2, 1500.0), (9, 1720.0)])
    assert [(e.id, e.seed, e.rating) for e in field] == [
        (9, 1, 1720.0),
        (3, 2, 1650.5),
        (2, 3, 1500.0),
        (7, 4, 1500.0),
    ]


def test_by_hand_keeps_the_organizers_order() -> None:
    field = seed_by_hand([5, 1, 3], {1: 1800.0, 3: 1700.0, 5: 1200.0})
    assert [(e.id, e.seed, e.rating) for e in field] == [
        (5, 1, 1200.0),
        (1, 2, 1800.0),
        (3, 3, 1700.0),
    ]


def test_by_hand_needs_every_rating() -> None:
    with pytest.raises(FormatError, match="no rating for player 3"):
        seed_by_hand([1, 3], {1: 1500.0})


@pytest.mark.parametrize("seeder", [seed_by_rating, lambda p: seed_at_random(p, "x")])
def test_a_player_listed_twice_is_refused(seeder: Seeder) -> None:
    with pytest.raises(FormatError, match="twice"):
        seeder([(1, 1500.0), (1, 1600.0)])


def test_at_random_is_fixed_by_the_recorded_seed() -> None:
    players = [(i, 1500.0) for i in range(1, 9)]
    # Known answers: anyone with the seed string can recompute them from SHA-256.
    assert [e.id for e in seed_at_random(players, "club-night-2025-03-14")] == [
        6,
        3,
        5,
        8,
        2,
        4,
        1,
        7,
    ]
    assert [e.id for e in seed_at_random(players, "club-night-2025-03-15")] == [
        4,
        8,
        1,
        6,
        3,
        2,
        5,
        7,
    ]
    key = hashlib.sha256(b"club-night-2025-03-14:6").digest()
    assert key == min(
        hashlib.sha256(f"club-night-2025-03-14:{i}".encode()).digest() for i in range(1, 9)
    )


def test_at_random_ignores_the_listing_order_and_keeps_ratings() -> None:
    players = [(i, 1400.0 + i) for i in range(1, 30)]
    a = seed_at_random(players, "s")
    b = seed_at_random(players[::-1], "s")
    assert a == b
    assert [e.seed for e in a] == list(range(1, 30))
    assert all(e.rating == 1400.0 + e.id for e in a)
