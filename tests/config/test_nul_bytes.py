"""config.nul_bytes: a NUL byte in a path or query string is refused before any view reads it.

Before the middleware each of these URLs answered 500 on PostgreSQL ("PostgreSQL text fields
cannot contain NUL (0x00) bytes"): schemathesis found the first (tests/hostile/).
"""

import pytest
from django.test import Client

from tests.accounts.factories import UserFactory

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    "url",
    [
        "/api/events/?club=%00",
        "/api/leaderboard/?club=a%00",
        "/api/leaderboard/?around=a%00",
        "/api/leaderboard/?ruleset=%00",
        "/api/players/ann/?ruleset=%00",
    ],
)
def test_a_nul_in_an_api_query_is_a_json_400(url: str) -> None:
    response = Client().get(url)
    assert response.status_code == 400
    assert response.json()["error"] == "bad_request"


def test_a_nul_in_an_api_path_names_nothing() -> None:
    UserFactory(username="ann")
    response = Client().get("/api/players/ann%00/")
    assert response.status_code == 404
    assert response.json() == {"error": "not_found", "message": "No such resource."}
    assert Client().get("/api/players/ann/").status_code == 200


@pytest.mark.parametrize("url", ["/events/?club=%00", "/leaderboard/?club=%00", "/tables/?q=%00"])
def test_a_nul_in_a_page_query_is_a_400(url: str) -> None:
    assert Client().get(url).status_code == 400


def test_a_nul_in_a_page_path_is_a_404() -> None:
    UserFactory(username="ann")
    assert Client().get("/players/ann%00/").status_code == 404
    assert Client().get("/players/ann/").status_code == 200


@pytest.mark.parametrize("query", ["club=%2500", "club=0", "club=+x+"])
def test_a_query_without_nul_goes_through(query: str) -> None:
    """``%2500`` is the text "%00", not a NUL byte."""
    assert Client().get(f"/api/events/?{query}").status_code == 200
