"""The home page, the API docs and the static files behind them."""

import pytest
from django.test import Client

from tests.accounts.factories import UserFactory

pytestmark = pytest.mark.django_db


def test_home_says_what_the_service_is_and_links_everywhere() -> None:
    response = Client().get("/")
    assert response.status_code == 200
    html = response.content.decode()
    assert "Rummy 500" in html
    assert "ratings" in html
    for link in ("/accounts/signup/", "/accounts/login/", "/api/docs/", "/admin/"):
        assert f'href="{link}"' in html


def test_home_greets_a_logged_in_player() -> None:
    client = Client()
    client.force_login(UserFactory(username="carol"))
    html = client.get("/").content.decode()
    assert "carol" in html
    assert 'href="/accounts/signup/"' not in html
    assert 'action="/accounts/logout/"' in html


def test_static_files_are_served_by_whitenoise() -> None:
    response = Client().get("/static/css/site.css")
    assert response.status_code == 200
    assert b"".join(response.streaming_content).startswith(b"body")  # type: ignore[attr-defined]
