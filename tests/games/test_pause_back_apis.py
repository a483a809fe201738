"""The turn clock through the REST API: pause, resume and back, the time bank at creation, and
the ``clock`` object of the answers (docs/tables.md, "The turn clock")."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.models import User
from games.clock_services import table_enforce_deadline
from games.models import Table, TableEvent
from games.services import table_create
from tests.accounts.factories import UserFactory
from tests.games.tables import players, started_table, state_of, to_move

pytestmark = pytest.mark.django_db

DRAW = {"type": "draw", "source": "stock"}
CLOCK_KEYS = {
    "turn_seconds",
    "time_bank_seconds",
    "turn_started",
    "turn_ends",
    "banks",
    "paused",
    "remaining",
    "between_hands_seconds",
    "break_ends",
}


def client(user: User | None = None) -> APIClient:
    c = APIClient()
    if user is not None:
        c.force_authenticate(user)
    return c


def call(user: User | None, table_id: int, name: str) -> Any:
    return client(user).post(f"/api/tables/{table_id}/{name}/")


def refused(answer: Any, status: int, code: str) -> None:
    assert answer.status_code == status, answer.json()
    assert answer.json()["error"] == code and answer.json()["message"]


def post_action(user: User, table: Table, action: dict[str, Any]) -> Any:
    table.refresh_from_db()
    body = {"action": action, "version": table.version}
    return client(user).post(f"/api/tables/{table.pk}/actions/", body, format="json")


def staff() -> User:
    user: User = UserFactory(username="tess", is_staff=True)
    return user


def make_absent(table: Table) -> str:
    """Let the mover's time run out (``max_timeouts`` 1: one timeout makes them absent)."""
    mover = state_of(table).players[state_of(table).turn or 0].name
    Table.objects.filter(pk=table.pk).update(deadline=timezone.now() - timedelta(seconds=1))
    assert table_enforce_deadline(table.pk)
    return mover


# --- pause and resume ------------------------------------------------------------------------


def test_staff_pause_and_resume_and_the_answers_carry_the_clock() -> None:
    ann, bob = players("ann", "bob")
    table = started_table([ann, bob])
    paused = call(staff(), table.pk, "pause")
    assert paused.status_code == 200
    body = paused.json()
    assert body["id"] == table.pk and body["status"] == "playing"
    assert set(body["clock"]) == CLOCK_KEYS
    assert body["clock"]["paused"] is True and body["deadline"] is None
    assert body["clock"]["remaining"] == pytest.approx(table.turn_seconds, abs=5)
    assert "you" not in body["view"]  # staff without a seat: the public view
    resumed = call(User.objects.get(username="tess"), table.pk, "resume").json()
    assert resumed["clock"]["paused"] is False and resumed["clock"]["remaining"] is None
    assert resumed["deadline"].endswith("Z")


def test_an_action_while_paused_is_refused_then_accepted_after_the_resume() -> None:
    ann, bob = players("ann", "bob")
    table = started_table([ann, bob])
    tess = staff()
    mover = to_move(table, [ann, bob])
    assert call(tess, table.pk, "pause").status_code == 200
    refused(post_action(mover, table, DRAW), 409, "paused")
    assert call(tess, table.pk, "pause").status_code == 200  # pausing twice changes nothing
    assert call(tess, table.pk, "resume").status_code == 200
    answer = post_action(mover, table, DRAW)
    assert answer.status_code == 200 and answer.json()["view"]["phase"] == "play"


@pytest.mark.parametrize("name", ["pause", "resume"])
def test_only_staff_pause_and_resume(name: str) -> None:
    ann, bob, eve = players("ann", "bob", "eve")
    table = started_table([ann, bob])
    for user in (ann, eve):  # a seated player, then someone watching
        refused(call(user, table.pk, name), 403, "forbidden")
    table.refresh_from_db()
    assert table.paused_at is None


