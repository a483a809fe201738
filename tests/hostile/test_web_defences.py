"""The web defences, each at the layer that owns it: CSRF on every form and on session-
authenticated API writes, the WebSocket origin check on the real routes, the production
headers and cookies on a real response, log-in throttling (accounts.login_guard) and password
validation on both sign-up doors. docs/security.md lists them.

Tests elsewhere already cover: the sign-up and log-in forms' CSRF refusal and the log-in/out,
password change flows (tests/accounts/test_views.py), the origin check on a bare app
(tests/config/test_ws_auth.py), the production settings' values and ``check --deploy``
(tests/processes/test_settings.py), the REST ``auth`` throttle (tests/accounts/test_apis.py).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.db import connections
from django.test import Client
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from accounts.models import User
from config.asgi import application
from games import services as table_services
from games.models import Seat, Table
from tests.accounts.factories import PASSWORD, UserFactory
from tests.processes.test_settings import clean_env, run_python
from tests.tournaments.factories import FOUR, make_event, round_of, started_event
from tournaments.models import AuditEntry, Entry, Tournament
from tournaments.views import EVENT_CALLS

pytestmark = pytest.mark.django_db


def csrf_client(user: User | None = None) -> Client:
    client = Client(enforce_csrf_checks=True)
    if user is not None:
        client.force_login(user)
    return client


def form_token(client: Client, url: str) -> str:
    """The CSRF token of the first form on the page at ``url``, as a browser would send it."""
    html = client.get(url).content.decode()
    match = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', html)
    assert match, f"no CSRF token in a form at {url}"
    return match.group(1)


def counts() -> list[int]:
    """Rows a form post could add or change the number of."""
    models: list[Any] = [User, Table, Seat, Tournament, Entry, AuditEntry]
    return [model.objects.count() for model in models]


# --- CSRF on the forms ---------------------------------------------------------------------------


@pytest.fixture
def director() -> User:
    return UserFactory(username="director", is_staff=True)


@pytest.fixture
def running(director: User) -> Tournament:
    """A running Swiss of four, its first round planned and started."""
    return started_event(director, FOUR, format="swiss", name="Swiss night")


def form_urls(director: User, running: Tournament) -> list[str]:
    """Every URL a page's form posts to, with real ids."""
    table = table_services.table_create(creator=director, ruleset="standard", seats=4)
    first = round_of(running)
    round_table = first.tables.first()
    assert round_table is not None
    event = f"/events/{running.slug}/"
    return [
        "/accounts/login/",
        "/accounts/signup/",
        "/accounts/logout/",
        "/accounts/password/",
        "/admin/login/",
        "/tables/",
        *(f"/tables/{table.pk}/{call}/" for call in ("join", "leave", "start")),
        "/events/new/",
        *(f"{event}{action}/" for action in EVENT_CALLS),
        f"{event}tables/{round_table.pk}/result/",
        f"{event}tables/{round_table.pk}/adjudicate/",
        f"{event}rounds/{first.pk}/reseat/",
        f"{event}rounds/{first.pk}/start/",
    ]


def test_every_form_refuses_a_post_without_its_csrf_token(
    director: User, running: Tournament
) -> None:
    client = csrf_client(director)
    urls = form_urls(director, running)
    before = counts()
    answers = {url: client.post(url, {"text": "hello", "name": "x"}).status_code for url in urls}
    assert answers == dict.fromkeys(urls, 403)
    assert counts() == before
    assert client.get("/").context["user"] == director, "still logged in: logout refused too"


