"""config.error_pages: the errors Django answers itself. Under /api/ each is JSON in the API's
error shape and a missing page is the site's 404 page, with DEBUG off (``make run``) as on
(``make dev``); with DEBUG off every error page is the site's own (templates/4xx.html, 500.html).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from asgiref.testing import ApplicationCommunicator
from django.template.loader import render_to_string
from django.test import Client, override_settings

from config.asgi import application
from tests.accounts.factories import UserFactory
from tests.config.broken_urls import FAULT

pytestmark = pytest.mark.django_db

BROKEN_URLS = "tests.config.broken_urls"
# What Django's debug pages show and no visitor may read.
DEBUG_MARKS = ("URLconf", "Django tried these URL patterns", "Traceback", FAULT, "SECRET_KEY")


@pytest.fixture(params=[False, True], ids=["debug-off", "debug-on"])
def debug(request: pytest.FixtureRequest) -> Iterator[bool]:
    with override_settings(DEBUG=request.param, ROOT_URLCONF=BROKEN_URLS):
        yield request.param


def client(**headers: Any) -> Client:
    return Client(raise_request_exception=False, **headers)


def api_error(response: Any, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.content[:300]
    assert response["Content-Type"] == "application/json"
    body = response.json()
    assert body["error"] == code
    assert not any(mark in body["message"] for mark in DEBUG_MARKS)
    return body


def site_page(response: Any, status: int, title: str) -> str:
    assert response.status_code == status
    assert response["Content-Type"].startswith("text/html")
    html = response.content.decode()
    assert 'class="site-header"' in html and "site.css" in html, "not in the site's look"
    assert f"<h1>{title}</h1>" in html
    assert not [mark for mark in DEBUG_MARKS if mark in html]
    return html


@pytest.mark.parametrize(
    "url",
    ["/api/nope", "/api/nothing-here/", "/api/tables/seven/", "/api/events/not%20a%20slug/"],
)
def test_an_unrouted_api_path_answers_json(debug: bool, url: str) -> None:
    body = api_error(client().get(url), 404, "not_found")
    assert body == {"error": "not_found", "message": "No such API resource."}


@pytest.mark.parametrize("url", ["/no-such-page/", "/events/no-such-event/"])
def test_a_missing_page_is_the_sites_404_page(debug: bool, url: str) -> None:
    site_page(client().get(url), 404, "Page not found")


def test_an_api_call_that_fails_answers_json_without_the_fault(debug: bool) -> None:
    for url in ("/api/broken/", "/api/broken-plain/"):
        api_error(client().get(url), 500, "server_error")


@override_settings(ROOT_URLCONF=BROKEN_URLS)
def test_a_page_that_fails_is_the_sites_500_page() -> None:
    site_page(client().get("/broken/"), 500, "Something went wrong")


def test_the_500_page_needs_no_request_nor_context() -> None:
    assert "<h1>Something went wrong</h1>" in render_to_string("500.html")


def test_a_refused_host_answers_400(debug: bool) -> None:
    api_error(client(HTTP_HOST="evil.example").get("/api/rulesets/"), 400, "bad_request")
    if not debug:  # with debug on, Django's page names the setting to change
        site_page(client(HTTP_HOST="evil.example").get("/"), 400, "Bad request")


def test_a_refused_page_is_the_sites_403_page() -> None:
    with override_settings(ROOT_URLCONF=BROKEN_URLS):
        site_page(client().get("/forbidden/"), 403, "Not allowed")


def test_a_form_without_its_csrf_token_is_the_sites_page(debug: bool) -> None:
    response = Client(enforce_csrf_checks=True).post("/accounts/login/", {"username": "x"})
    site_page(response, 403, "Form refused")


def test_a_session_write_without_its_csrf_token_answers_json(debug: bool) -> None:
    session = Client(enforce_csrf_checks=True)
    session.force_login(UserFactory())
    body = {"ruleset": "standard", "seats": 2}
    response = session.post("/api/tables/", body, content_type="application/json")
    assert "CSRF" in api_error(response, 403, "forbidden")["message"]


def test_a_method_not_allowed_answers_json(debug: bool) -> None:
    response = client().get("/api/auth/register/")
    api_error(response, 405, "method_not_allowed")
    assert "POST" in response["Allow"]


@override_settings(DEBUG=True)
def test_an_error_before_the_view_answers_json() -> None:
    """With DEBUG on Django refuses a POST to a route without its slash (it cannot redirect a
    body) with a RuntimeError, before any view: the debug page becomes the API's 500."""
    response = client().post("/api/tables", {}, content_type="application/json")
    api_error(response, 500, "server_error")


async def asgi_get(path: str, query: bytes) -> tuple[int, dict[str, str], bytes]:
    """A raw ASGI GET through the whole application, as a server hands on a client's bytes."""
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": query,
        "root_path": "",
        "headers": [(b"host", b"localhost")],
        "client": ("127.0.0.1", 5000),
        "server": ("127.0.0.1", 8000),
    }
    communicator = ApplicationCommunicator(application, scope)
    await communicator.send_input({"type": "http.request", "body": b"", "more_body": False})
    start = await communicator.receive_output(5)
    body = await communicator.receive_output(5)
    headers = {k.decode().lower(): v.decode() for k, v in start["headers"]}
    return start["status"], headers, body["body"]


@pytest.mark.parametrize("debug", [True, False])
async def test_a_query_string_that_is_not_utf8_is_refused_in_json_under_the_api(
    debug: bool,
) -> None:
    """Django refuses it before any middleware (an empty 400): config.error_pages.Handler
    answers in the API's shape under /api/, and a page stays a bare 400, no traceback."""
    with override_settings(DEBUG=debug):
        status, headers, body = await asgi_get("/api/tables/", b"status=\xff")
        assert status == 400 and headers["content-type"] == "application/json"
        assert json.loads(body)["error"] == "bad_request"
        status, _, body = await asgi_get("/lobby/", b"\xff")
        assert status == 400 and b"Traceback" not in body
