"""The authorization matrix: every REST call, page, form and socket call, for every role.

``MATRIX`` below is the rule, readable as documentation (``docs/security.md`` sums it up): one
row per call, what each role gets. Each (row, role) pair is a test of its own; a refusal must
change nothing (every row of the service's tables compared before and after, see
``authz_world.snapshot``), a hidden object answers 404 ``not_found``, and answers that carry a
table's view or an event's organizer tools carry them only for whom they belong to.
``test_every_endpoint_has_a_row`` fails for a REST operation (from the OpenAPI schema), a URL
route, an event form action or a socket route without a row, so a new endpoint needs one.

The objects are built once for the module in an outer transaction (rolled back at the end);
each test runs in a savepoint of it. Sockets run their database calls in the test's thread
(``_same_thread``), so they see the module's objects and roll back with the test.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import pytest
from django.conf import settings
from django.contrib import admin
from django.contrib.messages import constants, get_messages
from django.db import transaction
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, resolve, reverse
from drf_spectacular.generators import SchemaGenerator

from config.routing import websocket_urlpatterns
from tests.accounts.factories import UserFactory
from tests.hostile import authz_rows as b
from tests.hostile import authz_sockets
from tests.hostile.authz_rows import GROUPS, Row, row
from tests.hostile.authz_world import ROLES, World, build, snapshot
from tournaments.services import event_create
from tournaments.views import EVENT_CALLS

_ORG = {"anon": 401, "player": 403, "outsiders": 403, "organizers": 200}  # an organizer call
_HIDDEN = {"anon": 404, "player": 404, "outsiders": 404, "organizers": 200}  # a draft's read
_FORM = {"anon": "login", "player": "refused", "outsiders": "refused", "organizers": "done"}
_ADMIN = {"anon": "login", "player": "login", "outsiders": "login", "host": "login"}

QUICK = {"ruleset": "standard", "seats": 2, "turn_seconds": 30}

MATRIX: list[Row] = [
    # --- accounts ---
    row("POST /api/auth/register/", b.register, everyone=201),
    row("POST /api/auth/token/", b.credentials, anon=401, logged=200),
    row("GET /api/auth/me/", anon=401, logged=200),
    # Each revokes the caller's own token (rolled back after the row, as every row's change is).
    row("DELETE /api/auth/token/", anon=401, logged=204),
    # --- rule sets, ratings: public ---
    row("GET /api/rulesets/", everyone=200),
    row("GET /api/rulesets/standard/", everyone=200),
    row("GET /api/leaderboard/", everyone=200),
    row("GET /api/players/ann/", everyone=200),
    # --- tables ---
    row("GET /api/tables/?status=playing", private="view", everyone=200),
    row("POST /api/tables/", b.fixed(ruleset="standard", seats=2), anon=401, logged=201),
    row("GET /api/tables/{t_event}/", private="view", everyone=200),
    row("GET /api/tables/{t_event}/log/", private="view", everyone=200),
    row("GET /api/tables/{t_event}/moves/", private="view", everyone=200),
    row("GET /api/tables/{t_event}/replay/", everyone=409),  # in play: no replay yet
    row("POST /api/tables/{t_waiting}/join/", anon=401, logged=200),
    row("POST /api/tables/{t_club}/join/", anon=401, player=200, host=200, logged=403),
    row("POST /api/tables/{t_event}/join/", anon=401, player=200, logged=409),
    row("POST /api/tables/{t_waiting}/leave/", anon=401, player=200, logged=400),
    row("POST /api/tables/{t_waiting}/start/", anon=401, player=200, logged=403),
    row("POST /api/tables/{t_event}/actions/", b.move, anon=401, player=200, logged=400),
    row("POST /api/tables/{t_event}/back/", anon=401, player=200, logged=400),
    row("POST /api/tables/{t_finished}/rematch/", b.rematch, anon=401, player=200, logged=400),
    row("POST /api/tables/{t_event}/rematch/", b.rematch, anon=401, logged=400),
    row("POST /api/tables/{t_event}/pause/", **_ORG),
    row("POST /api/tables/{t_paused}/resume/", **_ORG),
    row("POST /api/tables/{t_casual}/pause/", **_ORG, host=403),
    # --- quick play (lobby): ann is seated at tables not over, so she may not join ---
    row("GET /api/pools/", everyone=200),
    row("GET /api/pools/me/", anon=401, logged=200),
    row("POST /api/pools/join/", b.fixed(**QUICK), anon=401, logged=202, player=409),
    row("DELETE /api/pools/join/", anon=401, logged=204),
    # --- events: reads (a draft is its organizers' alone) ---
    row("GET /api/events/", everyone=200),
    row("GET /api/events/{running}/", everyone=200),
    row("GET /api/events/{draft}/", **_HIDDEN),
    row("GET /api/events/{draft}/standings/", **_HIDDEN),
    row("GET /api/events/{draft}/rounds/", **_HIDDEN),
    row("GET /api/events/{draft}/entries/", **_HIDDEN),
    row("GET /api/events/{draft}/bracket/", **_HIDDEN),
    row("GET /api/events/{draft}/announcements/", **_HIDDEN),
    row("GET /api/events/{draft}/seeding/", **_HIDDEN),
    row("GET /api/events/{check_in}/seeding/", everyone=200),
    # --- events: a player's calls ---
    row("POST /api/events/{registration}/register/", anon=401, logged=200),
    row("POST /api/events/{registration}/withdraw/", anon=401, player=200, logged=400),
    row("POST /api/events/{check_in}/check-in/", anon=401, player=200, logged=400),
    # --- events: the organizers' calls ---
    row(
        "POST /api/events/",
        b.fixed(name="New night", format="swiss", club="hearts"),
        anon=401,
        logged=403,
        host=201,
        staff=201,
        root=201,
    ),
    row("POST /api/events/{draft}/open-registration/", **{**_HIDDEN, "anon": 401}),
    row("POST /api/events/{registration}/open-check-in/", **_ORG),
    row("POST /api/events/{registration}/close/", **_ORG),
    row("POST /api/events/{check_in}/start/", **_ORG),
    row("POST /api/events/{running}/pause/", **_ORG),
    row("POST /api/events/{paused}/resume/", **_ORG),
    row("POST /api/events/{registration}/cancel/", b.fixed(reason="matrix"), **_ORG),
    row("POST /api/events/{running}/announce/", b.fixed(text="Hi"), **{**_ORG, "organizers": 201}),
    row("POST /api/events/{running}/entries/{entry}/withdraw/", b.fixed(reason="m"), **_ORG),
    row("POST /api/events/{running}/entries/{entry}/disqualify/", b.fixed(reason="m"), **_ORG),
    row("POST /api/events/{running}/tables/{decide}/adjudicate/", b.places, **_ORG),
    row("POST /api/events/{face}/tables/{face_table}/result/", b.hands, **_ORG),
    row("POST /api/events/{face}/tables/{stuck_table}/retry/", **_ORG),
    row("POST /api/events/{waiting}/rounds/{round}/reseat/", b.reseat, **_ORG),
    row("POST /api/events/{waiting}/rounds/{round}/start/", **_ORG),
    row("POST /api/events/{check_in}/seeding/", b.seed_order, **_ORG),
    # ... and this event's objects named under another club's event: never reached.
    row("POST /api/events/{spades}/tables/{decide}/adjudicate/", b.places, anon=401, logged=404),
    row(
        "POST /api/events/{spades}/tables/{face_table}/result/",
        b.hands,
        anon=401,
        logged=403,
        rival=404,
        staff=404,
        root=404,
    ),
    row(
        "POST /api/events/{spades}/entries/{entry}/withdraw/",
        b.fixed(reason="m"),
        anon=401,
        logged=403,
        rival=404,
        staff=404,
        root=404,
    ),
    row(
        "POST /api/events/{spades}/rounds/{round}/start/",
        anon=401,
        logged=403,
        rival=404,
        staff=404,
        root=404,
    ),
    # --- notifications (docs/notifications.md): everyone's own, signed in only ---
    row("GET /api/notifications/", anon=401, logged=200),
    row("POST /api/notifications/read/", b.fixed(all=True), anon=401, logged=200),
    row("GET /api/notifications/settings/", anon=401, logged=200),
    row(
        "PUT /api/notifications/settings/",
        b.fixed(email={"rematch_offer": False}),
        anon=401,
        logged=200,
    ),
    # --- chat (docs/chat.md): ann plays at t_event, hugo organizes its event ---
    row("GET /api/chat/rooms/table:{t_event}:players/messages/", everyone=200),
    row("GET /api/chat/rooms/table:{t_event}:spectators/messages/", everyone=200, player=403),
    row(
        "POST /api/chat/rooms/table:{t_event}:players/messages/",
        b.say,
        anon=401,
        logged=403,
        player=201,
    ),
    row(
        "POST /api/chat/rooms/table:{t_event}:spectators/messages/",
        b.say,
        anon=401,
        logged=201,
        player=403,
    ),
    row("PUT /api/chat/rooms/table:{t_event}:players/", b.fixed(enabled=False), **_ORG),
    row("DELETE /api/chat/messages/{chat_message}/", **{**_ORG, "organizers": 204}),
    row("GET /api/chat/rooms/event:{draft_id}/messages/", **_HIDDEN),
    row("POST /api/chat/rooms/event:{running_id}/messages/", b.say, anon=401, logged=201),
    row("PUT /api/chat/rooms/event:{running_id}/", b.fixed(enabled=False), **_ORG),
    row("GET /api/chat/mutes/", anon=401, logged=200),
    row("POST /api/chat/mutes/", b.fixed(user="bob"), anon=401, logged=200),
    row("DELETE /api/chat/mutes/bob/", anon=401, logged=200),
    # --- pages ---
    row("GET /", everyone=200),
    row("GET /healthz", everyone=200),
    # For the monitoring system alone (a token or an allowed network, neither set here).
    row("GET /metrics", everyone=404),
    row("GET /api/schema/", everyone=200),
    row("GET /api/docs/", everyone=200),
    row("GET /accounts/signup/", everyone=200),
    row("GET /accounts/login/", everyone=200),
    row("POST /accounts/logout/", everyone=302),
    row("GET /accounts/password/", anon="login", logged=200),
    row("GET /accounts/password/done/", anon="login", logged=200),
    row("GET /rules/", everyone=200),
    row("GET /rules/standard/", everyone=200),
    row("GET /leaderboard/", everyone=200),
    row("GET /leaderboard.csv", everyone=200),
    row("GET /players/ann/", everyone=200),
    row("GET /tables/", everyone=200),
    row("GET /notifications/", anon="login", logged=200),
    row("GET /notifications/settings/", anon="login", logged=200),
    row("POST /notifications/read/", anon="login", logged="same"),  # nobody has notices here
    row(
        "POST /tables/",
        b.fixed(ruleset="standard", seats=2, turn_seconds=60),
        anon="login",
        logged="done",
    ),
    row("GET /tables/{t_event}/", private="view manage", everyone=200),
    row("GET /tables/{t_casual}/", private="manage", everyone=200),
    row("GET /tables/{t_event}/replay/", everyone=200),  # in play: "no replay yet"
    row("POST /tables/{t_waiting}/join/", anon="login", player="same", logged="done"),
    row("POST /tables/{t_waiting}/leave/", anon="login", player="done", logged="refused"),
    row("POST /tables/{t_waiting}/start/", anon="login", player="done", logged="refused"),
    row("GET /events/", private="drafts", everyone=200),
    row("GET /events/new/", anon="login", logged="refused", rival=200, organizers=200),
    row(
        "POST /events/new/",
        b.event_form,
        anon="login",
        logged="refused",
        rival="invalid",
        organizers="done",
    ),
    row("GET /events/{running}/", private="tools", everyone=200),
    row("GET /events/{running}/live/", private="tools", everyone=200),
    row("GET /events/{draft}/", private="tools", **_HIDDEN),
    row("GET /events/{draft}/live/", **_HIDDEN),
    row("GET /events/{draft}/standings.csv", **_HIDDEN),
    row("GET /events/{draft}/results.csv", **_HIDDEN),
    # --- the event page's forms ---
    row("POST /events/{registration}/register/", anon="login", player="same", logged="done"),
    row("POST /events/{registration}/withdraw/", anon="login", player="done", logged="refused"),
    row("POST /events/{check_in}/check-in/", anon="login", player="done", logged="refused"),
    row("POST /events/{draft}/open-registration/", **{**_HIDDEN, "organizers": "done"}),
    row("POST /events/{registration}/open-check-in/", **_FORM),
    row("POST /events/{registration}/close/", **_FORM),
    row("POST /events/{check_in}/start/", **_FORM),
    row("POST /events/{running}/pause/", **_FORM),
    row("POST /events/{paused}/resume/", **_FORM),
    row("POST /events/{registration}/cancel/", b.fixed(reason="matrix"), **_FORM),
    row("POST /events/{running}/announce/", b.fixed(text="Hi"), **_FORM),
    row(
        "POST /events/{running}/remove-player/",
        b.fixed(entry="{entry}", reason="m", action="disqualify"),
        **_FORM,
    ),
    row("POST /events/{running}/tables/{decide}/adjudicate/", b.place_fields, **_FORM),
    row("POST /events/{face}/tables/{face_table}/result/", b.hands_text, **_FORM),
    row("POST /events/{face}/tables/{stuck_table}/retry/", **_FORM),
    row("POST /events/{waiting}/rounds/{round}/reseat/", b.reseat_text, **_FORM),
    row("POST /events/{waiting}/rounds/{round}/start/", **_FORM),
    row("POST /events/{check_in}/seed/", b.seed_move, **_FORM),
    # --- the Django admin: staff only; model pages need the model's permission ---
    row("GET /admin/", **_ADMIN, staff=200, root=200),
    row("GET /admin/games/table/{t_event}/change/", private="view", **_ADMIN, staff=403, root=200),
    row(
        "GET /admin/games/tableevent/{start_row}/change/",
        private="view",
        **_ADMIN,
        staff=403,
        root=200,
    ),
    # --- sockets ---
    row("WS /ws/tables/{t_event}/ connect", private="view", everyone="accept"),
    row("WS /ws/tables/{t_event}/ sync", private="view", everyone="accept"),
    row("WS /ws/tables/{t_event}/ action", everyone="not_seated", player="done"),
    row("WS /ws/tables/{t_event}/ back", everyone="not_seated", player="quiet"),
    row("WS /ws/tables/{t_event}/ rematch", everyone="not_seated", player="wrong_phase"),
    row("WS /ws/events/{running}/ connect", everyone="accept"),
    row("WS /ws/lobby/ connect", everyone="accept"),
    row("WS /ws/me/ connect", anon="closed 4401", logged="accept"),
    row("WS /ws/events/{running}/ sync", everyone="accept"),
    row("WS /ws/events/{running}/ action", everyone="bad_request"),
    row(
        "WS /ws/events/{draft}/ connect",
        everyone="closed",
        host="accept",
        staff="accept",
        root="accept",
    ),
]
# Every model page of the admin: staff only (and the model's permission, which root has).
MATRIX += [
    row(f"GET /admin/{m._meta.app_label}/{m._meta.model_name}/", **_ADMIN, staff=403, root=200)
    for m in admin.site._registry
]


@pytest.fixture(scope="module")
def world(django_db_setup: None, django_db_blocker: Any) -> Iterator[World]:
    """The objects of every row, built once in a transaction rolled back after the module."""
    with django_db_blocker.unblock():
        outer = transaction.atomic()
        outer.__enter__()
        try:
            yield build()
        finally:
            transaction.set_rollback(True)
            outer.__exit__(None, None, None)


def _cases() -> list[Any]:
    return [pytest.param(r, role, id=f"{r.call} [{role}]") for r in MATRIX for role in ROLES]


@pytest.mark.django_db
@pytest.mark.parametrize(("entry", "role"), _cases())
def test_matrix(world: World, entry: Row, role: str, settings: Any) -> None:
    expected = entry.expect[role]
    if entry.kind == "ws":
        authz_sockets.check(world, entry, role, expected, settings)
        return
    response = _request(world, entry, role)
    # Refusals and forms (whose outcome is what changed) are compared with the world as built;
    # a read changes nothing by construction.
    compared = isinstance(expected, str) or expected >= 400
    changed = compared and entry.method != "GET" and snapshot() != world.baseline
    _judge(response, expected, changed)
    if entry.private and response.status_code == 200:
        _private(entry.private, response, role, world)


def _request(world: World, entry: Row, role: str) -> Any:
    client = Client()
    name = ROLES[role]
    headers: dict[str, str] = {}
    if name is not None and entry.kind == "api":
        headers["Authorization"] = f"Token {world.tokens[name]}"
    elif name is not None:
        client.cookies[settings.SESSION_COOKIE_NAME] = world.sessions[name]
    path = entry.path(world)
    body = entry.body(world, role) if entry.body else {}
    if entry.method == "GET":
        return client.get(path, headers=headers)
    if entry.method == "DELETE":
        return client.delete(path, headers=headers)
    if entry.kind == "api":
        data = json.dumps(body)
        return client.generic(entry.method, path, data, "application/json", headers=headers)
    filled = {k: str(v).format(**b.params(world)) for k, v in body.items()}
    return client.post(path, filled, headers=headers)


def _judge(response: Any, expected: Any, changed: bool) -> None:
    status = response.status_code
    if isinstance(expected, int):
        assert status == expected, _said(response)
        if status >= 400:
            assert not changed, "a refused call changed something"
        if status == 404 and response.get("Content-Type", "").startswith("application/json"):
            assert response.json()["error"] == "not_found", _said(response)
        return
    if expected == "invalid":
        assert status == 200 and not changed, _said(response)
        return
    assert status == 302, _said(response)
    if expected == "login":
        assert "login" in response["Location"] and not changed, response["Location"]
        return
    levels = [m.level for m in get_messages(response.wsgi_request)]
    refused = constants.ERROR in levels
    assert (refused, changed) == {
        "done": (False, True),
        "same": (False, False),
        "refused": (True, False),
    }[expected], (levels, changed)


def _said(response: Any) -> str:
    return f"{response.status_code}: {response.content[:300]!r}"


def _private(what: str, response: Any, role: str, world: World) -> None:
    """What only some may see: ``view`` (a table's views show each viewer their own hand alone;
    an answer without a view, no hidden card at all), ``tools`` (an event's organizer tools and
    audit log), ``drafts`` (a draft in the events list), ``manage`` (a table page's pause and
    resume, for whoever may pause that table)."""
    text = response.content.decode()
    organizer = role in GROUPS["organizers"]
    kinds = what.split()
    if "drafts" in kinds:
        assert (world.events["draft"].name in text) == organizer
    if "tools" in kinds:
        assert ('id="organizer"' in text) == organizer
        assert ('id="audit"' in text) == organizer
    if "manage" in kinds:
        event = resolve(response.wsgi_request.path).kwargs["table_id"] == world.tables["event"].pk
        managers = GROUPS["organizers"] if event else ("staff", "root")
        assert ('data-manage="true"' in text) == (role in managers)
    if "view" in kinds:
        views = _views(response, text)
        for view in views:
            authz_sockets.check_view(view, ROLES[role])
        if not views:
            authz_sockets.check_page(text, world)


def _views(response: Any, text: str) -> list[dict[str, Any]]:
    """The table views an answer carries: a table's, each listed table's, the page's own."""
    if response.get("Content-Type", "").startswith("application/json"):
        answer = response.json()
        answers = answer if isinstance(answer, list) else [answer]
        return [a["view"] for a in answers if isinstance(a, dict) and a.get("view")]
    found = re.search(r'<script id="table-data" type="application/json">(.*?)</script>', text)
    return [json.loads(found.group(1))["view"]] if found else []