def test_forms_work_with_their_csrf_token(director: User) -> None:
    ann = UserFactory(username="ann")
    player, organizer = csrf_client(ann), csrf_client(director)
    lobby = {"ruleset": "standard", "seats": "2", "turn_seconds": "60"}
    lobby |= {"time_bank_seconds": "0", "rated": "on"}
    response = player.post(
        "/tables/", {**lobby, "csrfmiddlewaretoken": form_token(player, "/tables/")}
    )
    assert response.status_code == 302
    table = Seat.objects.get(user=ann).table
    event = make_event(director, name="Open night")
    page = event.get_absolute_url()
    token = form_token(organizer, page)
    organizer.post(f"{page}open-registration/", {"csrfmiddlewaretoken": token})
    organizer.post(f"{page}announce/", {"csrfmiddlewaretoken": token, "text": "Welcome"})
    player.post(f"{page}register/", {"csrfmiddlewaretoken": form_token(player, page)})
    event.refresh_from_db()
    assert event.status == "registration"
    assert Entry.objects.filter(tournament=event, user=ann).exists()
    assert "Welcome" in player.get(page).content.decode()
    bob = csrf_client(UserFactory(username="bob"))
    seat_page = f"/tables/{table.pk}/"
    bob.post(f"{seat_page}join/", {"csrfmiddlewaretoken": form_token(bob, seat_page)})
    table.refresh_from_db()
    assert table.status == "playing", "full with bob, the table started"


# --- CSRF on the API: sessions need it, tokens do not ---------------------------------------------

TABLE = {"ruleset": "standard", "seats": 2}


def test_a_session_authenticated_api_write_needs_the_csrf_token() -> None:
    UserFactory(username="ann")
    api = APIClient(enforce_csrf_checks=True)
    assert api.login(username="ann", password=PASSWORD)
    refused = api.post("/api/tables/", TABLE, format="json")
    assert refused.status_code == 403
    assert refused.json()["error"] == "forbidden"
    assert "CSRF" in refused.json()["message"]
    assert not Table.objects.exists()
    api.get("/tables/")  # a page sets the csrftoken cookie, as in a browser
    token = api.cookies["csrftoken"].value
    created = api.post("/api/tables/", TABLE, format="json", HTTP_X_CSRFTOKEN=token)
    assert created.status_code == 201


def test_a_token_authenticated_api_write_needs_no_csrf_token() -> None:
    key = Token.objects.create(user=UserFactory(username="ann")).key
    api = APIClient(enforce_csrf_checks=True)
    created = api.post("/api/tables/", TABLE, format="json", HTTP_AUTHORIZATION=f"Token {key}")
    assert created.status_code == 201


# --- the WebSocket origin check on the real routes ----------------------------------------------


async def handshake(path: str, origin: bytes) -> bool:
    """Whether the project's ASGI application accepts a socket at ``path`` from a page at
    ``origin``."""
    headers = [(b"host", b"localhost"), (b"origin", origin)]
    communicator = WebsocketCommunicator(application, path, headers=headers)
    connected, _ = await communicator.connect(timeout=10)
    await communicator.disconnect(timeout=10)
    return bool(connected)


@pytest.fixture
def socket_paths(director: User, running: Tournament) -> list[str]:
    table = round_of(running).tables.first()
    assert table is not None and table.table_id is not None
    return [f"/ws/tables/{table.table_id}/", f"/ws/events/{running.slug}/"]


@pytest.fixture
def _close_worker_connections() -> Iterator[None]:
    """The consumers' queries ran in a worker thread whose connection would outlive the test."""
    yield
    async_to_sync(database_sync_to_async(connections.close_all))()


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("_close_worker_connections", "no_timers")
async def test_a_socket_from_a_foreign_page_is_refused(socket_paths: list[str]) -> None:
    for path in socket_paths:
        assert await handshake(path, b"http://localhost") is True, path
        for origin in (b"https://evil.example", b"http://localhost.evil.example", b"null"):
            assert await handshake(path, origin) is False, (path, origin)


@pytest.fixture
def no_timers(monkeypatch: pytest.MonkeyPatch) -> None:
    """Turn timers of the event's tables stay out of the broker: no worker runs here."""
    monkeypatch.setattr("games.timers.send", lambda *args, **kwargs: None)


# --- production: headers and cookies on real responses ------------------------------------------

