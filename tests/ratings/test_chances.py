"""Each seated player's chance of finishing first at a rated table (``ratings.chances``), from the
global ratings before the game: the current ones until the game is rated, then each player's
``RatingChange.before`` for the table, which later games leave alone; none at an unrated table.
The table page carries them (``{% seat_chances %}``) for static/js/table.js to draw."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from django.test import Client

from games import services
from games.models import Table
from ratings.chances import ratings_before, table_chances
from ratings.elo import START
from ratings.glicko import win_chances
from ratings.models import RatingChange
from tests.accounts.factories import UserFactory
from tests.games.tables import players, started_table
from tests.ratings.games import finished_game, rate, ratings_of
from tests.ratings.rating_rows import pool_of, put_ratings

pytestmark = pytest.mark.django_db


def test_before_the_game_is_rated_the_current_ratings_give_the_chances(
    django_assert_num_queries: Any,
) -> None:
    ann, bob, cid = (UserFactory(username=n) for n in ("ann", "bob", "cid"))
    put_ratings(pool_of("global"), [(ann, 1700.0, 30), (bob, 1400.0, 5)])
    table = finished_game([(ann, 1), (bob, 2), (cid, 3)])  # finished, not rated yet
    with django_assert_num_queries(2):  # no change for the table, then the ratings
        found = table_chances(table.pk, ["ann", "bob", "cid"], rated=True)
    expected = win_chances([1700.0, 1400.0, START])  # cid has no rated game: the start
    assert list(found) == ["ann", "bob", "cid"]
    assert list(found.values()) == pytest.approx(expected)
    assert sum(found.values()) == pytest.approx(1.0)
    assert found["ann"] > found["cid"] > found["bob"]


def test_once_rated_the_ratings_before_the_game_give_them_whatever_came_after(
    django_assert_num_queries: Any,
) -> None:
    ann, bob, cid = (UserFactory(username=n) for n in ("ann", "bob", "cid"))
    put_ratings(pool_of("global"), [(ann, 1650.0, 30), (bob, 1450.0, 30), (cid, 1500.0, 30)])
    first = finished_game([(ann, 3), (bob, 1), (cid, 2)])
    assert rate(first)
    chances_then = table_chances(first.pk, ["ann", "bob", "cid"], rated=True)
    assert list(chances_then.values()) == pytest.approx(win_chances([1650.0, 1450.0, 1500.0]))

    # A later game moves everyone's rating; the first table's chances stay as they were.
    assert rate(finished_game([(ann, 1), (bob, 3), (cid, 2)]))
    now = ratings_of(pool_of("global").pk)
    assert now["ann"] != pytest.approx(1650.0) and now["bob"] != pytest.approx(1450.0)
    with django_assert_num_queries(1):  # every player has a change for the table
        assert ratings_before(first.pk, ["ann", "bob", "cid"]) == pytest.approx(
            {"ann": 1650.0, "bob": 1450.0, "cid": 1500.0}
        )
    assert table_chances(first.pk, ["ann", "bob", "cid"], rated=True) == pytest.approx(chances_then)
    # The rule preset's pool rated the game too, from its own start: not the one read.
    preset = RatingChange.objects.filter(table=first, pool__kind="ruleset")
    assert sorted(preset.values_list("before", flat=True)) == [START] * 3


def test_an_unrated_table_and_a_lone_player_have_none() -> None:
    ann, bob = UserFactory(username="ann"), UserFactory(username="bob")
    put_ratings(pool_of("global"), [(ann, 1700.0, 30)])
    table = finished_game([(ann, 1), (bob, 2)], rated=False)
    assert table_chances(table.pk, ["ann", "bob"], rated=False) == {}
    assert table_chances(table.pk, ["ann"], rated=True) == {}


def test_a_clear_favourite_and_equals() -> None:
    """Plackett-Luce on the rating updates' scale: equal ratings share evenly; 400 points up is
    a strong favourite but never a certainty."""
    table = finished_game([(UserFactory(username=n), i + 1) for i, n in enumerate("wxyz")])
    even = table_chances(table.pk, list("wxyz"), rated=True)
    assert list(even.values()) == pytest.approx([0.25] * 4)
    put_ratings(pool_of("global"), [(UserFactory(username="ace"), 1900.0, 30)])
    duel = table_chances(table.pk, ["ace", "w"], rated=True)
    assert 0.8 < duel["ace"] < 1.0 and duel["ace"] + duel["w"] == pytest.approx(1.0)


def seat_chances_of(table: Table) -> Any:
    html = Client().get(f"/tables/{table.pk}/").content.decode()
    found = re.search(r'<script id="seat-chances" type="application/json">(.*?)</script>', html)
    assert found is not None
    return json.loads(found.group(1))


def test_the_table_page_carries_them_once_the_game_has_begun() -> None:
    ann, bob, cid = players("ann", "bob", "cid")
    put_ratings(pool_of("global"), [(ann, 1700.0, 40), (bob, 1350.0, 40)])
    table = started_table([ann, bob, cid])
    shown = seat_chances_of(table)
    assert shown["rated"] is True
    expected = win_chances([1700.0, 1350.0, START])
    assert shown["chances"] == {
        n: round(p, 4) for n, p in zip(["ann", "bob", "cid"], expected, strict=True)
    }


def test_a_waiting_table_and_an_unrated_one_carry_none() -> None:
    ann, bob, cid = players("ann", "bob", "cid")
    waiting = services.table_create(creator=ann, ruleset="standard", seats=3)
    services.table_join(table_id=waiting.pk, user=bob)
    # Who plays is not settled: the page reads them again once the game begins.
    assert seat_chances_of(waiting) == {"rated": True, "chances": {}}
    unrated = services.table_create(creator=cid, ruleset="standard", seats=2, rated=False)
    services.table_join(table_id=unrated.pk, user=UserFactory(username="dee"))
    assert Table.objects.get(pk=unrated.pk).status == Table.Status.PLAYING
    assert seat_chances_of(unrated) == {"rated": False, "chances": {}}
