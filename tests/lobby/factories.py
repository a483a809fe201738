"""Helpers for quick-play tests: players with a rating in the standard rule set's pool."""

from __future__ import annotations

from accounts.models import User
from games.models import RuleSet
from ratings.models import Pool, Rating
from tests.accounts.factories import UserFactory

STANDARD_2 = {"ruleset": "standard", "seats": 2, "turn_seconds": 30}
STANDARD_3 = {"ruleset": "standard", "seats": 3, "turn_seconds": 30}
STANDARD_4 = {"ruleset": "standard", "seats": 4, "turn_seconds": 30}


def rated(name: str, rating: float | None = None) -> User:
    """A new player; with ``rating``, that rating in the standard rule set's pool."""
    user = UserFactory(username=name)
    if rating is not None:
        pool, _ = Pool.objects.get_or_create(
            kind="ruleset", ruleset=RuleSet.objects.get(slug="standard")
        )
        Rating.objects.create(pool=pool, user=user, rating=rating, peak=rating)
    return user