@pytest.mark.django_db
def test_a_draft_is_listed_to_whoever_may_open_it(world: World) -> None:
    """Its creator once saw a draft listed after they stopped being an organizer (a club admin
    no longer, say), though its page was a 404 to them: the list now asks what the page asks."""
    former = UserFactory(username="exa")
    draft = event_create(created_by=former, name="Orphan night", format="swiss", club="hearts")
    client = Client()
    client.force_login(former)
    assert draft.name not in client.get("/events/").content.decode()
    assert client.get(draft.get_absolute_url()).status_code == 404


# --- every endpoint has a row --------------------------------------------------------------------


def _pattern(route: str) -> str:
    """``api/events/<slug:slug>/`` and ``/api/events/{slug}/`` both as ``api/events/{slug}/``."""
    return re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", route).lstrip("/")


def _routes(patterns: list[Any], prefix: str = "") -> Iterator[str]:
    for p in patterns:
        if isinstance(p, URLResolver):
            if p.app_name == "admin":
                continue  # its model pages are rows of their own, one per registered model
            yield from _routes(p.url_patterns, prefix + str(p.pattern))
        elif isinstance(p, URLPattern):
            yield _pattern(prefix + str(p.pattern))


def _covered(world: World) -> set[tuple[str, str]]:
    covered = set()
    for entry in MATRIX:
        if entry.kind == "ws":
            continue
        path = entry.path(world).split("?")[0]
        covered.add((entry.method, _pattern(resolve(path).route)))
    return covered


