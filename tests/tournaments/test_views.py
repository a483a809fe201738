"""The event pages: the list, an event's page (what a visitor, a player and an organizer see),
its live fragment, the CSV exports, the forms posted from it, and the create-event form."""

from __future__ import annotations

import csv
import io
import re
from typing import Any

import pytest
from django.test import Client

from accounts.models import Club, ClubMembership, User
from games import finalization
from tests.accounts.factories import UserFactory
from tests.tournaments.factories import (
    FOUR,
    decide,
    decide_round,
    make_event,
    names_at,
    round_of,
    started_event,
)
from tournaments.models import Entry, Round, Tournament

pytestmark = pytest.mark.django_db


def browser(user: User | None = None) -> Client:
    c = Client()
    if user is not None:
        c.force_login(user)
    return c


def page(user: User | None, event: Tournament) -> str:
    response = browser(user).get(f"/events/{event.slug}/")
    assert response.status_code == 200
    return response.content.decode()


def submit(user: User | None, event: Tournament, path: str, **data: Any) -> str:
    """POST a form of the event page, follow the redirect back, and return the page."""
    response = browser(user).post(f"/events/{event.slug}/{path}", data, follow=True)
    assert response.status_code == 200
    return response.content.decode()


def user(name: str) -> User:
    return User.objects.get(username=name)


# --- the list ------------------------------------------------------------------------------------


def test_the_list_shows_upcoming_running_and_finished_events_by_club(director: User) -> None:
    club = Club.objects.create(name="Hearts", slug="hearts")
    make_event(director, name="Secret draft")
    make_event(director, status="registration", name="Open night", club=club)
    started_event(director, ["ann", "bob"], name="Final night")
    html = browser().get("/events/").content.decode()
    assert "Open night" in html and "Final night" in html and "Secret draft" not in html
    assert 'href="/events/open-night/"' in html and "Create an event" not in html
    assert html.index("Upcoming") < html.index("Open night") < html.index("Running")
    hearts = browser().get("/events/?club=hearts").content.decode()
    assert "Open night" in hearts and "Final night" not in hearts
    staff = browser(director).get("/events/").content.decode()
    assert "Drafts you organize" in staff and "Secret draft" in staff
    assert 'href="/events/new/"' in staff
    assert 'href="/events/"' in browser().get("/").content.decode()  # the nav link


# --- the event page ------------------------------------------------------------------------------


def test_a_visitor_sees_settings_entries_and_is_asked_to_log_in(director: User) -> None:
    event = make_event(
        director,
        status="registration",
        players=["ann", "bob"],
        description="Bring snacks.",
        turn_seconds=45,
        max_players=16,
    )
    html = page(None, event)
    for text in ("Bring snacks.", "45 seconds per turn", "Single elimination", "target 50"):
        assert text in html, text
    assert "Registration open" in html and "2 registered" in html and "of 16 places" in html
    assert ">ann</a>" in html and ">bob</a>" in html
    assert "Log in</a> to register" in html and "Organizer tools" not in html
    assert 'data-socket="/ws/events/club-night/"' in html


def test_a_draft_is_not_found_but_for_its_organizers(director: User) -> None:
    event = make_event(director)
    assert browser().get(f"/events/{event.slug}/").status_code == 404
    assert browser(UserFactory()).get(f"/events/{event.slug}/live/").status_code == 404
    assert "Organizer tools" in page(director, event)
    assert browser().get("/events/nope/").status_code == 404


def test_a_player_registers_checks_in_and_withdraws_with_clear_messages(director: User) -> None:
    event = make_event(director, status="registration")
    ann = UserFactory(username="ann")
    html = page(ann, event)
    assert "Registration is open." in html and ">Register</button>" in html
    html = submit(ann, event, "register/")
    assert "You are registered for Club night." in html and ">Withdraw</button>" in html
    html = submit(ann, event, "check-in/")
    assert "Check-in is not open (the event is Registration open)" in html
    submit(director, event, "open-check-in/")
    assert ">Check in</button>" in page(ann, event)
    html = submit(ann, event, "check-in/")
    assert "You are checked in." in html and "your first table opens here" in html
    html = submit(ann, event, "withdraw/")
    assert "You have withdrawn from Club night." in html and "Your entry: withdrawn" in html
    login = browser().post(f"/events/{event.slug}/register/")
    assert login.status_code == 302 and login["Location"].startswith("/accounts/login/")
    assert browser(ann).get(f"/events/{event.slug}/register/").status_code == 405
    assert browser(ann).post(f"/events/{event.slug}/dance/").status_code == 404


