"""The event admin: its pages, setting up an event under the services' checks, the actions that
move events on through the services, seeding by hand, and the view-only rounds and log."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib import admin
from django.contrib.messages import get_messages
from django.test import Client

from accounts.models import Club, User
from games.models import RuleSet
from tests.tournaments.factories import make_event, round_of, run_hooks, started_event, users
from tournaments.entries import entry_check_in, entry_register
from tournaments.models import Announcement, AuditEntry, Entry, Round, RoundTable, Tournament
from tournaments.scorekeeper import scorekeeper_enter

pytestmark = pytest.mark.django_db

EVENTS = "/admin/tournaments/tournament/"


@pytest.fixture
def boss(admin_user: User) -> User:
    return admin_user


@pytest.fixture
def finished(boss: User) -> Tournament:
    """A finished face-to-face event of the club Hearts: bob beat ann."""
    club = Club.objects.create(name="Hearts", slug="hearts")
    event = started_event(boss, ["ann", "bob"], online=False, club=club, name="Hearts open")
    table = round_of(event).tables.get()
    hands = [{"ann": {"table": 10, "hand": 20}, "bob": {"table": 60, "hand": 0}}]
    game = scorekeeper_enter(event_id=event.pk, round_table_id=table.pk, hands=hands, actor=boss)
    run_hooks(game.pk)
    event.refresh_from_db()
    assert event.status == "finished"
    return event


def add_data(**changes: Any) -> dict[str, Any]:
    """What the add form posts for a new single-elimination event, with ``changes``."""
    data = {
        "name": "Spring cup",
        "slug": "spring-cup",
        "description": "",
        "ruleset": RuleSet.objects.get(slug="standard").pk,
        "overrides": "{}",
        # Fields with a callable default carry their initial value (as a browser posts it).
        "initial-overrides": "{}",
        "initial-options": "{}",
        "turn_seconds": "60",
        "time_bank_seconds": "0",
        "format": "single_elimination",
        "table_size": "2",
        "rounds": "",
        "options": "{}",
        "seeding": "rating",
        "online": "on",
        "rated": "on",
        "auto_advance": "on",
        "min_rated_games": "0",
        "entries-TOTAL_FORMS": "0",
        "entries-INITIAL_FORMS": "0",
        "entries-MIN_NUM_FORMS": "0",
        "entries-MAX_NUM_FORMS": "1000",
    }
    data.update(changes)
    return data


def act(client: Client, action: str, *events: Tournament) -> list[str]:
    """Run an admin action on ``events``; the messages it left."""
    data = {"action": action, "_selected_action": [e.pk for e in events]}
    response = client.post(EVENTS, data, follow=True)
    assert response.status_code == 200
    return [str(m) for m in get_messages(response.wsgi_request)]


def test_every_model_has_an_admin() -> None:
    registered = {m for m in admin.site._registry if m._meta.app_label == "tournaments"}
    assert registered == {Tournament, Entry, Round, RoundTable, Announcement, AuditEntry}


@pytest.mark.parametrize(
    "url",
    [
        EVENTS,
        f"{EVENTS}?status__exact=finished",
        f"{EVENTS}?format__exact=single_elimination&online__exact=0",
        f"{EVENTS}?q=hearts",
        f"{EVENTS}add/",
        "/admin/tournaments/entry/",
        "/admin/tournaments/entry/?status__exact=playing",
        "/admin/tournaments/round/",
        "/admin/tournaments/roundtable/",
        "/admin/tournaments/announcement/",
        "/admin/tournaments/announcement/add/",
        "/admin/tournaments/auditentry/",
        "/admin/tournaments/auditentry/?action=enter_result",
    ],
)
def test_pages_load(admin_client: Client, finished: Tournament, url: str) -> None:
    assert admin_client.get(url).status_code == 200


def test_the_changelist_lists_events_with_their_status(
    admin_client: Client, finished: Tournament, boss: User
) -> None:
    make_event(boss, name="Autumn cup")
    html = admin_client.get(EVENTS).content.decode()
    assert "Hearts open" in html and "Autumn cup" in html and "Finished" in html
    found = admin_client.get(f"{EVENTS}?q=Hearts").context["cl"].result_list
    assert [e.name for e in found] == ["Hearts open"]


def test_the_change_page_shows_entries_standings_and_fixed_settings(
    admin_client: Client, finished: Tournament
) -> None:
    response = admin_client.get(f"{EVENTS}{finished.pk}/change/")
    html = response.content.decode()
    assert "<td>1</td><td>bob</td>" in html  # the standings, read-only
    assert "ann" in html and "bob" in html  # the entries inline
    form = response.context["adminform"].form
    assert "format" not in form.fields and "ruleset" not in form.fields  # started: fixed
    assert "name" in form.fields and "standings" not in form.fields


def test_adding_an_event_checks_it_and_logs_who(admin_client: Client, boss: User) -> None:
    response = admin_client.post(f"{EVENTS}add/", add_data(turn_seconds="0"))
    assert response.status_code == 200  # refused, as event_create refuses it
    assert response.context["adminform"].form.non_field_errors() == [
        "turn_seconds: must be 1 to 3600"
    ]
    assert not Tournament.objects.exists()
    response = admin_client.post(f"{EVENTS}add/", add_data())
    assert response.status_code == 302
    event = Tournament.objects.get(slug="spring-cup")
    assert (event.status, event.created_by) == ("draft", boss)
    assert AuditEntry.objects.get(tournament=event).action == "create"


def test_actions_move_events_through_the_services(admin_client: Client, boss: User) -> None:
    one, two = make_event(boss, name="One"), make_event(boss, name="Two")
    assert act(admin_client, "open_registration", one, two) == ["Opened registration of 2 events."]
    for event in (one, two):
        event.refresh_from_db()
        assert event.status == "registration"
    players = users("ann", "bob")
    for user in players:
        entry_register(event_id=one.pk, user=user)
    assert act(admin_client, "open_check_in", one) == ["Opened check-in of 1 event."]
    for user in players:
        entry_check_in(event_id=one.pk, user=user)
    messages = act(admin_client, "start_events", one, two)
    assert messages[0] == "Two: the event is Registration open, not in check-in"
    assert messages[1] == "Started 1 event."
    one.refresh_from_db()
    assert one.status == "running" and round_of(one).status == "running"
    assert act(admin_client, "pause_events", one) == ["Paused 1 event."]
    one.refresh_from_db()
    assert one.paused_at is not None
    assert act(admin_client, "resume_events", one) == ["Resumed 1 event."]
    assert act(admin_client, "cancel_events", two) == ["Cancelled 1 event."]
    two.refresh_from_db()
    assert two.status == "cancelled"
    assert act(admin_client, "pause_events", two) == ["Two: only a running event can be paused"]
    logged = AuditEntry.objects.filter(tournament=one, actor=boss).values_list("action", flat=True)
    assert {"registration", "check_in", "start", "pause", "resume"} <= set(logged)


def test_seeds_by_hand_are_set_in_the_entries(admin_client: Client, boss: User) -> None:
    event = make_event(boss, status="check_in", players=["ann", "bob"], seeding="hand")
    ann = Entry.objects.get(tournament=event, user__username="ann")
    url = f"/admin/tournaments/entry/{ann.pk}/change/"
    response = admin_client.post(url, {"hand_seed": "2", "status": "no_show"})
    assert response.status_code == 302
    ann.refresh_from_db()
    assert (ann.hand_seed, ann.status) == (2, "checked_in")  # only the seed is edited here
    assert admin_client.get("/admin/tournaments/entry/add/").status_code == 403


def test_rounds_and_their_tables_are_view_only(admin_client: Client, finished: Tournament) -> None:
    table = round_of(finished).tables.get()
    html = admin_client.get(f"/admin/tournaments/roundtable/{table.pk}/change/").content.decode()
    assert "bob 1" in html and "ann 2" in html
    assert f"/admin/games/table/{table.table_id}/change/" in html
    html = admin_client.get(f"/admin/tournaments/round/{table.round_id}/change/").content.decode()
    assert "bob 1" in html
    assert admin_client.get("/admin/tournaments/round/add/").status_code == 403
    entry = AuditEntry.objects.filter(tournament=finished).first()
    assert entry is not None
    url = f"/admin/tournaments/auditentry/{entry.pk}/delete/"
    assert admin_client.post(url, {"post": "yes"}).status_code == 403


def test_an_announcement_added_here_is_posted_and_logged(
    admin_client: Client, finished: Tournament, boss: User
) -> None:
    data = {"tournament": finished.pk, "text": "  Thanks for coming!  "}
    response = admin_client.post("/admin/tournaments/announcement/add/", data)
    assert response.status_code == 302
    note = Announcement.objects.get(tournament=finished)
    assert (note.text, note.author) == ("Thanks for coming!", boss)
    assert AuditEntry.objects.filter(tournament=finished, action="announce").exists()


def test_editing_an_event_is_logged(admin_client: Client, boss: User) -> None:
    assert admin_client.post(f"{EVENTS}add/", add_data()).status_code == 302
    event = Tournament.objects.get(slug="spring-cup")
    url = f"{EVENTS}{event.pk}/change/"
    four_seats = add_data(name="Spring cup, day 1", table_size="4", format="swiss_tables")
    response = admin_client.post(url, four_seats)
    assert response.status_code == 302
    event.refresh_from_db()
    assert (event.name, event.table_size) == ("Spring cup, day 1", 4)
    edit = AuditEntry.objects.get(tournament=event, action="edit")
    assert (edit.actor, edit.details) == (boss, {"fields": ["format", "name", "table_size"]})
    # Single elimination cannot seat four: the admin says so and changes nothing.
    refused = admin_client.post(url, add_data(name="Knockout", table_size="4"))
    assert refused.status_code == 200 and b"table" in refused.content
    event.refresh_from_db()
    assert event.format == "swiss_tables"


def test_an_edit_whose_rules_cannot_deal_a_table_it_may_draw_is_refused(
    admin_client: Client, boss: User
) -> None:
    """Issue 20, item 5: an override that cannot deal to two players, at Swiss tables of 3."""
    threes = {"format": "swiss_tables", "table_size": "3", "options": '{"min_table": 2}'}
    assert admin_client.post(f"{EVENTS}add/", add_data(**threes)).status_code == 302
    event = Tournament.objects.get(slug="spring-cup")
    url = f"{EVENTS}{event.pk}/change/"
    refused = admin_client.post(url, add_data(**threes, overrides='{"hand_size_two": 27}'))
    assert refused.status_code == 200
    assert "cannot deal to a table of 2" in refused.content.decode()
    event.refresh_from_db()
    assert event.overrides == {}
