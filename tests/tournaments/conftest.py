"""Fixtures the event tests share: the director, a staff user who may run any event, and a club."""

from __future__ import annotations

import pytest

from accounts.models import Club, User
from tests.tournaments.factories import staff


@pytest.fixture
def director(db: None) -> User:
    return staff()


@pytest.fixture
def club(db: None) -> Club:
    return Club.objects.create(name="Hearts", slug="hearts")
