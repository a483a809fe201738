"""Every documented JSON answer has exactly the keys its OpenAPI schema gives, both ways, down
to nested objects and list items (issue 15: the answers and the schema had drifted apart).

Each operation of the schema with a 2xx JSON answer has a case here that calls the real
endpoint against ``payload_world``'s data, so the answers are whole: lists not empty, nullable
parts present. A new operation without a case fails ``test_every_operation_has_a_case``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
import yaml
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.models import User
from games.engine.legal import legal_actions
from games.models import FinalizerFailure
from tests.accounts.factories import PASSWORD, UserFactory
from tests.config.payload_world import World, build_world
from tests.config.schema_keys import Keys
from tests.games.tables import state_of, to_move
from tests.tournaments.factories import names_at, round_of
from tournaments.models import Tournament

pytestmark = pytest.mark.django_db

Case = Callable[[World], Any]
#: Operation id -> its call, run in this order (later cases build on earlier ones).
CASES: dict[str, Case] = {}


def case(operation_id: str) -> Callable[[Case], Case]:
    def register(call: Case) -> Case:
        CASES[operation_id] = call
        return call

    return register


def api(user: User | str | None = None) -> APIClient:
    client = APIClient()
    if user is not None:
        client.force_authenticate(World.user(user) if isinstance(user, str) else user)
    return client


def the_schema() -> dict[str, Any]:
    return yaml.safe_load(Client().get("/api/schema/").content)


def json_answers(schema: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Operation id -> its documented 2xx JSON answers by status code."""
    found: dict[str, dict[str, Any]] = {}
    for operations in schema["paths"].values():
        for operation in operations.values():
            answers = {
                code: answer["content"]["application/json"]["schema"]
                for code, answer in operation["responses"].items()
                if code.startswith("2") and "application/json" in answer.get("content", {})
            }
            if answers:
                found[operation["operationId"]] = answers
    return found


# --- Accounts, rule sets, ratings -------------------------------------------------------------


@case("auth_register")
def _register(w: World) -> Any:
    body = {"username": "kim", "password": PASSWORD, "email": "kim@example.com"}
    return api().post("/api/auth/register/", body, format="json")


@case("auth_token")
def _token(w: World) -> Any:
    return api().post("/api/auth/token/", {"username": "ann", "password": PASSWORD}, format="json")


@case("auth_me")
def _me(w: World) -> Any:
    return api("ann").get("/api/auth/me/")


@case("rulesets_list")
def _rulesets(w: World) -> Any:
    return api().get("/api/rulesets/")


@case("rulesets_retrieve")
def _ruleset(w: World) -> Any:
    return api().get("/api/rulesets/standard/")


@case("leaderboard")
def _leaderboard(w: World) -> Any:
    return api().get("/api/leaderboard/")


@case("player")
def _player(w: World) -> Any:
    return api().get("/api/players/ann/")


# --- Tables -----------------------------------------------------------------------------------


@case("tables_list")
def _tables(w: World) -> Any:
    return api().get("/api/tables/?status=playing")


@case("tables_create")
def _table_create(w: World) -> Any:
    body = {"ruleset": "standard", "seats": 2, "club": "hearts", "time_bank_seconds": 30}
    return api("ann").post("/api/tables/", body, format="json")


@case("tables_get")
def _table(w: World) -> Any:
    return api("ann").get(f"/api/tables/{w.playing.pk}/")


@case("tables_join")
def _join(w: World) -> Any:
    return api("fay").post(f"/api/tables/{w.waiting.pk}/join/")


@case("tables_leave")
def _leave(w: World) -> Any:
    return api("fay").post(f"/api/tables/{w.waiting.pk}/leave/")


@case("tables_start")
def _start(w: World) -> Any:
    api("gus").post(f"/api/tables/{w.waiting.pk}/join/")
    return api("eve").post(f"/api/tables/{w.waiting.pk}/start/")


