"""The chat REST API under /api/chat/: history, post, delete, mutes, a room's switch, and the
refusals each answers with (never a 500)."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from accounts.models import User
from chat.services import BURST
from games.models import Table
from tests.games.tables import started_table
from tests.tournaments.factories import make_event, staff, users

pytestmark = pytest.mark.django_db


def api(user: User | None = None) -> APIClient:
    client = APIClient()
    if user is not None:
        client.force_authenticate(user)
    return client


@pytest.fixture
def people() -> dict[str, User]:
    return {u.username: u for u in users("ann", "bob", "cid")}


@pytest.fixture
def table(people: dict[str, User]) -> Table:
    return started_table([people["ann"], people["bob"]])


def room(table: Table, name: str) -> str:
    return f"/api/chat/rooms/table:{table.pk}:{name}/messages/"


def error(response: Any, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.content
    body: dict[str, Any] = response.json()
    assert body["error"] == code, body
    return body


def test_post_and_read_the_history(table: Table, people: dict[str, User]) -> None:
    posted = api(people["ann"]).post(room(table, "players"), {"text": " <b>hi</b> "}, format="json")
    assert posted.status_code == 201
    assert posted.json()["text"] == "<b>hi</b>" and posted.json()["user"] == "ann"
    seen = api().get(room(table, "players")).json()  # a visitor reads the players' room
    assert seen["room"] == f"table:{table.pk}:players"
    assert [m["text"] for m in seen["messages"]] == ["<b>hi</b>"]
    assert (seen["enabled"], seen["writable"], seen["moderator"]) == (True, False, False)
    assert api(people["ann"]).get(room(table, "players")).json()["writable"] is True


def test_refusals(table: Table, people: dict[str, User]) -> None:
    ann, cid = api(people["ann"]), api(people["cid"])
    error(
        api().post(room(table, "players"), {"text": "hi"}, format="json"), 401, "not_authenticated"
    )
    error(cid.post(room(table, "players"), {"text": "hi"}, format="json"), 403, "forbidden")
    error(ann.get(room(table, "spectators")), 403, "forbidden")  # the rail, during the game
    error(ann.post(room(table, "players"), {"text": ""}, format="json"), 400, "chat_bad_text")
    error(ann.post(room(table, "players"), {"text": ["x"]}, format="json"), 400, "chat_bad_text")
    error(ann.post(room(table, "players"), {}, format="json"), 400, "bad_request")
    error(ann.get("/api/chat/rooms/table:0:players/messages/"), 404, "not_found")
    error(ann.get("/api/chat/rooms/what/messages/"), 404, "not_found")
    for _ in range(BURST):
        ann.post(room(table, "players"), {"text": "again"}, format="json")
    limited = error(
        ann.post(room(table, "players"), {"text": "again"}, format="json"), 429, "chat_rate_limited"
    )
    assert limited["retry_after"] > 0


def test_delete_by_staff_only(table: Table, people: dict[str, User]) -> None:
    posted = api(people["ann"]).post(room(table, "players"), {"text": "oops"}, format="json")
    path = f"/api/chat/messages/{posted.json()['id']}/"
    error(api(people["ann"]).delete(path), 403, "forbidden")
    director = staff()
    assert api(director).get(room(table, "players")).json()["moderator"] is True
    assert api(director).delete(path).status_code == 204
    assert api().get(room(table, "players")).json()["messages"] == []
    error(api(director).delete(path), 404, "not_found")


def test_mutes(table: Table, people: dict[str, User]) -> None:
    api(people["bob"]).post(room(table, "players"), {"text": "from bob"}, format="json")
    cid = api(people["cid"])
    assert cid.post("/api/chat/mutes/", {"user": "bob"}, format="json").json() == {"muted": ["bob"]}
    assert cid.get(room(table, "players")).json()["messages"] == []
    assert cid.get("/api/chat/mutes/").json() == {"muted": ["bob"]}
    error(cid.post("/api/chat/mutes/", {"user": "cid"}, format="json"), 403, "forbidden")
    error(cid.post("/api/chat/mutes/", {"user": "nobody"}, format="json"), 404, "not_found")
    assert cid.delete("/api/chat/mutes/bob/").json() == {"muted": []}
    assert len(cid.get(room(table, "players")).json()["messages"]) == 1
    # The name as anyone may type it: another case or width is the same account.
    assert cid.post("/api/chat/mutes/", {"user": "\uff42OB"}, format="json").json() == {
        "muted": ["bob"]
    }


def test_an_event_room_turned_off_by_its_organizer(people: dict[str, User]) -> None:
    director = staff()
    event = make_event(director, status="registration")
    switch = f"/api/chat/rooms/event:{event.pk}/"
    messages = switch + "messages/"
    error(api(people["ann"]).put(switch, {"enabled": False}, format="json"), 403, "forbidden")
    answer = api(director).put(switch, {"enabled": False}, format="json")
    assert answer.json() == {"room": f"event:{event.pk}", "enabled": False}
    error(api(people["ann"]).post(messages, {"text": "hi"}, format="json"), 403, "chat_off")
    assert api().get(messages).json()["enabled"] is False
    api(director).put(switch, {"enabled": True}, format="json")
    assert api(people["ann"]).post(messages, {"text": "hi"}, format="json").status_code == 201
