"""The table page's seat plates read each seated player's global rating (``seat_ratings``, through
the ratings app's template tag, since the games app may not import ratings): rounded, with a
``?`` while provisional, and the starting rating for a player without one."""

from __future__ import annotations

import json
import re

import pytest
from django.test import Client

from ratings.elo import START
from ratings.glicko import START_DEVIATION
from ratings.selectors import seat_ratings
from tests.accounts.factories import UserFactory
from tests.games.tables import players, started_table
from tests.ratings.rating_rows import pool_of, put_ratings

pytestmark = pytest.mark.django_db


def test_ratings_rounded_with_provisional_and_a_default() -> None:
    ann, bob = UserFactory(username="ann"), UserFactory(username="bob")
    put_ratings(pool_of("global"), [(ann, 1612.6, 30, 95.4), (bob, 1450.2, 3, 212.0)])
    assert seat_ratings(["ann", "bob", "cid"]) == {
        "ann": {"rating": 1613, "deviation": 95, "provisional": False},
        "bob": {"rating": 1450, "deviation": 212, "provisional": True},
        "cid": {"rating": round(START), "deviation": START_DEVIATION, "provisional": True},
    }


def test_the_table_page_carries_them() -> None:
    ann, bob = players("ann", "bob")
    put_ratings(pool_of("global"), [(ann, 1700.0, 40)])
    table = started_table([ann, bob])
    html = Client().get(f"/tables/{table.pk}/").content.decode()
    found = re.search(r'<script id="seat-ratings" type="application/json">(.*?)</script>', html)
    assert found is not None
    assert json.loads(found.group(1)) == {
        "ann": {"rating": 1700, "deviation": 100, "provisional": False},
        "bob": {"rating": round(START), "deviation": START_DEVIATION, "provisional": True},
    }