@case("tables_action")
def _action(w: World) -> Any:
    users = [World.user("ann"), World.user("bob")]
    mover = to_move(w.playing, users)
    action = legal_actions(state_of(w.playing), mover.username)[0].to_dict()
    body = {"action": action, "version": w.playing.version, "client_id": "payload-test"}
    return api(mover).post(f"/api/tables/{w.playing.pk}/actions/", body, format="json")


@case("tables_pause")
def _pause(w: World) -> Any:
    return api(w.director).post(f"/api/tables/{w.playing.pk}/pause/")


@case("tables_resume")
def _resume(w: World) -> Any:
    return api(w.director).post(f"/api/tables/{w.playing.pk}/resume/")


@case("tables_back")
def _back(w: World) -> Any:
    return api("ann").post(f"/api/tables/{w.playing.pk}/back/")


@case("tables_rematch")
def _rematch(w: World) -> Any:
    return api("ann").post(f"/api/tables/{w.rated.pk}/rematch/", {"accept": True}, format="json")


@case("tables_log")
def _log(w: World) -> Any:
    return api().get(f"/api/tables/{w.logged.pk}/log/")


@case("tables_moves")
def _moves(w: World) -> Any:
    return api("hal").get(f"/api/tables/{w.logged.pk}/moves/")


@case("tables_replay")
def _replay(w: World) -> Any:
    return api().get(f"/api/tables/{w.logged.pk}/replay/")


# --- A running event's reads and its organizers' calls ----------------------------------------


def event_url(event: Tournament, rest: str = "") -> str:
    return f"/api/events/{event.slug}/{rest}"


@case("events_list")
def _events(w: World) -> Any:
    return api().get("/api/events/?status=running")


@case("events_get")
def _event(w: World) -> Any:
    return api("ann").get(event_url(w.elimination))


@case("events_standings")
def _standings(w: World) -> Any:
    return api().get(event_url(w.elimination, "standings/"))


@case("events_rounds")
def _rounds(w: World) -> Any:
    return api().get(event_url(w.elimination, "rounds/"))


@case("events_entries")
def _entries(w: World) -> Any:
    return api().get(event_url(w.elimination, "entries/"))


@case("events_bracket")
def _bracket(w: World) -> Any:
    return api().get(event_url(w.elimination, "bracket/"))


@case("events_announce")
def _announce(w: World) -> Any:
    body = {"text": "The final starts at nine."}
    return api(w.director).post(event_url(w.elimination, "announce/"), body, format="json")


@case("events_announcements")
def _announcements(w: World) -> Any:
    return api().get(event_url(w.elimination, "announcements/"))


@case("events_pause")
def _event_pause(w: World) -> Any:
    return api(w.director).post(event_url(w.elimination, "pause/"))


@case("events_resume")
def _event_resume(w: World) -> Any:
    return api(w.director).post(event_url(w.elimination, "resume/"))


def knocked_out(event: Tournament) -> list[int]:
    event.refresh_from_db()
    return [row["entry"] for row in event.standings if row["eliminated"]]


@case("events_entry_withdraw")
def _entry_withdraw(w: World) -> Any:
    entry = knocked_out(w.elimination)[0]
    body = {"reason": "asked to leave"}
    return api(w.director).post(
        event_url(w.elimination, f"entries/{entry}/withdraw/"), body, format="json"
    )


@case("events_entry_disqualify")
def _entry_disqualify(w: World) -> Any:
    entry = knocked_out(w.elimination)[1]
    body = {"reason": "rude"}
    return api(w.director).post(
        event_url(w.elimination, f"entries/{entry}/disqualify/"), body, format="json"
    )


@case("events_table_adjudicate")
def _adjudicate(w: World) -> Any:
    final = round_of(w.elimination, 2).tables.get()
    first, second = names_at(final)
    body = {"places": {first: 1, second: 2}, "reason": "out of time"}
    url = event_url(w.elimination, f"tables/{final.pk}/adjudicate/")
    return api(w.director).post(url, body, format="json")


