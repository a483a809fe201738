"""Quick play's REST API (PROTOCOL.md "Additions: finding a game") and the tables list's
filters (``GET /api/tables/``)."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from accounts.models import Club, ClubMembership, User
from games import services as table_services
from games.models import Table
from tests.games.tables import started_table
from tests.lobby.factories import STANDARD_2, STANDARD_4, rated

pytestmark = pytest.mark.django_db


def api(user: User | None = None) -> APIClient:
    client = APIClient()
    if user is not None:
        client.force_authenticate(user)
    return client


def test_the_pools_are_listed_with_their_counts_to_anyone() -> None:
    api(rated("ann")).post("/api/pools/join/", STANDARD_4, format="json")
    answer = api().get("/api/pools/")
    assert answer.status_code == 200
    four = next(p for p in answer.json() if p["key"] == "standard-4-30")
    assert four == {
        **STANDARD_4,
        "key": "standard-4-30",
        "label": "Standard · 4 players · 30 s",
        "waiting": 1,
        "playing": 0,
    }
    assert {(p["seats"], p["turn_seconds"]) for p in answer.json()} >= {(2, 30), (3, 30), (4, 30)}


def test_join_waits_202_then_matches_200_and_me_says_so() -> None:
    ann, bob = rated("ann"), rated("bob")
    first = api(ann).post("/api/pools/join/", STANDARD_2, format="json")
    assert first.status_code == 202
    assert first.json()["status"] == "waiting" and first.json()["table"] is None
    me = api(ann).get("/api/pools/me/").json()
    assert me["status"] == "waiting" and me["since"] == first.json()["since"]
    second = api(bob).post("/api/pools/join/", STANDARD_2, format="json")
    assert second.status_code == 200
    table = second.json()["table"]
    assert second.json()["status"] == "matched" and second.json()["url"] == f"/tables/{table}/"
    assert api(ann).get("/api/pools/me/").json()["table"] == table
    assert api(ann).get(f"/api/tables/{table}/").json()["status"] == "playing"


def test_delete_answers_204_or_the_match_that_came_first() -> None:
    ann, bob = rated("ann"), rated("bob")
    assert api(ann).delete("/api/pools/join/").status_code == 204
    api(ann).post("/api/pools/join/", STANDARD_2, format="json")
    assert api(ann).delete("/api/pools/join/").status_code == 204
    assert api(ann).get("/api/pools/me/").json()["status"] == "none"
    api(ann).post("/api/pools/join/", STANDARD_2, format="json")
    api(bob).post("/api/pools/join/", STANDARD_2, format="json")
    left = api(ann).delete("/api/pools/join/")
    assert left.status_code == 200 and left.json()["status"] == "matched"


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({**STANDARD_2, "seats": 9}, "not_offered"),
        ({**STANDARD_2, "turn_seconds": "30"}, "not_offered"),
        ({**STANDARD_2, "ruleset": ["standard"]}, "not_offered"),
        ({"ruleset": "standard", "seats": 2}, "bad_request"),
    ],
)
def test_bad_joins_are_refused_with_a_clear_error(body: dict[str, object], code: str) -> None:
    answer = api(rated("ann")).post("/api/pools/join/", body, format="json")
    assert answer.status_code == 400
    assert answer.json()["error"] == code and answer.json()["message"]


def test_a_seated_player_is_refused_409_with_the_table() -> None:
    ann = rated("ann")
    table = table_services.table_create(creator=ann, ruleset="standard", seats=3)
    answer = api(ann).post("/api/pools/join/", STANDARD_2, format="json")
    assert answer.status_code == 409
    assert answer.json()["error"] == "already_seated" and answer.json()["table"] == table.pk


def test_writes_and_me_need_a_login() -> None:
    assert api().post("/api/pools/join/", STANDARD_2, format="json").status_code in (401, 403)
    assert api().delete("/api/pools/join/").status_code in (401, 403)
    assert api().get("/api/pools/me/").status_code in (401, 403)


def ids(query: str) -> list[int]:
    answer = api().get(f"/api/tables/?{query}")
    assert answer.status_code == 200, answer.content
    return [t["id"] for t in answer.json()]


def test_the_tables_list_filters_newest_first() -> None:
    ann, bob, cid = rated("ann"), rated("bob"), rated("cid")
    club = Club.objects.create(name="Hearts", slug="hearts")
    ClubMembership.objects.create(club=club, user=cid)
    two = table_services.table_create(creator=ann, ruleset="standard", seats=2, rated=False)
    four = table_services.table_create(creator=bob, ruleset="no-jokers", seats=4)
    hearts = table_services.table_create(creator=cid, ruleset="standard", seats=3, club=club)
    playing = started_table([rated("dan"), rated("eve")])
    assert ids("status=waiting") == [hearts.pk, four.pk, two.pk]
    assert ids("") == [hearts.pk, four.pk, two.pk]
    assert ids("status=playing") == [playing.pk]
    assert ids("ruleset=no-jokers") == [four.pk]
    assert ids("seats=2") == [two.pk]
    assert ids("club=hearts") == [hearts.pk]
    assert ids("rated=false") == [two.pk]
    assert ids("rated=true&seats=4") == [four.pk]
    assert ids("status=playing&seats=2&rated=true") == [playing.pk]
    assert Table.objects.count() == 4


@pytest.mark.parametrize("query", ["status=lost", "seats=9", "seats=two", "seats=²", "rated=maybe"])
def test_bad_filters_are_refused(query: str) -> None:
    answer = api().get(f"/api/tables/?{query}")
    assert answer.status_code == 400 and answer.json()["error"] == "bad_request"
    assert answer.json()["message"].startswith(query.split("=")[0])
