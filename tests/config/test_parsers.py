"""A REST body the server cannot read answers 400 ``bad_request`` in the API's JSON shape, never
a 500 or a page: nested too deeply (config.parsers), not JSON, not UTF-8, too large or with too
many fields (config.exceptions.refused_request), anonymous or signed in."""

from __future__ import annotations

import io
from typing import Any

import pytest
from django.conf import settings
from django.test import Client, override_settings
from rest_framework import exceptions
from rest_framework.authtoken.models import Token

from config.parsers import JSONParser
from tests.accounts.factories import UserFactory

pytestmark = pytest.mark.django_db

# The finding: 50,000 levels in 100 KB answered 500 with Django's debug page.
DEEP = b"[" * 50_000 + b"]" * 50_000
# Over DATA_UPLOAD_MAX_MEMORY_SIZE (2.5 MB), as JSON that would otherwise read well.
HUGE = b'{"username": "' + b"a" * 3_000_000 + b'"}'

ANONYMOUS_CALLS = ["/api/auth/register/", "/api/auth/token/"]
SIGNED_IN_CALLS = [
    ("post", "/api/tables/"),
    ("post", "/api/pools/join/"),
    ("put", "/api/notifications/settings/"),
    ("post", "/api/chat/mutes/"),
]


def signed_in() -> Client:
    token = Token.objects.create(user=UserFactory())
    return Client(HTTP_AUTHORIZATION=f"Token {token.key}")


def assert_bad_request(response: Any) -> dict[str, Any]:
    assert response.status_code == 400, response.content[:300]
    assert response["Content-Type"] == "application/json"
    body = response.json()
    assert body["error"] == "bad_request"
    return body


def test_the_parser_refuses_a_body_nested_past_the_recursion_limit() -> None:
    with pytest.raises(exceptions.ParseError, match="nested too deeply"):
        JSONParser().parse(io.BytesIO(DEEP), "application/json", {})


def test_the_parser_still_reads_what_drfs_read() -> None:
    body = b'{"n": 100000000000000000000, "s": "\\u00e9", "deep": [[[[1]]]]}'
    parsed = JSONParser().parse(io.BytesIO(body), "application/json", {})
    assert parsed == {"n": 10**20, "s": "é", "deep": [[[[1]]]]}


@pytest.mark.parametrize("debug", [False, True])
@pytest.mark.parametrize("url", ANONYMOUS_CALLS)
def test_a_deeply_nested_body_from_anyone_is_a_bad_request(url: str, debug: bool) -> None:
    with override_settings(DEBUG=debug):
        response = Client().post(url, DEEP, content_type="application/json")
    assert "nested too deeply" in assert_bad_request(response)["message"]


@pytest.mark.parametrize(("method", "url"), SIGNED_IN_CALLS)
def test_a_deeply_nested_body_from_a_player_is_a_bad_request(method: str, url: str) -> None:
    response = getattr(signed_in(), method)(url, DEEP, content_type="application/json")
    assert "nested too deeply" in assert_bad_request(response)["message"]


@pytest.mark.parametrize("debug", [False, True])
def test_a_body_over_the_upload_limit_is_a_bad_request(debug: bool) -> None:
    with override_settings(DEBUG=debug):
        anonymous = Client().post("/api/auth/register/", HUGE, content_type="application/json")
        player = signed_in().post("/api/tables/", HUGE, content_type="application/json")
    limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    for response in (anonymous, player):
        assert assert_bad_request(response)["message"] == f"the request body is over {limit} bytes"


def test_a_form_with_too_many_fields_is_a_bad_request() -> None:
    fields = "&".join(f"f{n}=x" for n in range(settings.DATA_UPLOAD_MAX_NUMBER_FIELDS + 1))
    response = Client().post(
        "/api/auth/register/", fields, content_type="application/x-www-form-urlencoded"
    )
    limit = settings.DATA_UPLOAD_MAX_NUMBER_FIELDS
    assert assert_bad_request(response)["message"] == f"the request has over {limit} fields"


@pytest.mark.parametrize("body", [b'{"username": ', b'{"username": "\xff\xfe"}', b"NaN"])
def test_a_body_that_is_not_json_is_a_bad_request(body: bytes) -> None:
    assert_bad_request(Client().post("/api/auth/token/", body, content_type="application/json"))