@case("events_table_result")
def _result(w: World) -> Any:
    table = round_of(w.face_to_face).tables.get()
    first, second = names_at(table)
    hands = [{first: {"table": 60, "hand": 0}, second: {"table": 15, "hand": 40}}]
    url = event_url(w.face_to_face, f"tables/{table.pk}/result/")
    return api(w.director).post(url, {"hands": hands}, format="json")


@case("events_table_retry")
def _retry(w: World) -> Any:
    """The table entered just above, its event's finalization given up as a failing hook's is."""
    table = round_of(w.face_to_face).tables.get()
    FinalizerFailure.objects.create(
        table=table.table, hook="tournaments", attempts=5, error="gone", failed_at=timezone.now()
    )
    url = event_url(w.face_to_face, f"tables/{table.pk}/retry/")
    return api(w.director).post(url)


@case("events_round_reseat")
def _reseat(w: World) -> Any:
    first = round_of(w.waiting_swiss)
    seating = [t.players for t in first.tables.order_by("index")]
    body = {"tables": list(reversed(seating))}
    url = event_url(w.waiting_swiss, f"rounds/{first.pk}/reseat/")
    return api(w.director).post(url, body, format="json")


@case("events_round_start")
def _round_start(w: World) -> Any:
    first = round_of(w.waiting_swiss)
    return api(w.director).post(event_url(w.waiting_swiss, f"rounds/{first.pk}/start/"))


# --- Quick play (lobby) -----------------------------------------------------------------------

QUICK = {"ruleset": "standard", "seats": 2, "turn_seconds": 30}


@case("pools_join")
def _pools_join(w: World) -> Any:
    UserFactory(username="quin")
    return api("quin").post("/api/pools/join/", QUICK, format="json")


@case("pools_me")
def _pools_me(w: World) -> Any:
    return api("quin").get("/api/pools/me/")


@case("pools_leave")
def _pools_leave(w: World) -> Any:
    UserFactory(username="rex")
    api("rex").post("/api/pools/join/", QUICK, format="json")  # seated with quin
    return api("quin").delete("/api/pools/join/")  # 200: the match came first


@case("pools_list")
def _pools_list(w: World) -> Any:
    return api().get("/api/pools/")


# --- An event's life, made through the API ----------------------------------------------------


def spring() -> Tournament:
    return Tournament.objects.get(name="Spring cup")


@case("events_create")
def _create(w: World) -> Any:
    body = {"name": "Spring cup", "format": "single_elimination", "overrides": {"target": 50}}
    return api(w.director).post("/api/events/", {**body, "club": "hearts"}, format="json")


@case("events_open_registration")
def _open_registration(w: World) -> Any:
    return api(w.director).post(event_url(spring(), "open-registration/"))


@case("events_register")
def _register_for(w: World) -> Any:
    for name in ("lou", "max"):
        api(name).post(event_url(spring(), "register/"))
    return api("kai").post(event_url(spring(), "register/"))


@case("events_withdraw")
def _withdraw(w: World) -> Any:
    return api("max").post(event_url(spring(), "withdraw/"))


@case("events_seeding")
def _seeding(w: World) -> Any:
    return api().get(event_url(spring(), "seeding/"))


@case("events_seeding_set")
def _seeding_set(w: World) -> Any:
    order = [row["entry"] for row in api().get(event_url(spring(), "seeding/")).json()]
    body = {"order": order[::-1]}
    return api(w.director).post(event_url(spring(), "seeding/"), body, format="json")


@case("events_open_check_in")
def _open_check_in(w: World) -> Any:
    return api(w.director).post(event_url(spring(), "open-check-in/"))


@case("events_check_in")
def _check_in(w: World) -> Any:
    api("lou").post(event_url(spring(), "check-in/"))
    return api("kai").post(event_url(spring(), "check-in/"))


