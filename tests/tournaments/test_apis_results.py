"""``POST /api/events/{slug}/tables/{id}/result/``: a face-to-face game entered through the API
counts in the event once it finalizes; refusals come back as the protocol's errors."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from accounts.models import User
from games.models import GameResult
from tests.tournaments.factories import round_of, run_hooks, started_event, user_named

pytestmark = pytest.mark.django_db

HANDS = [
    {"ann": {"table": 60, "hand": 0}, "bob": {"table": 15, "hand": 40}},
    {"ann": {"table": 20, "hand": 25}, "bob": {"table": 70, "hand": 0}},
]


def client(user: User | None) -> APIClient:
    api = APIClient()
    if user is not None:
        api.force_authenticate(user)
    return api


def test_an_organizer_enters_a_face_to_face_game(director: User) -> None:
    event = started_event(director, ["ann", "bob"], online=False)
    table = round_of(event).tables.get()
    url = f"/api/events/{event.slug}/tables/{table.pk}/result/"
    answer = client(director).post(url, {"hands": HANDS}, format="json")
    assert answer.status_code == 200, answer.content
    table.refresh_from_db()
    result = GameResult.objects.get(table_id=table.table_id)
    totals = {p["player"]: p["score"] for p in result.placements}
    assert totals == {"ann": 60 + 20 - 25, "bob": 15 - 40 + 70}
    run_hooks(table.table_id)
    event.refresh_from_db()
    assert event.status == "finished" and event.champion.username == "ann"


def test_refusals(director: User) -> None:
    event = started_event(director, ["ann", "bob"], online=False)
    table = round_of(event).tables.get()
    url = f"/api/events/{event.slug}/tables/{table.pk}/result/"
    assert client(None).post(url, {"hands": HANDS}, format="json").status_code in (401, 403)
    player = client(user_named("ann")).post(url, {"hands": HANDS}, format="json")
    assert (player.status_code, player.json()["error"]) == (403, "forbidden")
    bad = client(director).post(url, {"hands": "lots"}, format="json")
    assert (bad.status_code, bad.json()["error"]) == (400, "bad_request")
    wrong = [{"ann": {"table": 10, "hand": 0}, "cid": {"table": 0, "hand": 5}}]
    odd = client(director).post(url, {"hands": wrong}, format="json")
    assert (odd.status_code, odd.json()["error"]) == (400, "bad_request")
    missing = client(director).post(
        f"/api/events/{event.slug}/tables/999999/result/", {"hands": HANDS}, format="json"
    )
    assert missing.status_code == 404
