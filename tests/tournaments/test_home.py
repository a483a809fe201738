"""The home dashboard (``tournaments.home``): what a visitor and a signed-in player see, the live
counts (``games.selectors.live_counts``), and queries that do not grow with what it shows."""

from __future__ import annotations

import re
from datetime import timedelta
from html import unescape

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from accounts.models import User
from games import services
from games.listing import live_counts
from tests.accounts.factories import UserFactory
from tests.games.tables import started_table
from tests.tournaments.factories import make_event, round_of, started_event
from tournaments.home import when_text
from tournaments.models import Tournament
from tournaments.services import event_open_check_in

pytestmark = pytest.mark.django_db


def home(user: User | None = None) -> str:
    client = Client()
    if user is not None:
        client.force_login(user)
    response = client.get("/")
    assert response.status_code == 200
    return response.content.decode()


def text_of(html: str, element_id: str) -> str:
    found = re.search(rf'<(\w+)[^>]* id="{element_id}"[^>]*>(.*?)</\1>', html, re.S)
    assert found, element_id
    return " ".join(unescape(re.sub(r"<[^>]+>", " ", found.group(2))).split())


def test_live_counts_count_tables_and_distinct_players() -> None:
    ann, bob, cid = UserFactory.create_batch(3)
    started_table([ann, bob])
    started_table([ann, cid])
    services.table_create(creator=UserFactory(), ruleset="standard", seats=3)
    assert live_counts() == {"tables_playing": 2, "players_playing": 3, "tables_waiting": 1}


def test_a_visitor_sees_the_site_counts_events_and_the_calls(director: User) -> None:
    started_table(UserFactory.create_batch(2))
    make_event(director, status="registration", name="Spring open")
    html = home()
    assert "An online home for clubs and organizers who run Rummy 500 events." in html
    assert text_of(html, "calls") == "Sign up Log in"
    assert text_of(html, "play-calls") == "Quick play Open games and games to watch"
    assert 'href="/tables/#quick-play"' in html
    assert text_of(html, "live-counts") == (
        "1 game in play 2 players at the tables 0 tables waiting for players"
    )
    assert "Spring open" in text_of(html, "upcoming")
    assert 'id="my-tables"' not in html and 'id="leaders"' not in html


def test_a_player_sees_their_tables_events_and_the_top_ten(director: User) -> None:
    ann = UserFactory(username="ann")
    table = started_table([ann, UserFactory(username="bob")])
    soon = timezone.now() + timedelta(hours=2, minutes=5, seconds=30)
    make_event(director, status="check_in", players=["ann"], name="Club night", starts_at=soon)
    later = make_event(director, status="registration", name="Later cup", players=["ann"])
    Tournament.objects.filter(pk=later.pk).update(starts_at=soon + timedelta(days=2))
    tonight = started_event(director, ["ann", "cid"], name="Tonight")
    html = home(ann)
    event_table = round_of(tonight).tables.get().table_id  # Tonight seats ann and cid
    assert text_of(html, "my-tables") == (
        f"Your tables Table {event_table} Playing · Standard · ann, cid"
        f" Table {table.pk} Playing · Standard · ann, bob"
    )
    assert f'href="/tables/{table.pk}/"' in html
    events = text_of(html, "my-events")
    assert "Club night Single elimination · starts in 2 h 6 min · checked in" in events
    assert "Later cup Single elimination · starts in 2 d 2 h · registered;" in events
    assert "Tonight Single elimination · under way · playing" in events
    assert "Sign up" not in text_of(html, "live-counts")
    assert text_of(html, "leaders").startswith("Top ten")


def test_a_registered_player_is_told_to_check_in(director: User) -> None:
    ann = UserFactory(username="ann")
    event = make_event(director, status="registration", players=["ann"], name="Club night")
    event_open_check_in(event_id=event.pk, actor=director)
    assert "check-in is open: check in now" in text_of(home(ann), "my-events")


def test_when_text() -> None:
    now = timezone.now()
    at = Tournament(status="registration", starts_at=now + timedelta(minutes=125))
    assert when_text(at, now) == "starts in 2 h 5 min"
    at.starts_at = now + timedelta(seconds=20)
    assert when_text(at, now) == "starts in 1 min"
    at.starts_at = now - timedelta(seconds=20)
    assert when_text(at, now) == "starts any moment"
    at.starts_at = None
    assert when_text(at, now) == "no start time set"


def queries(user: User) -> int:
    client = Client()
    client.force_login(user)
    with CaptureQueriesContext(connection) as captured:
        assert client.get("/").status_code == 200
    return len(captured)


def test_the_queries_do_not_grow_with_what_it_shows(director: User) -> None:
    ann = UserFactory(username="ann")
    started_table([ann, UserFactory()])
    make_event(director, status="registration", players=["ann"], name="One")
    few = queries(ann)
    for n in range(4):
        started_table([ann, UserFactory()])
        make_event(director, status="registration", players=["ann"], name=f"More {n}")
    assert queries(ann) == few