@case("events_close")
def _close(w: World) -> Any:
    return api(w.director).post(event_url(spring(), "close/"))


@case("events_start")
def _event_start(w: World) -> Any:
    return api(w.director).post(event_url(spring(), "start/"))


@case("events_cancel")
def _cancel(w: World) -> Any:
    body = {"reason": "the hall is flooded"}
    return api(w.director).post(event_url(spring(), "cancel/"), body, format="json")


# --- Notifications (the world's event and rematch made some) ----------------------------------


@case("notifications_list")
def _notifications(w: World) -> Any:
    return api("bob").get("/api/notifications/?limit=5")


@case("notifications_read")
def _notifications_read(w: World) -> Any:
    return api("bob").post("/api/notifications/read/", {"all": True}, format="json")


@case("notifications_settings")
def _notifications_settings(w: World) -> Any:
    return api("bob").get("/api/notifications/settings/")


@case("notifications_settings_update")
def _notifications_settings_update(w: World) -> Any:
    body = {"email": {"rematch_offer": False}}
    return api("bob").put("/api/notifications/settings/", body, format="json")


# --- The tests --------------------------------------------------------------------------------


# --- Chat ---------------------------------------------------------------------------------------


def _players_room(w: World) -> str:
    return f"/api/chat/rooms/table:{w.playing.pk}:players/"


@case("chat_post")
def _chat_post(w: World) -> Any:
    return api("ann").post(_players_room(w) + "messages/", {"text": "gl hf"}, format="json")


@case("chat_history")
def _chat_history(w: World) -> Any:
    return api().get(_players_room(w) + "messages/")


@case("chat_room_switch")
def _chat_switch(w: World) -> Any:
    room = f"/api/chat/rooms/event:{w.elimination.pk}/"
    return api(w.director).put(room, {"enabled": True}, format="json")


@case("chat_mute")
def _chat_mute(w: World) -> Any:
    return api("cid").post("/api/chat/mutes/", {"user": "bob"}, format="json")


@case("chat_mutes")
def _chat_mutes(w: World) -> Any:
    return api("cid").get("/api/chat/mutes/")


@case("chat_unmute")
def _chat_unmute(w: World) -> Any:
    return api("cid").delete("/api/chat/mutes/bob/")


def test_every_operation_has_a_case() -> None:
    documented = set(json_answers(the_schema()))
    assert len(documented) >= 40, "the schema lost operations"
    assert documented - CASES.keys() == set(), "operations with no case here"
    assert CASES.keys() - documented == set(), "cases of operations the schema lacks"


def test_every_answer_has_exactly_its_documented_keys() -> None:
    schema = the_schema()
    answers = json_answers(schema)
    keys = Keys(schema["components"]["schemas"])
    world = build_world()
    for operation_id, call in CASES.items():
        response = call(world)
        code = str(response.status_code)
        if code in answers[operation_id]:
            keys.check(response.json(), answers[operation_id][code], operation_id)
        else:
            keys.problems.append(f"{operation_id}: answered {code} {response.content!r}")
    problems = keys.problems + keys.never_shown()
    assert not problems, "\n".join(problems)


def test_the_check_finds_a_key_either_side_lacks() -> None:
    """The check itself: an undocumented key, a missing one, deep in a list, and a null."""
    components = {
        "Row": {
            "type": "object",
            "properties": {"n": {"type": "integer"}, "s": {"type": "string"}},
            "required": ["n", "s"],
        }
    }
    schema = {"type": "array", "items": {"$ref": "#/components/schemas/Row"}}
    keys = Keys(components)
    keys.check([{"n": 1, "s": "a"}, {"n": 2, "extra": True}, {"n": None, "s": "c"}], schema, "op")
    assert keys.problems == [
        "op[1] (Row): the answer has 'extra', which the schema lacks",
        "op[1] (Row): the schema requires 's', which the answer lacks",
        "op[2].n: null, which the schema does not allow",
    ]
    assert keys.never_shown() == []