@pytest.mark.django_db
def test_every_endpoint_has_a_row(world: World) -> None:
    covered = _covered(world)
    schema = SchemaGenerator().get_schema(request=None, public=True)
    operations = {
        (method.upper(), _pattern(path))
        for path, item in schema["paths"].items()
        for method in item
    }
    assert operations - covered == set(), "REST operations without a matrix row"
    routes = set(_routes(get_resolver().url_patterns))
    assert routes - {route for _, route in covered} == set(), "URL routes without a row"
    forms = {r.template.rsplit("/", 2)[-2] for r in MATRIX if r.template.startswith("/events/{")}
    assert set(EVENT_CALLS) - forms == set(), "event page forms without a row"
    sockets = {_pattern(str(p.pattern)) for p in websocket_urlpatterns}
    socket_rows = {_pattern(resolve_ws(r)) for r in MATRIX if r.kind == "ws"}
    assert sockets - socket_rows == set(), "socket routes without a row"
    assert reverse("admin:index") == "/admin/"


def resolve_ws(entry: Row) -> str:
    """The socket route a ``WS`` row's path matches."""
    path = entry.template.split(" ")[0].lstrip("/")
    for pattern in websocket_urlpatterns:
        generic = re.sub(r"\{\w+\}", "1", path)
        if pattern.pattern.match(generic):
            return str(pattern.pattern)
    raise AssertionError(f"no socket route for {entry.call}")
