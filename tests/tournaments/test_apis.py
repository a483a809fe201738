"""The events REST API: every call, who may make it (anonymous, a player, another player, an
event admin, staff, a club's admin), and the error codes the services answer with."""

from __future__ import annotations

from typing import Any

import pytest
import yaml
from django.test import Client
from rest_framework.test import APIClient

from accounts.models import Club, ClubMembership, User
from games.models import Table
from tests.accounts.factories import UserFactory
from tests.tournaments.factories import (
    FOUR,
    decide,
    make_event,
    names_at,
    round_of,
    started_event,
)
from tournaments.models import Entry, Round, Tournament

pytestmark = pytest.mark.django_db


def client(user: User | None = None) -> APIClient:
    c = APIClient()
    if user is not None:
        c.force_authenticate(user)
    return c


@pytest.fixture
def ann() -> User:
    return UserFactory(username="ann")


def post(user: User | None, event: Tournament, call: str, **body: Any) -> Any:
    return client(user).post(f"/api/events/{event.slug}/{call}", body, format="json")


def error(response: Any) -> tuple[int, str]:
    return response.status_code, response.json()["error"]


# --- reads ---------------------------------------------------------------------------------------


def test_lists_by_status_and_club_leave_drafts_out(director: User) -> None:
    club = Club.objects.create(name="Hearts", slug="hearts")
    make_event(director, name="Quiet draft")
    make_event(director, status="registration", name="Open night", club=club)
    started_event(director, ["ann", "bob"], name="Final night")
    names = {
        status: [e["name"] for e in client().get(f"/api/events/?status={status}").json()]
        for status in ("upcoming", "running", "finished")
    }
    assert names == {"upcoming": ["Open night"], "running": ["Final night"], "finished": []}
    assert [e["name"] for e in client().get("/api/events/").json()] == ["Open night"]
    by_club = client().get("/api/events/?status=upcoming&club=hearts").json()
    assert [(e["club"], e["club_name"], e["url"]) for e in by_club] == [
        ("hearts", "Hearts", "/events/open-night/")
    ]
    assert client().get("/api/events/?status=running&club=hearts").json() == []
    assert error(client().get("/api/events/?status=soon")) == (400, "bad_request")


def test_detail_shows_settings_counts_and_your_entry(director: User, ann: User) -> None:
    event = make_event(
        director, status="registration", players=["ann", "bob"], max_players=8, turn_seconds=30
    )
    body = client().get(f"/api/events/{event.slug}/").json()
    assert (body["status"], body["format"], body["table_size"]) == (
        "registration",
        "single_elimination",
        2,
    )
    assert (body["turn_seconds"], body["overrides"], body["max_players"]) == (30, {"target": 50}, 8)
    assert body["counts"]["registered"] == 2 and body["counts"]["checked_in"] == 0
    assert body["my_entry"] is None and body["is_admin"] is False
    assert body["current_round"] is None and body["champion"] is None
    mine = client(ann).get(f"/api/events/{event.slug}/").json()["my_entry"]
    assert (mine["username"], mine["status"]) == ("ann", "registered")
    assert client(director).get(f"/api/events/{event.slug}/").json()["is_admin"] is True
    assert error(client().get("/api/events/nope/")) == (404, "not_found")


def test_a_draft_is_seen_by_its_organizers_only(director: User, ann: User) -> None:
    club = Club.objects.create(name="Hearts", slug="hearts")
    event = make_event(director, club=club)
    boss = UserFactory(username="boss")
    ClubMembership.objects.create(club=club, user=boss, role="admin")
    helper = UserFactory(username="helper")
    event.admins.add(helper)
    for user in (None, ann):
        assert error(client(user).get(f"/api/events/{event.slug}/")) == (404, "not_found")
    for user in (director, boss, helper):
        assert client(user).get(f"/api/events/{event.slug}/").json()["is_admin"] is True


