"""The moves API and the replay (docs/tables.md, "Moves" and "Replays"): the API and the page."""

from __future__ import annotations

import gzip
import json
from typing import Any

import pytest
from django.test import Client
from rest_framework.test import APIClient

from accounts.models import User
from games import services
from games.engine.cards import format_card
from games.models import Table, TableEvent
from games.moves import card_phrase
from tests.games.tables import act, play_greedy, players, started_table, state_of

pytestmark = pytest.mark.django_db

DRAW = {"type": "draw", "source": "stock"}


def get(path: str, user: User | None = None) -> Any:
    client = APIClient()
    if user is not None:
        client.force_authenticate(user)
    return client.get(path)


def finished(names: tuple[str, ...] = ("ann", "bob")) -> tuple[Table, list[User]]:
    users = players(*names)
    table = started_table(users, overrides={"target": 100})
    play_greedy(table, users, until=lambda t: False)
    table.refresh_from_db()
    assert table.status == Table.Status.FINISHED
    return table, users


def test_the_moves_api_gives_a_player_their_own_list_and_anyone_else_the_public_one() -> None:
    ann, bob = users = players("ann", "bob")
    table = started_table(users)
    act(table, ann, DRAW)
    drawn = state_of(table).drawn
    assert drawn is not None
    path = f"/api/tables/{table.pk}/moves/"
    mine = get(path, ann).json()
    assert mine[-1]["cards"] == [format_card(drawn)]
    assert mine[-1]["text"] == f"you drew {card_phrase(format_card(drawn))}"
    watcher = players("cid")[0]
    for reader in (bob, watcher, None):
        answer = get(path, reader)
        assert answer.status_code == 200
        assert answer.json()[-1]["text"] == "ann drew from the stock"
        assert answer.json()[-1]["cards"] == []
    assert get("/api/tables/999999/moves/").status_code == 404


def test_a_game_not_over_has_no_replay() -> None:
    users = players("ann", "bob")
    table = started_table(users)
    answer = get(f"/api/tables/{table.pk}/replay/", users[0])
    assert answer.status_code == 409 and answer.json()["error"] == "wrong_phase"
    waiting = players("cid")[0]
    open_table = services.table_create(creator=waiting, ruleset="standard", seats=3)
    assert get(f"/api/tables/{open_table.pk}/replay/").status_code == 409
    assert get("/api/tables/999999/replay/").status_code == 404
    page = Client().get(f"/tables/{table.pk}/replay/")
    assert page.status_code == 200 and b"There is no replay yet" in page.content
    assert b"replay.js" not in page.content
    assert Client().get("/tables/999999/replay/").status_code == 404


def test_the_replay_steps_through_every_row_to_the_tables_final_state() -> None:
    table, _ = finished()
    replay = get(f"/api/tables/{table.pk}/replay/").json()
    rows = list(TableEvent.objects.filter(table=table).order_by("version"))
    assert replay["table"] == table.pk and replay["players"] == ["ann", "bob"]
    assert [s["version"] for s in replay["steps"]] == [r.version for r in rows]
    assert replay["steps"][-1]["state"] == table.state  # the log's truth is the snapshot
    assert replay["steps"][0]["hand"] == 1 and replay["steps"][0]["moves"][0]["kind"] == "deal"
    hands = [s["hand"] for s in replay["steps"]]
    assert hands == sorted(hands) and hands[-1] == table.state["hand_number"]
    # Every hand face up at every step, and every stock draw's card told.
    for step in replay["steps"]:
        assert all(isinstance(p["hand"], list) for p in step["state"]["players"])
        assert isinstance(step["state"]["stock"], list)
        assert all(m["cards"] for m in step["moves"] if m["kind"] == "draw")
    public = get(f"/api/tables/{table.pk}/moves/").json()
    assert [m for s in replay["steps"] for m in s["moves"]] == public
    squeezed = Client().get(f"/api/tables/{table.pk}/replay/", HTTP_ACCEPT_ENCODING="gzip")
    assert squeezed["Content-Encoding"] == "gzip"
    assert json.loads(gzip.decompress(squeezed.content)) == replay
    page = Client().get(f"/tables/{table.pk}/replay/")
    assert page.status_code == 200 and b"js/replay.js" in page.content
    assert f'data-url="/api/tables/{table.pk}/replay/"'.encode() in page.content


def test_the_finished_table_page_links_its_replay() -> None:
    table, _ = finished()
    page = Client().get(f"/tables/{table.pk}/")
    assert f'href="/tables/{table.pk}/replay/"'.encode() in page.content