PRODUCTION_RESPONSES = """
import json
import django
django.setup()
from django.core.management import call_command
from django.test import Client, override_settings
call_command("migrate", verbosity=0)
from accounts.models import User
User.objects.create_user("ann", password="a sturdy passphrase 42")
# The hashed-name manifest is built by collectstatic in the image; pages here need none.
storages = {"staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}}
with override_settings(STORAGES=storages):
    browser = Client(HTTP_HOST="rummy.example.com")
    plain = browser.get("/accounts/login/")
    page = browser.get("/accounts/login/", secure=True)
    login = browser.post(
        "/accounts/login/", {"username": "ann", "password": "a sturdy passphrase 42"}, secure=True
    )
print(json.dumps({
    "plain": [plain.status_code, plain.get("Location")],
    "headers": dict(page.headers),
    "cookies": {name: page.cookies[name].output() for name in page.cookies}
    | {name: login.cookies[name].output() for name in login.cookies},
}))
"""


@pytest.fixture(scope="module")
def production(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A log-in page fetched over http and https, and a log-in, under the production settings
    in a fresh interpreter (their own SQLite file)."""
    tmp = tmp_path_factory.mktemp("production")
    env = clean_env(
        tmp,
        DJANGO_SETTINGS_MODULE="config.settings.production",
        DJANGO_SECRET_KEY="x7Qk2L9vR4pT8wZ1mN6bC3fH5jD0sG-aE_yU" * 2,
        DJANGO_ALLOWED_HOSTS="rummy.example.com",
        SQLITE_PATH=str(tmp / "db.sqlite3"),
    )
    result = run_python(PRODUCTION_RESPONSES, env)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_production_redirects_plain_http_to_https(production: dict[str, Any]) -> None:
    assert production["plain"] == [301, "https://rummy.example.com/accounts/login/"]


def test_production_sends_the_security_headers(production: dict[str, Any]) -> None:
    headers = production["headers"]
    hsts = headers["Strict-Transport-Security"]
    assert re.fullmatch(r"max-age=\d{8,}; includeSubDomains; preload", hsts), hsts
    assert headers["X-Content-Type-Options"] == "nosniff"
    assert headers["Referrer-Policy"] == "same-origin"
    assert headers["X-Frame-Options"] == "DENY"
    assert headers["Cross-Origin-Opener-Policy"] == "same-origin"
    policy = dict(
        part.strip().split(" ", 1) for part in headers["Content-Security-Policy"].split(";")
    )
    assert policy["default-src"] == "'self'"
    # A nonce appears only on pages that use it (the API docs); nothing inline is ever allowed.
    assert policy["script-src"].split()[0] == "'self'"
    assert "unsafe" not in headers["Content-Security-Policy"]
    assert policy["frame-ancestors"] == "'none'"
    assert policy["object-src"] == "'none'"


@pytest.mark.parametrize("name", ["csrftoken", "sessionid"])
def test_production_cookies_are_secure_and_same_site(production: dict[str, Any], name: str) -> None:
    cookie = production["cookies"][name]
    assert "Secure" in cookie
    assert "SameSite=Lax" in cookie
    assert "HttpOnly" in cookie  # no script reads either


# --- password validation on both sign-up doors ---------------------------------------------------

WEAK = {
    "short": ("margaret", "Xq7#kp", "too short"),
    "common": ("margaret", "password123", "too common"),
    "numeric": ("margaret", "80417239561", "entirely numeric"),
    "like-username": ("margaretha", "margaretha1", "too similar to the username"),
}


@pytest.mark.parametrize("kind", list(WEAK))
def test_the_signup_page_names_the_weak_password(kind: str) -> None:
    username, password, reason = WEAK[kind]
    client = csrf_client()
    form = {"username": username, "email": f"{username}@example.com"}
    form |= {"password1": password, "password2": password}
    form["csrfmiddlewaretoken"] = form_token(client, "/accounts/signup/")
    response = client.post("/accounts/signup/", form)
    assert response.status_code == 200
    errors = response.context["form"].errors["password2"]
    assert any(reason in error for error in errors), errors
    assert not User.objects.exists()


@pytest.mark.parametrize("kind", list(WEAK))
def test_the_register_call_names_the_weak_password(kind: str) -> None:
    username, password, reason = WEAK[kind]
    body = {"username": username, "password": password}
    response = APIClient().post("/api/auth/register/", body, format="json")
    assert response.status_code == 400
    assert response.json()["error"] == "weak_password"
    assert reason in response.json()["message"]
    assert any(reason in error for error in response.json()["fields"]["password"])
    assert not User.objects.exists()
