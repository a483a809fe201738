"""The tables REST API: shapes, permissions, and every protocol error code reachable through it."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from rest_framework.test import APIClient

from accounts.models import User
from games.engine.actions import parse_action
from games.engine.cards import format_card
from games.engine.engine import apply
from games.engine.errors import ERROR_CODES, EngineError
from games.engine.legal import legal_actions
from games.engine.state import GameState
from games.models import Table, TableEvent
from tests.games.tables import play_greedy, players, started_table, state_of

pytestmark = pytest.mark.django_db

DRAW = {"type": "draw", "source": "stock"}


def client(user: User | None = None) -> APIClient:
    c = APIClient()
    if user is not None:
        c.force_authenticate(user)
    return c


def post_action(user: User, table: Table, action: Any, **body: Any) -> Any:
    table.refresh_from_db()
    payload = {"action": action, "version": table.version, **body}
    return client(user).post(f"/api/tables/{table.pk}/actions/", payload, format="json")


def engine_code(state: GameState, player: str, action: dict[str, Any]) -> str | None:
    """The code the engine refuses ``action`` with, or None if it would accept it."""
    try:
        apply(state, player, parse_action(action))
    except EngineError as exc:
        return exc.code
    return None


def after(state: GameState, player: str, action: dict[str, Any]) -> GameState:
    return apply(state, player, parse_action(action)).state


def hand(state: GameState, seat: int = 0) -> list[str]:
    return [format_card(c) for c in state.players[seat].hand]


# --- shapes and permissions ----------------------------------------------------------------------


def test_create_join_start_and_read_as_the_protocol_says() -> None:
    ann, bob, cid = players("ann", "bob", "cid")
    body = {
        "ruleset": "standard",
        "seats": 3,
        "rules": {"target": 300},
        "turn_seconds": 30,
        "rated": True,
    }
    answer = client(ann).post("/api/tables/", body, format="json")
    assert answer.status_code == 201
    table = answer.json()
    assert {"id", "status", "version", "view", "deadline"} <= table.keys()
    assert (table["status"], table["version"], table["view"], table["deadline"]) == (
        "waiting",
        0,
        None,
        None,
    )
    assert table["players"] == ["ann"] and table["rules"]["target"] == 300
    tid = table["id"]
    assert client(bob).post(f"/api/tables/{tid}/join/").status_code == 200
    listed = client().get("/api/tables/").json()
    assert [t["id"] for t in listed] == [tid] and listed[0]["players"] == ["ann", "bob"]
    assert client(bob).post(f"/api/tables/{tid}/start/").status_code == 403
    started = client(ann).post(f"/api/tables/{tid}/start/").json()
    assert started["status"] == "playing" and started["version"] == 1
    assert started["deadline"].endswith("Z")
    assert started["view"]["you"] == "ann" and isinstance(started["view"]["stock"], int)
    # Anyone may watch: the public view hides every hand.
    for viewer in (None, cid):
        seen = client(viewer).get(f"/api/tables/{tid}/").json()
        assert seen["version"] == 1 and "you" not in seen["view"]
        assert all(isinstance(p["hand"], int) for p in seen["view"]["players"])
    own = client(bob).get(f"/api/tables/{tid}/").json()["view"]
    assert own["you"] == "bob" and isinstance(own["players"][1]["hand"], list)
    assert isinstance(own["players"][0]["hand"], int) and own["legal"] == []
    assert client().get("/api/tables/?status=playing").json()[0]["id"] == tid
    assert client().get("/api/tables/?status=nope").status_code == 400


def test_an_accepted_action_answers_version_and_view() -> None:
    ann, bob = players("ann", "bob")
    table = started_table([ann, bob])
    answer = post_action(ann, table, DRAW, client_id="00000000-0000-4000-8000-000000000001")
    assert answer.status_code == 200
    body = answer.json()
    assert set(body) == {"version", "view"} and body["version"] == 2
    assert body["view"]["phase"] == "play" and body["view"]["you"] == "ann"
    assert body["view"]["drawn"] in body["view"]["players"][0]["hand"]
    # The same client_id again: applied once, answered the same.
    again = client(ann).post(
        f"/api/tables/{table.pk}/actions/",
        {"action": DRAW, "version": 1, "client_id": "00000000-0000-4000-8000-000000000001"},
        format="json",
    )
    assert again.status_code == 200 and again.json() == body
    assert TableEvent.objects.filter(table=table).count() == 2


def test_writes_need_a_login_and_reads_do_not() -> None:
    ann, bob = players("ann", "bob")
    table = started_table([ann, bob])
    anonymous = client()
    for path in ("", "join/", "leave/", "start/", "actions/"):
        answer = anonymous.post(f"/api/tables/{table.pk}/{path}", {}, format="json")
        assert answer.status_code == 401, path
        assert answer.json()["error"] == "not_authenticated"
    assert anonymous.post("/api/tables/", {}, format="json").status_code == 401
    for path in ("", "log/"):
        assert anonymous.get(f"/api/tables/{table.pk}/{path}").status_code == 200
    missing = anonymous.get(f"/api/tables/{table.pk + 50}/")
    assert missing.status_code == 404 and missing.json()["error"] == "not_found"


def test_permissions_of_players_and_others() -> None:
    ann, bob, eve = players("ann", "bob", "eve")
    table = started_table([ann, bob])
    # Someone not seated cannot act, start or leave; joining a started table is refused.
    assert post_action(eve, table, DRAW).json()["error"] == "not_seated"
    start = client(eve).post(f"/api/tables/{table.pk}/start/")
    assert (start.status_code, start.json()["error"]) == (403, "forbidden")
    join = client(eve).post(f"/api/tables/{table.pk}/join/")
    assert (join.status_code, join.json()["error"]) == (409, "already_started")
    leave = client(bob).post(f"/api/tables/{table.pk}/leave/")
    assert (leave.status_code, leave.json()["error"]) == (409, "already_started")
    # A seated player acts only on their turn.
    answer = post_action(bob, table, DRAW)
    assert (answer.status_code, answer.json()["error"]) == (400, "not_your_turn")


def test_the_log_hides_hidden_cards_until_the_game_is_over() -> None:
    users = players("ann", "bob")
    table = started_table(users, overrides={"target": 1})
    post_action(users[0], table, DRAW)
    log = client().get(f"/api/tables/{table.pk}/log/").json()
    assert [e["kind"] for e in log] == ["start", "action"]
    assert log[0]["seed"] is None and len(log[0]["commitment"]) == 64
    assert log[1]["events"] == [{"type": "drew", "player": "ann", "source": "stock"}]
    state = state_of(table)
    secret = set(hand(state, 1)) | {format_card(c) for c in state.stock}
    assert not secret & set(_strings(log))
    play_greedy(table, users, until=lambda t: t.status != "playing")
    log = client().get(f"/api/tables/{table.pk}/log/").json()
    assert log[0]["seed"] == table.deals[0]["seed"]
    assert log[1]["events"][0]["card"]


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


# --- every error code ----------------------------------------------------------------------------


def natural(cards: list[str]) -> str:
    return next(c for c in cards if c != "*")


def _refused(user: User, table: Table, action: Any, code: str, status: int = 400) -> None:
    answer = post_action(user, table, action)
    assert answer.status_code == status, answer.json()
    body = answer.json()
    assert body["error"] == code and body["message"], body


def test_every_protocol_error_code_is_reachable_through_the_api() -> None:
    ann, bob, eve = players("ann", "bob", "eve")
    reached: set[str] = set()

    def check(user: User, table: Table, action: Any, code: str, status: int = 400) -> None:
        _refused(user, table, action, code, status)
        reached.add(code)

    table = started_table([ann, bob])
    state = state_of(table)
    check(ann, table, {"type": "pass"}, "bad_request")
    check(bob, table, DRAW, "not_your_turn")
    check(ann, table, {"type": "discard", "card": hand(state)[0]}, "wrong_phase")
    check(eve, table, DRAW, "not_seated")
    check(
        bob,
        table,
        {"type": "rummy", "count": 1, "melds": [{"cards": ["AS", "2S", "3S"]}]},
        "no_rummy",
    )
    stale = client(ann).post(
        f"/api/tables/{table.pk}/actions/", {"action": DRAW, "version": 0}, format="json"
    )
    assert stale.status_code == 409 and stale.json()["version"] == 1
    reached.add(stale.json()["error"])
    start = client(bob).post(f"/api/tables/{table.pk}/start/")
    assert start.status_code == 403
    reached.add(start.json()["error"])

    # Taking the top discard, then throwing it back; then a card not held; an unknown meld.
    top = format_card(state.discard[-1])
    post_action(ann, table, {"type": "draw", "source": "discard", "count": 1})
    check(ann, table, {"type": "discard", "card": top}, "cannot_discard_taken_card")
    held = set(hand(state_of(table)))
    missing = next(
        f"{r}{s}" for r, s in itertools.product("A23456789JQK", "SHDC") if f"{r}{s}" not in held
    )
    check(ann, table, {"type": "discard", "card": missing}, "not_in_hand")
    check(
        ann,
        table,
        # A natural card: a bare joker would be refused first, as malformed.
        {"type": "layoff", "meld": 99, "cards": [natural(hand(state_of(table)))]},
        "unknown_meld",
    )

    # Three cards that make no meld.
    cards = hand(state_of(table))
    junk = next(
        list(c)
        for c in itertools.combinations(cards, 3)
        if "*" not in c
        and engine_code(state_of(table), "ann", {"type": "meld", "cards": list(c)})
        == "invalid_meld"
    )
    check(ann, table, {"type": "meld", "cards": junk}, "invalid_meld")

    # A meld on the table, then a card that does not fit it.
    users = players("cat", "dog")
    table = started_table(users, wanted=lambda s: _meld_after_draw(s, "cat"))
    post_action(users[0], table, DRAW)
    state = state_of(table)
    meld = next(a for a in legal_actions(state, "cat") if a.to_dict()["type"] == "meld")
    post_action(users[0], table, meld.to_dict())
    state = state_of(table)
    card = next(
        c
        for c in hand(state)
        if c != "*"
        and engine_code(state, "cat", {"type": "layoff", "meld": 1, "cards": [c]})
        == "invalid_layoff"
    )
    check(users[0], table, {"type": "layoff", "meld": 1, "cards": [card]}, "invalid_layoff")

    # Strict club: the top discard must be melded at once.
    users = players("fox", "gnu")
    take = {"type": "draw", "source": "discard", "count": 1}
    table = started_table(
        users,
        ruleset="strict-club",
        wanted=lambda s: engine_code(s, "fox", take) == "pickup_not_meldable",
    )
    check(users[0], table, take, "pickup_not_meldable")
    users = players("hen", "ibex")
    table = started_table(
        users, ruleset="strict-club", wanted=lambda s: engine_code(s, "hen", take) is None
    )
    post_action(users[0], table, take)
    state = state_of(table)
    other = next(c for c in hand(state) if c != format_card(state.required))
    check(users[0], table, {"type": "discard", "card": other}, "required_card_pending")

    # Going out without a discard where the rules want one.
    users = players("jay", "kit")
    overrides = {"hand_size_two": 2, "jokers_per_deck": 0}
    table = started_table(
        users,
        ruleset="strict-club",
        overrides=overrides,
        wanted=lambda s: _melds_everything(s, "jay"),
    )
    post_action(users[0], table, DRAW)
    check(users[0], table, {"type": "meld", "cards": hand(state_of(table))}, "must_keep_discard")

    # A finished game refuses everything.
    users = players("lem", "moa")
    table = started_table(users, overrides={"target": 1})
    play_greedy(table, users, until=lambda t: t.status != "playing")
    check(users[0], table, DRAW, "game_over")

    assert reached == set(ERROR_CODES)


def _meld_after_draw(state: GameState, player: str) -> bool:
    drawn = after(state, player, DRAW)
    return (
        any(a.to_dict()["type"] == "meld" for a in legal_actions(drawn, player))
        and len(drawn.players[0].hand) > 3
    )


def _melds_everything(state: GameState, player: str) -> bool:
    drawn = after(state, player, DRAW)
    cards = [format_card(c) for c in drawn.players[0].hand]
    return engine_code(drawn, player, {"type": "meld", "cards": cards}) == "must_keep_discard"


def test_bad_bodies_are_bad_requests() -> None:
    ann, bob = players("ann", "bob")
    table = started_table([ann, bob])
    url = f"/api/tables/{table.pk}/actions/"
    for body in (
        {},
        {"action": DRAW},
        {"action": DRAW, "version": "1"},
        {"action": DRAW, "version": 1, "client_id": 5},
    ):
        answer = client(ann).post(url, body, format="json")
        assert answer.status_code == 400 and answer.json()["error"] == "bad_request", body
    answer = client(ann).post(url, "{not json", content_type="application/json")
    assert answer.status_code == 400 and answer.json()["error"] == "bad_request"
    created = client(ann).post("/api/tables/", {"seats": 12}, format="json")
    assert created.status_code == 400 and created.json()["message"].startswith("seats")
    table.refresh_from_db()
    assert table.version == 1