@pytest.mark.parametrize("name", ["pause", "resume", "back"])
def test_the_calls_need_a_login(name: str) -> None:
    ann, bob = players("ann", "bob")
    table = started_table([ann, bob])
    refused(call(None, table.pk, name), 401, "not_authenticated")


@pytest.mark.parametrize("name", ["pause", "resume", "back"])
def test_an_unknown_table_is_not_found(name: str) -> None:
    ann, bob = players("ann", "bob")
    table = started_table([ann, bob])
    user = staff() if name != "back" else ann
    refused(call(user, table.pk + 50, name), 404, "not_found")


@pytest.mark.parametrize("name", ["pause", "resume", "back"])
def test_a_waiting_table_is_the_wrong_phase(name: str) -> None:
    ann = players("ann")[0]
    table = table_create(creator=ann, ruleset="standard", seats=2)
    user = staff() if name != "back" else ann
    refused(call(user, table.pk, name), 400, "wrong_phase")


# --- back ------------------------------------------------------------------------------------


def test_an_absent_player_comes_back() -> None:
    ann, bob = players("ann", "bob")
    table = started_table([ann, bob], overrides={"max_timeouts": 1})
    name = make_absent(table)
    user = ann if name == "ann" else bob
    seen = client(user).get(f"/api/tables/{table.pk}/").json()["view"]
    assert next(p for p in seen["players"] if p["name"] == name)["absent"] is True
    answer = call(user, table.pk, "back")
    assert answer.status_code == 200
    me = next(p for p in answer.json()["view"]["players"] if p["name"] == name)
    assert (me["absent"], me["timeouts"]) == (False, 0)
    assert TableEvent.objects.filter(table=table, kind="back", player=name).count() == 1
    version = answer.json()["version"]
    again = call(user, table.pk, "back")  # not absent any more: nothing changes
    assert again.status_code == 200 and again.json()["version"] == version


def test_only_a_seated_player_comes_back() -> None:
    ann, bob, eve = players("ann", "bob", "eve")
    table = started_table([ann, bob])
    refused(call(eve, table.pk, "back"), 400, "not_seated")


# --- creating with a time bank ---------------------------------------------------------------


def test_a_table_is_created_with_a_time_bank() -> None:
    ann = players("ann")[0]
    body = {"seats": 2, "turn_seconds": 20, "time_bank_seconds": 90}
    answer = client(ann).post("/api/tables/", body, format="json")
    assert answer.status_code == 201
    created = answer.json()
    assert created["time_bank_seconds"] == 90
    assert created["clock"]["time_bank_seconds"] == 90 and created["clock"]["turn_seconds"] == 20
    assert Table.objects.get(pk=created["id"]).time_bank_seconds == 90


@pytest.mark.parametrize("bank", [-1, 3601, "60", True])
def test_a_bad_time_bank_is_a_bad_request(bank: object) -> None:
    ann = players("ann")[0]
    body = {"seats": 2, "time_bank_seconds": bank}
    refused(client(ann).post("/api/tables/", body, format="json"), 400, "bad_request")
    assert not Table.objects.exists()


def test_the_schema_documents_the_clock_calls() -> None:
    schema = client().get("/api/schema/", HTTP_ACCEPT="application/json").json()
    for name in ("pause", "resume", "back"):
        post = schema["paths"][f"/api/tables/{{table_id}}/{name}/"]["post"]
        assert post["operationId"] == f"tables_{name}"
        assert {"200", "401", "404"} <= set(post["responses"])
    assert "403" in schema["paths"]["/api/tables/{table_id}/pause/"]["post"]["responses"]
    table = schema["components"]["schemas"]["TableOutput"]["properties"]
    assert {"clock", "time_bank_seconds"} <= set(table)
    body = schema["paths"]["/api/tables/"]["post"]["requestBody"]["content"]["application/json"]
    create = body["schema"]["$ref"].rsplit("/", 1)[-1]
    assert "time_bank_seconds" in schema["components"]["schemas"][create]["properties"]