def test_rounds_standings_and_the_bracket(director: User) -> None:
    event = started_event(director, FOUR)
    html = page(user("ann"), event)
    table = round_of(event).tables.get(key="W1-1")
    assert f'href="/tables/{table.table_id}/">Watch live</a>' in html
    assert "Semi-finals" in html and 'id="match-W1-1"' in html and "winner of W1-1" in html
    assert "You are playing." in html and '<a href="/tables/' in html
    assert "Standings appear once the first round is over." in html
    decide(table, director, [names_at(table)[1]])
    html = page(None, event)
    assert 'class="match match-done"' in html and 'aria-label="won"' in html
    assert "after round" not in html  # the round is not over until both tables are in
    decide_round(event, 1, director)
    html = page(None, event)
    assert "Standings <small>after round 1</small>" in html and '<tr class="out">' in html
    assert 'class="match match-playing"' in html and "Watch W2-1 live" in html


def test_swiss_standings_show_their_tiebreak_columns(director: User) -> None:
    event = started_event(director, FOUR, format="swiss", rounds=2)
    decide_round(event, 1, director)
    html = page(None, event)
    assert '<th scope="col">Buchholz</th>' in html
    assert '<th scope="col">Sonneborn-Berger</th>' in html
    assert 'id="bracket" data-live' in html and '<h2 id="bracket-heading">' in html


def test_the_live_fragment_holds_the_changing_sections_only(director: User) -> None:
    event = started_event(director, FOUR)
    html = browser(director).get(f"/events/{event.slug}/live/").content.decode()
    assert "<html" not in html and "<h1" not in html
    for section in ("event-status", "you", "bracket", "rounds", "standings", "entries"):
        assert f'id="{section}" data-live' in html, section
    assert 'id="organizer" data-live' in html and 'id="audit" data-live' in html
    visitor = browser().get(f"/events/{event.slug}/live/").content.decode()
    assert 'id="organizer"' not in visitor and 'id="audit"' not in visitor


def test_csv_exports(director: User) -> None:
    event = started_event(director, FOUR, format="swiss", rounds=2)
    decide_round(event, 1, director)
    response = browser().get(f"/events/{event.slug}/standings.csv")
    assert response["Content-Type"].startswith("text/csv")
    assert 'filename="club-night-standings.csv"' in response["Content-Disposition"]
    rows = list(csv.reader(io.StringIO(response.content.decode())))
    assert rows[0] == ["rank", "player", "points", "buchholz", "sonneborn_berger", "eliminated"]
    assert len(rows) == 5 and rows[1][-1] == "false"
    results = browser().get(f"/events/{event.slug}/results.csv").content.decode()
    rows = list(csv.reader(io.StringIO(results)))
    assert rows[0][:6] == ["round", "round_name", "table", "game", "player", "place"]
    assert len(rows) == 5 and {r[0] for r in rows[1:]} == {"1"}
    assert sorted(r[4] for r in rows[1:]) == FOUR


def test_csv_exports_never_hand_a_spreadsheet_a_formula(director: User) -> None:
    # Names a spreadsheet would run: Django's usernames allow a leading +, - or @.
    names = ["+1+2", "-2+3", "@SUM(A1)", "ann"]
    event = started_event(director, names, format="swiss", rounds=2)
    decide_round(event, 1, director)
    standings = browser().get(f"/events/{event.slug}/standings.csv").content.decode()
    results = browser().get(f"/events/{event.slug}/results.csv").content.decode()
    for text in (standings, results):
        cells = [cell for row in csv.reader(io.StringIO(text)) for cell in row]
        assert not [c for c in cells if c.startswith(("=", "+", "-", "@", "\t", "\r"))]
        assert {"'+1+2", "'-2+3", "'@SUM(A1)", "ann"} <= set(cells)


# --- organizer tools -----------------------------------------------------------------------------