def test_rounds_list_tables_with_players_live_links_and_placements(director: User) -> None:
    event = started_event(director, FOUR)
    rounds = client().get(f"/api/events/{event.slug}/rounds/").json()
    assert [(r["number"], r["name"], r["status"], r["byes"]) for r in rounds] == [
        (1, "Semi-finals", "running", [])
    ]
    tables = rounds[0]["tables"]
    assert [t["key"] for t in tables] == ["W1-1", "W1-2"]
    assert all(t["url"] == f"/tables/{t['table']}/" and t["playing"] for t in tables)
    assert all(t["placements"] is None for t in tables)
    assert sorted(n for t in tables for n in t["players"]) == FOUR
    table = round_of(event).tables.get(key="W1-1")
    decide(table, director, [names_at(table)[1]])
    row = client().get(f"/api/events/{event.slug}/rounds/").json()[0]["tables"][0]
    first, second = names_at(table)
    assert row["placements"] == {second: 1, first: 2} and not row["playing"]
    detail = client().get(f"/api/events/{event.slug}/").json()
    assert detail["current_round"]["number"] == 1 and detail["counts"]["playing"] == 4


def test_standings_and_bracket_follow_the_results(director: User) -> None:
    event = started_event(director, FOUR)
    assert client().get(f"/api/events/{event.slug}/standings/").json()["rows"] == []
    for table in round_of(event).tables.all():
        decide(table, director)
    standings = client().get(f"/api/events/{event.slug}/standings/").json()
    assert standings["round"] == 1 and not standings["final"]
    assert [r["eliminated"] for r in standings["rows"]] == [False, False, True, True]
    sides = client().get(f"/api/events/{event.slug}/bracket/").json()["sides"]
    assert [c["label"] for c in sides[0]["columns"]] == ["Semi-finals", "Final"]
    semis, final = (c["matches"] for c in sides[0]["columns"])
    assert [m["state"] for m in semis] == ["done", "done"]
    assert final[0]["state"] == "playing" and final[0]["url"].startswith("/tables/")
    assert [s["username"] for s in final[0]["slots"]] == [m["winner"] for m in semis]
    swiss = started_event(director, ["eve", "fay"], name="Swiss night", format="swiss", rounds=1)
    assert error(client().get(f"/api/events/{swiss.slug}/bracket/")) == (404, "no_bracket")


def test_entries_and_announcements(director: User) -> None:
    event = make_event(director, status="registration", players=["ann", "bob"])
    assert post(director, event, "announce/", text="Tables open at 8").status_code == 201
    assert [e["username"] for e in client().get(f"/api/events/{event.slug}/entries/").json()] == [
        "ann",
        "bob",
    ]
    notes = client().get(f"/api/events/{event.slug}/announcements/").json()
    assert [(n["text"], n["author"]) for n in notes] == [("Tables open at 8", "director")]


# --- a player's calls ----------------------------------------------------------------------------


def test_register_check_in_and_withdraw(director: User, ann: User) -> None:
    event = make_event(director)
    post(director, event, "open-registration/")
    assert error(post(None, event, "register/")) == (401, "not_authenticated")
    answer = post(ann, event, "register/")
    assert answer.status_code == 200 and answer.json()["my_entry"]["status"] == "registered"
    assert error(post(ann, event, "check-in/")) == (409, "wrong_status")
    bob = UserFactory(username="bob")
    assert error(post(bob, event, "check-in/")) == (400, "not_registered")
    post(director, event, "open-check-in/")
    assert error(post(bob, event, "register/")) == (409, "wrong_status")
    assert post(ann, event, "check-in/").json()["my_entry"]["status"] == "checked_in"
    assert post(ann, event, "withdraw/").json()["my_entry"]["status"] == "withdrawn"
    assert error(post(bob, event, "withdraw/")) == (400, "not_registered")


def test_register_refusals_full_and_not_eligible(director: User, ann: User) -> None:
    club = Club.objects.create(name="Hearts", slug="hearts")
    event = make_event(director, status="registration", club=club, members_only=True, max_players=1)
    assert error(post(ann, event, "register/")) == (403, "not_eligible")
    ClubMembership.objects.create(club=club, user=ann)
    bob = UserFactory(username="bob")
    ClubMembership.objects.create(club=club, user=bob)
    assert post(ann, event, "register/").status_code == 200
    assert error(post(bob, event, "register/")) == (409, "event_full")
    draft = make_event(director, name="Later")
    assert error(post(ann, draft, "register/")) == (404, "not_found")


