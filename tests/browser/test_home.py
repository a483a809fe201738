"""The home dashboard in a real browser: a visitor reads what the site is, the live counts, the
upcoming events and the calls to sign up or log in; a player finds their table and their event
(with its time to the start) and the top ten, and follows the link to their table. Screenshots
go to ``test-artifacts/tour/`` at 1280x800 and 390x844."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from games import services
from tests.accounts.factories import UserFactory
from tests.browser.pages import PageFactory, log_in
from tests.browser.test_event_tour import shoot
from tests.games.tables import started_table
from tests.tournaments.factories import make_event
from tournaments.services import event_open_check_in

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_dashboard_for_a_visitor_and_a_player(new_page: PageFactory, asgi_server: str) -> None:
    director = UserFactory(username="director", is_staff=True)
    ann = UserFactory(username="ann")
    table = started_table([ann, UserFactory(username="bob")])
    starts = timezone.now() + timedelta(hours=3, minutes=10)
    night = make_event(
        director, status="registration", players=["ann"], name="Club night", starts_at=starts
    )
    event_open_check_in(event_id=night.pk, actor=director)  # ann has not checked in yet
    make_event(director, status="registration", name="Spring open")

    visitor = new_page()
    visitor.goto(asgi_server + "/")
    expect(visitor.get_by_role("heading", level=1)).to_have_text(
        "Rummy 500 tournaments and ratings"
    )
    expect(visitor.locator("#calls a")).to_have_text(["Sign up", "Log in"])
    expect(visitor.locator("#live-counts p")).to_have_text(
        ["1 game in play", "2 players at the tables", "0 tables waiting for players"]
    )
    expect(visitor.locator("#upcoming .event-item strong")).to_have_text(
        ["Club night", "Spring open"]
    )
    expect(visitor.locator("#my-tables")).to_have_count(0)
    shoot(visitor, "home-visitor")

    player = new_page()
    log_in(player, asgi_server, ann)
    player.goto(asgi_server + "/")
    expect(player.get_by_role("heading", level=1)).to_have_text("Welcome back, ann")
    expect(player.locator("#calls")).to_have_count(0)
    expect(player.locator("#my-events li")).to_have_text(
        ["Club night Single elimination · starts in 3 h 10 min · check-in is open: check in now"]
    )
    expect(player.locator("#leaders")).to_contain_text("Top ten")
    shoot(player, "home-player")
    player.get_by_role("link", name=f"Table {table.pk}").click()
    expect(player).to_have_url(re.compile(rf"/tables/{table.pk}/$"))


def test_the_live_counts_follow_the_tables_without_a_reload(
    new_page: PageFactory, asgi_server: str
) -> None:
    ann, bob = UserFactory(username="ann"), UserFactory(username="bob")
    visitor = new_page()
    visitor.goto(asgi_server + "/")
    visitor.evaluate("window.noReload = true")
    counts = visitor.locator("#live-counts p")
    expect(counts).to_have_text(
        ["0 games in play", "0 players at the tables", "0 tables waiting for players"]
    )
    expect(visitor.locator("#live-counts[data-live=true]")).to_have_count(1)
    table = services.table_create(creator=ann, ruleset="standard", seats=2)
    expect(counts).to_have_text(
        ["0 games in play", "0 players at the tables", "1 table waiting for players"]
    )
    services.table_join(table_id=table.pk, user=bob)  # full: it starts
    expect(counts).to_have_text(
        ["1 game in play", "2 players at the tables", "0 tables waiting for players"]
    )
    assert visitor.evaluate("window.noReload") is True  # the same document all along