def test_organizers_move_the_event_and_see_the_audit_log(director: User) -> None:
    event = make_event(director)
    html = page(director, event)
    assert ">Open registration</button>" in html and "Audit log" in html
    assert "Registration is open." in submit(director, event, "open-registration/")
    assert "The open window is closed." in submit(director, event, "close/")
    html = submit(director, event, "open-check-in/")
    assert "Check-in is open; registration is closed." in html
    # Nobody checked in: the format refuses to start, so the page offers no Start, and says why.
    assert ">Start the event</button>" not in html
    assert "The event cannot start yet. " in html and "needs at least 2 players" in html
    html = submit(director, event, "start/")
    assert "needs" in html or "at least" in html  # posted anyway: the service refuses
    html = submit(director, event, "cancel/", reason="nobody came")
    assert "The event is cancelled." in html and "reason: nobody came" in html
    assert UserFactory(username="eve") and "Organizer tools" not in page(user("eve"), event)
    html = submit(user("eve"), event, "cancel/")
    assert "only the event&#x27;s organizers may do that" in html.lower()


def test_pause_resume_announce_and_remove_players(director: User) -> None:
    event = started_event(director, FOUR)
    assert "The event is paused" in submit(director, event, "pause/")
    html = page(None, event)
    assert "<strong>Paused</strong> by the organizers" in html
    assert "The event is resumed." in submit(director, event, "resume/")
    html = submit(director, event, "announce/", text="Round 2 at nine")
    assert "Announcement posted." in html and "Round 2 at nine" in page(None, event)
    assert "an announcement needs words" in submit(director, event, "announce/", text=" ")
    bob = Entry.objects.get(tournament=event, user__username="bob")
    html = submit(director, event, "remove-player/", entry=bob.pk, action="disqualify", reason="")
    assert "Choose a player and give a reason" in html
    html = submit(
        director, event, "remove-player/", entry=bob.pk, action="disqualify", reason="cheat"
    )
    assert "bob is disqualified." in html
    cid = Entry.objects.get(tournament=event, user__username="cid")
    html = submit(director, event, "remove-player/", entry=cid.pk, action="withdraw", reason="ill")
    assert "cid is withdrawn." in html
    bob.refresh_from_db()
    assert (bob.status, bob.reason) == ("disqualified", "cheat")


def test_adjudicate_a_table_from_its_form(director: User) -> None:
    event = started_event(director, ["ann", "bob"])
    table = round_of(event).tables.get()
    first = names_at(table)[0]
    html = page(director, event)
    assert f'action="/events/club-night/tables/{table.pk}/adjudicate/"' in html
    assert f"Place of {first}" in html
    url = f"tables/{table.pk}/adjudicate/"
    html = submit(director, event, url, **{"place-0": "x", "place-1": "1", "reason": "r"})
    assert f"Give {first} a place" in html
    html = submit(director, event, url, **{"place-0": "2", "place-1": "1", "reason": "stuck"})
    assert "Table W1-1 is decided." in html
    table.refresh_from_db()
    assert table.adjudicated == "stuck" and table.table.result.ended == "adjudicated"


def test_reseat_and_start_a_waiting_round_from_their_forms(director: User) -> None:
    event = started_event(director, FOUR, format="swiss", rounds=2, auto_advance=False)
    round_ = round_of(event)
    html = page(director, event)
    assert f"{round_.name} is waiting" in html and 'name="tables"' in html
    base = f"rounds/{round_.pk}/"
    assert "Not in this event: zed" in submit(director, event, base + "reseat/", tables="ann, zed")
    html = submit(director, event, base + "reseat/", tables="ann, dan\n\nbob, cid\n")
    assert f"{round_.name} is re-seated." in html
    seated = [names_at(t) for t in round_.tables.order_by("index")]
    assert seated == [["ann", "dan"], ["bob", "cid"]]
    assert f"{round_.name} has started." in submit(director, event, base + "start/")
    round_.refresh_from_db()
    assert round_.status == Round.Status.RUNNING
    assert browser(director).post(f"/events/{event.slug}/{base}dance/").status_code == 404
    cup = started_event(director, ["eve", "fay"], name="Cup", auto_advance=False)
    assert "is waiting" in page(director, cup) and 'name="tables"' not in page(director, cup)


# --- creating an event ---------------------------------------------------------------------------