# --- organizer calls -----------------------------------------------------------------------------


def test_organizer_calls_move_the_event_through_its_life(director: User, ann: User) -> None:
    event = make_event(director, status="registration", players=FOUR)
    for user, code in ((None, 401), (ann, 403)):
        for call in ("open-check-in/", "close/", "start/", "pause/", "cancel/"):
            assert post(user, event, call).status_code == code, (user, call)
    assert post(director, event, "close/").json()["registration_closes_at"] is not None
    assert post(director, event, "open-check-in/").json()["status"] == "check_in"
    for name in FOUR:
        post(User.objects.get(username=name), event, "check-in/")
    assert error(post(director, event, "pause/")) == (409, "wrong_status")
    started = post(director, event, "start/").json()
    assert started["status"] == "running" and started["current_round"]["number"] == 1
    assert post(director, event, "pause/").json()["paused"] is True
    assert all(t.paused_at for t in Table.objects.filter(status="playing"))
    assert post(director, event, "resume/").json()["paused"] is False
    cancelled = post(director, event, "cancel/", reason="the hall flooded")
    assert cancelled.json()["status"] == "cancelled"
    assert event.audit.filter(action="cancelled", details__reason="the hall flooded").exists()
    assert error(post(director, event, "open-registration/")) == (409, "wrong_status")


def test_event_admins_and_club_admins_organize_but_other_players_do_not(director: User) -> None:
    club = Club.objects.create(name="Hearts", slug="hearts")
    boss, helper, member = (UserFactory(username=n) for n in ("boss", "helper", "member"))
    ClubMembership.objects.create(club=club, user=boss, role="admin")
    ClubMembership.objects.create(club=club, user=member)
    for name, user in (("a", boss), ("b", helper)):
        event = make_event(director, name=f"Night {name}", club=club)
        event.admins.add(helper)
        assert error(post(member, event, "open-registration/")) == (404, "not_found")  # a draft
        assert post(user, event, "open-registration/").json()["status"] == "registration"
        assert error(post(member, event, "open-check-in/")) == (403, "forbidden")


def test_start_needs_enough_players(director: User) -> None:
    event = make_event(director, status="check_in", players=["ann"])
    assert error(post(director, event, "start/")) == (400, "bad_request")


def test_announce(director: User, ann: User) -> None:
    event = make_event(director, status="registration")
    assert error(post(ann, event, "announce/", text="hi")) == (403, "forbidden")
    assert error(post(director, event, "announce/", text="  ")) == (400, "bad_request")
    note = post(director, event, "announce/", text="Bring a pen").json()
    assert (note["text"], note["author"]) == ("Bring a pen", "director")


def test_withdraw_or_disqualify_an_entry(director: User, ann: User) -> None:
    event = started_event(director, FOUR)
    entry = Entry.objects.get(tournament=event, user__username="bob")
    url = f"entries/{entry.pk}/"
    assert error(post(ann, event, url + "disqualify/", reason="x")) == (403, "forbidden")
    answer = post(director, event, url + "disqualify/", reason="marked cards")
    assert (answer.json()["status"], answer.json()["reason"]) == ("disqualified", "marked cards")
    other = Entry.objects.get(tournament=event, user__username="cid")
    withdrawn = post(director, event, f"entries/{other.pk}/withdraw/", reason="ill").json()
    assert withdrawn["status"] == "withdrawn"
    assert error(post(director, event, "entries/999999/withdraw/", reason="x")) == (
        404,
        "not_found",
    )


def test_adjudicate_a_table(director: User, ann: User) -> None:
    event = started_event(director, FOUR)
    table = round_of(event).tables.get(key="W1-1")
    first, second = names_at(table)
    url = f"tables/{table.pk}/adjudicate/"
    places = {first: 2, second: 1}
    assert error(post(ann, event, url, places=places, reason="x")) == (403, "forbidden")
    assert error(post(director, event, url, places={first: 1}, reason="x")) == (400, "bad_request")
    assert error(post(director, event, url, places=places, reason="")) == (400, "bad_request")
    assert error(post(director, event, url, places="first", reason="x")) == (400, "bad_request")
    answer = post(director, event, url, places=places, reason="stuck table")
    assert answer.status_code == 200 and answer.json()["adjudicated"] == "stuck table"
    assert Table.objects.get(pk=table.table_id).result.ended == "adjudicated"
    assert error(post(director, event, "tables/999999/adjudicate/", places=places, reason="x")) == (
        404,
        "not_found",
    )


