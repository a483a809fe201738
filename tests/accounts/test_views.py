"""Account pages: sign-up, log-in, log-out and password change, all CSRF-protected."""

import re

import pytest
from django.test import Client

from accounts.models import User
from tests.accounts.factories import PASSWORD, UserFactory

pytestmark = pytest.mark.django_db

NEW_PASSWORD = "another sturdy passphrase 7"


def csrf_client() -> Client:
    return Client(enforce_csrf_checks=True)


def csrf_token(client: Client, url: str) -> str:
    """Fetch `url` as a browser would and return the form's CSRF token."""
    html = client.get(url).content.decode()
    match = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', html)
    assert match, f"no CSRF token in the form at {url}"
    return match.group(1)


@pytest.mark.parametrize("url", ["/accounts/signup/", "/accounts/login/"], ids=["signup", "login"])
def test_forms_refuse_posts_without_csrf_token(url: str) -> None:
    response = csrf_client().post(url, {"username": "x", "password": "y"})
    assert response.status_code == 403


def test_signup_creates_account_and_logs_in() -> None:
    client = csrf_client()
    token = csrf_token(client, "/accounts/signup/")
    response = client.post(
        "/accounts/signup/",
        {
            "csrfmiddlewaretoken": token,
            "username": "bob",
            "email": "bob@example.com",
            "password1": NEW_PASSWORD,
            "password2": NEW_PASSWORD,
        },
    )
    assert response.status_code == 302
    assert response["Location"] == "/"
    user = User.objects.get(username="bob")
    assert user.email == "bob@example.com"
    assert client.get("/").context["user"] == user


def test_signup_shows_weak_password_errors() -> None:
    client = Client()
    response = client.post(
        "/accounts/signup/",
        {"username": "bob", "email": "bob@example.com", "password1": "123", "password2": "123"},
    )
    assert response.status_code == 200
    assert "This password is too short" in response.content.decode()
    assert not User.objects.exists()


def test_login_and_logout() -> None:
    user = UserFactory()
    client = csrf_client()
    token = csrf_token(client, "/accounts/login/")
    response = client.post(
        "/accounts/login/",
        {"csrfmiddlewaretoken": token, "username": user.username, "password": PASSWORD},
    )
    assert response.status_code == 302
    home = client.get("/")
    assert home.context["user"] == user
    logout_token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', home.content.decode())
    assert logout_token
    response = client.post("/accounts/logout/", {"csrfmiddlewaretoken": logout_token.group(1)})
    assert response.status_code == 302
    assert not client.get("/").context["user"].is_authenticated


def test_login_refuses_wrong_password() -> None:
    user = UserFactory()
    response = Client().post("/accounts/login/", {"username": user.username, "password": "wrong"})
    assert response.status_code == 200
    assert "Please enter a correct username and password" in response.content.decode()


def test_logout_refuses_get() -> None:
    client = Client()
    client.force_login(UserFactory())
    assert client.get("/accounts/logout/").status_code == 405


def test_password_change_requires_login() -> None:
    response = Client().get("/accounts/password/")
    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/")


def test_password_change() -> None:
    user = UserFactory()
    client = csrf_client()
    client.force_login(user)
    token = csrf_token(client, "/accounts/password/")
    response = client.post(
        "/accounts/password/",
        {
            "csrfmiddlewaretoken": token,
            "old_password": PASSWORD,
            "new_password1": NEW_PASSWORD,
            "new_password2": NEW_PASSWORD,
        },
    )
    assert response.status_code == 302
    assert response["Location"] == "/accounts/password/done/"
    user.refresh_from_db()
    assert user.check_password(NEW_PASSWORD)
    assert "Password changed" in client.get(response["Location"]).content.decode()