def test_staff_create_an_event_from_the_form(director: User) -> None:
    assert browser(director).get("/events/new/").status_code == 200
    data = {
        "name": "Spring open",
        "ruleset": "standard",
        "target": "100",
        "turn_seconds": "30",
        "time_bank_seconds": "0",
        "format": "swiss",
        "table_size": "2",
        "rounds": "3",
        "seeding": "rating",
        "min_rated_games": "0",
        "auto_advance": "on",
        "online": "on",
        "rated": "on",
        "registration_opens_at": "2030-05-01T18:00",
        "placement_points": "",
    }
    response = browser(director).post("/events/new/", data, follow=True)
    assert response.redirect_chain[-1][0] == "/events/spring-open/"
    made = Tournament.objects.get(slug="spring-open")
    assert (made.format, made.rounds, made.overrides, made.turn_seconds) == (
        "swiss",
        3,
        {"target": 100},
        30,
    )
    assert made.options == {} and made.registration_opens_at.year == 2030
    assert "is created, in draft" in response.content.decode()
    bad = browser(director).post("/events/new/", {**data, "placement_points": "4, x"})
    assert "Whole numbers separated by commas." in bad.content.decode()
    options = {**data, "name": "Multi", "format": "multi_table_elimination", "table_size": "4"}
    browser(director).post("/events/new/", {**options, "advance": "2", "placement_points": "3,1"})
    # Only the options the format reads are kept (multi-table elimination has no points).
    assert Tournament.objects.get(slug="multi").options == {"advance": 2}
    # ... and rounds, a Swiss field, is left out too.
    assert Tournament.objects.get(slug="multi").rounds is None


def test_the_create_form_names_each_format_s_own_fields(director: User) -> None:
    html = browser(director).get("/events/new/").content.decode()
    owners = dict(re.findall(r'id="field-(\w+)" data-formats="([\w ]+)"', html))
    assert owners == {
        "rounds": "swiss swiss_tables",
        "third_place": "single_elimination",
        "grand_final_reset": "double_elimination",
        "double_round": "round_robin",
        "advance": "multi_table_elimination",
        "min_table": "round_robin multi_table_elimination swiss_tables",
        "placement_points": "round_robin swiss_tables",
    }
    assert 'id="field-name" data-formats' not in html
    assert 'src="/static/js/event_form.js"' in html


def test_club_admins_create_events_for_their_clubs_only(director: User) -> None:
    hearts = Club.objects.create(name="Hearts", slug="hearts")
    Club.objects.create(name="Spades", slug="spades")
    boss = UserFactory(username="boss")
    ClubMembership.objects.create(club=hearts, user=boss, role="admin")
    html = browser(boss).get("/events/new/").content.decode()
    assert 'value="hearts"' in html and 'value="spades"' not in html
    player = browser(UserFactory()).get("/events/new/", follow=True)
    assert "Only staff and club admins create events." in player.content.decode()
    assert browser().get("/events/new/")["Location"].startswith("/accounts/login/")
    data = {"name": "Hearts cup", "club": "spades", "ruleset": "standard", "format": "swiss"}
    refused = browser(boss).post("/events/new/", {**data, "turn_seconds": "60"})
    assert "Select a valid choice" in refused.content.decode()


def test_checked_in_players_wait_for_the_start(director: User) -> None:
    event = make_event(director, status="check_in", players=["ann", "bob"])
    assert "You are checked in" in page(user("ann"), event)
    assert "Registration is closed: check-in is open to the registered players." in page(
        UserFactory(), event
    )


def test_enter_a_face_to_face_result(director: User) -> None:
    event = started_event(director, ["ann", "bob"], online=False)
    table = round_of(event).tables.get()
    assert table.table_id is None
    first, second = names_at(table)
    html = page(director, event)
    assert "Enter the result of table W1-1" in html and "Watch live" not in html
    url = f"tables/{table.pk}/result/"
    assert "is not a player" in submit(director, event, url, hands=f"{first} lots")
    html = submit(director, event, url, hands=f"{first} 60/0, {second} 10/30\n")
    assert "The result of table W1-1 is entered." in html
    table.refresh_from_db()
    for hook in finalization.hook_names():  # as the worker runs them after commit
        finalization.run_hook(table.table_id, hook)
    event.refresh_from_db()
    assert event.status == "finished" and event.champion.username == first
    assert f"Finished · won by {first} · 2 players" in page(None, event)