def test_reseat_and_start_a_waiting_round(director: User, ann: User) -> None:
    event = started_event(director, FOUR, format="swiss", rounds=2, auto_advance=False)
    round_ = round_of(event)
    assert round_.status == Round.Status.PENDING
    ids = [p for t in round_.tables.order_by("index") for p in t.players]
    swapped = [[ids[0], ids[2]], [ids[1], ids[3]]]
    url = f"rounds/{round_.pk}/"
    assert error(post(ann, event, url + "reseat/", tables=swapped)) == (403, "forbidden")
    assert error(post(director, event, url + "reseat/", tables=[ids])) == (400, "bad_request")
    answer = post(director, event, url + "reseat/", tables=swapped).json()
    assert [t["key"] for t in answer["tables"]] == ["T1", "T2"]
    assert answer["status"] == "pending" and all(t["table"] is None for t in answer["tables"])
    assert error(post(ann, event, url + "start/")) == (403, "forbidden")
    started = post(director, event, url + "start/").json()
    assert started["status"] == "running" and all(t["url"] for t in started["tables"])
    assert error(post(director, event, url + "start/")) == (409, "wrong_status")
    assert error(post(director, event, url + "reseat/", tables=swapped)) == (409, "wrong_status")
    assert error(post(director, event, "rounds/999999/start/")) == (404, "not_found")
    bracket = started_event(director, ["eve", "fay"], name="Cup", auto_advance=False)
    final = round_of(bracket)
    pair = [final.tables.get().players]
    refused = post(director, bracket, f"rounds/{final.pk}/reseat/", tables=pair)
    assert error(refused) == (400, "bad_request")  # a bracket's draw fixes who meets whom


# --- creating events -----------------------------------------------------------------------------


def test_staff_and_club_admins_create_events(director: User, ann: User) -> None:
    club = Club.objects.create(name="Hearts", slug="hearts")
    boss = UserFactory(username="boss")
    ClubMembership.objects.create(club=club, user=boss, role="admin")
    body = {"name": "Spring open", "format": "swiss", "rounds": 3, "overrides": {"target": 100}}
    made = client(director).post("/api/events/", body, format="json")
    assert made.status_code == 201
    assert (made.json()["status"], made.json()["slug"], made.json()["rounds"]) == (
        "draft",
        "spring-open",
        3,
    )
    assert error(client().post("/api/events/", body, format="json")) == (401, "not_authenticated")
    assert error(client(ann).post("/api/events/", body, format="json")) == (403, "forbidden")
    assert error(client(boss).post("/api/events/", body, format="json")) == (403, "forbidden")
    mine = client(boss).post("/api/events/", {**body, "club": "hearts"}, format="json")
    assert mine.status_code == 201 and mine.json()["club"] == "hearts"
    bad = client(director).post("/api/events/", {**body, "overrides": {"target": 0}}, format="json")
    assert error(bad) == (400, "bad_request")
    assert error(client(director).post("/api/events/", {"name": "x"}, format="json")) == (
        400,
        "bad_request",
    )


def test_the_schema_documents_the_events_api() -> None:
    schema = yaml.safe_load(Client().get("/api/schema/").content)
    paths = schema["paths"]
    for path in (
        "/api/events/",
        "/api/events/{slug}/",
        "/api/events/{slug}/register/",
        "/api/events/{slug}/standings/",
        "/api/events/{slug}/rounds/",
        "/api/events/{slug}/tables/{round_table_id}/adjudicate/",
        "/api/events/{slug}/rounds/{round_id}/reseat/",
    ):
        assert path in paths, path
    register = paths["/api/events/{slug}/register/"]["post"]
    assert {"200", "401", "403", "409"} <= set(register["responses"])
