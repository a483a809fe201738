"""The auth calls of PROTOCOL.md: register and token, with every refusal."""

from typing import Any

import pytest
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient
from rest_framework.throttling import ScopedRateThrottle

from accounts.models import User
from tests.accounts.factories import PASSWORD, UserFactory

pytestmark = pytest.mark.django_db

REGISTER = "/api/auth/register/"
TOKEN = "/api/auth/token/"
ME = "/api/auth/me/"
GOOD = {"username": "ann", "password": "a sturdy passphrase 42", "email": "ann@example.com"}


@pytest.fixture
def api() -> APIClient:
    return APIClient()


def post(api: APIClient, url: str, body: dict[str, Any]) -> Any:
    return api.post(url, body, format="json")


def test_register_creates_user_and_returns_token(api: APIClient) -> None:
    response = post(api, REGISTER, GOOD)
    assert response.status_code == 201
    body = response.json()
    assert set(body) == {"id", "username", "token"}
    user = User.objects.get(pk=body["id"])
    assert (user.username, user.email) == ("ann", "ann@example.com")
    assert user.check_password(GOOD["password"])
    assert Token.objects.get(user=user).key == body["token"]


def test_register_token_works_in_the_authorization_header(api: APIClient) -> None:
    body = post(api, REGISTER, GOOD).json()
    api.credentials(HTTP_AUTHORIZATION=f"Token {body['token']}")
    response = api.get(ME)
    assert response.status_code == 200
    assert response.json() == {"id": body["id"], "username": "ann", "email": "ann@example.com"}


def test_token_from_the_token_call_works_in_the_authorization_header(api: APIClient) -> None:
    user = UserFactory()
    key = post(api, TOKEN, {"username": user.username, "password": PASSWORD}).json()["token"]
    assert api.get(ME, HTTP_AUTHORIZATION=f"Token {key}").json()["username"] == user.username


def test_session_login_authenticates_too(api: APIClient) -> None:
    user = UserFactory()
    api.force_login(user)
    assert api.get(ME).json()["id"] == user.pk


@pytest.mark.parametrize(
    ("header", "message"),
    [
        (None, "Authentication credentials were not provided."),
        ("Token not-a-real-token", "Invalid token."),
        ("Token", "Invalid token header. No credentials provided."),
        ("Bearer abc", "Authentication credentials were not provided."),
    ],
    ids=["none", "unknown-key", "no-key", "other-scheme"],
)
def test_authenticated_call_refuses_missing_or_bad_token(
    api: APIClient, header: str | None, message: str
) -> None:
    if header:
        api.credentials(HTTP_AUTHORIZATION=header)
    response = api.get(ME)
    assert response.status_code == 401
    assert response["WWW-Authenticate"] == "Token"
    assert response.json() == {"error": "not_authenticated", "message": message}


def test_token_of_a_deactivated_user_is_refused(api: APIClient) -> None:
    key = post(api, REGISTER, GOOD).json()["token"]
    User.objects.filter(username="ann").update(is_active=False)
    response = api.get(ME, HTTP_AUTHORIZATION=f"Token {key}")
    assert response.status_code == 401
    assert response.json()["error"] == "not_authenticated"


@pytest.mark.parametrize("username", ["ann", "ANN", "Ann"])
def test_register_refuses_taken_username_in_any_case(api: APIClient, username: str) -> None:
    UserFactory(username="ann")
    response = post(api, REGISTER, {**GOOD, "username": username})
    assert response.status_code == 409
    assert response.json() == {"error": "username_taken", "message": "That username is taken."}
    assert User.objects.count() == 1


@pytest.mark.parametrize(
    "password",
    ["short", "12345678901", "password123", "ann@example.com"],
    ids=["too-short", "numeric", "common", "like-email"],
)
def test_register_refuses_weak_password(api: APIClient, password: str) -> None:
    response = post(api, REGISTER, {**GOOD, "password": password})
    assert response.status_code == 400
    body = response.json()
    assert body["error"] == "weak_password"
    assert body["message"]
    assert not User.objects.exists()


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"username": ""}, "username"),
        ({"username": "no spaces"}, "username"),
        ({"email": "not-an-email"}, "email"),
        ({"password": ""}, "password"),
    ],
)
def test_register_refuses_malformed_fields(
    api: APIClient, change: dict[str, str], field: str
) -> None:
    response = post(api, REGISTER, {**GOOD, **change})
    assert response.status_code == 400
    body = response.json()
    assert body["error"] == "bad_request"
    assert field in body["fields"]
    assert body["message"].startswith(f"{field}: ")


@pytest.mark.parametrize("missing", ["username", "password"])
def test_register_refuses_missing_field(api: APIClient, missing: str) -> None:
    body = {key: value for key, value in GOOD.items() if key != missing}
    response = post(api, REGISTER, body)
    assert response.status_code == 400
    assert response.json() == {
        "error": "bad_request",
        "message": f"{missing}: This field is required.",
        "fields": {missing: ["This field is required."]},
    }


@pytest.mark.parametrize(
    "email", [{}, {"email": ""}, {"email": None}], ids=["left-out", "blank", "null"]
)
def test_register_email_is_optional(api: APIClient, email: dict[str, Any]) -> None:
    body = {"username": "ann", "password": GOOD["password"], **email}
    response = post(api, REGISTER, body)
    assert response.status_code == 201, response.json()
    assert set(response.json()) == {"id", "username", "token"}
    assert User.objects.get(username="ann").email == ""


def test_register_refuses_a_too_long_username(api: APIClient) -> None:
    response = post(api, REGISTER, {**GOOD, "username": "a" * 151})
    assert response.status_code == 400
    assert "username" in response.json()["fields"]


def test_register_and_token_accept_form_encoded_bodies(api: APIClient) -> None:
    response = api.post(REGISTER, GOOD)  # APIClient's default is multipart
    assert response.status_code == 201, response.json()
    form = "username=ann&password=a+sturdy+passphrase+42"
    response = api.post(TOKEN, form, content_type="application/x-www-form-urlencoded")
    assert response.status_code == 200
    assert response.json() == {"token": Token.objects.get(user__username="ann").key}


def test_form_encoded_errors_are_json_too(api: APIClient) -> None:
    response = api.post(
        REGISTER, "username=bob&password=x", content_type="application/x-www-form-urlencoded"
    )
    assert response.status_code == 400
    assert response.json()["error"] == "weak_password"


def test_register_refuses_other_media_types(api: APIClient) -> None:
    response = api.post(REGISTER, "username: ann", content_type="text/plain")
    assert response.status_code == 415
    assert response.json()["error"] == "unsupported_media_type"


def test_register_refuses_invalid_json(api: APIClient) -> None:
    response = api.post(REGISTER, "{not json", content_type="application/json")
    assert response.status_code == 400
    assert response.json()["error"] == "bad_request"


def test_register_needs_no_csrf_token_even_with_a_session() -> None:
    user = UserFactory()
    api = APIClient(enforce_csrf_checks=True)
    api.force_login(user)
    assert post(api, REGISTER, GOOD).status_code == 201


def test_token_returns_the_users_token(api: APIClient) -> None:
    user = UserFactory()
    response = post(api, TOKEN, {"username": user.username, "password": PASSWORD})
    assert response.status_code == 200
    assert response.json() == {"token": Token.objects.get(user=user).key}
    # Asking again gives the same token, not a new one.
    again = post(api, TOKEN, {"username": user.username, "password": PASSWORD})
    assert again.json() == response.json()


def test_token_after_register_is_the_registered_token(api: APIClient) -> None:
    registered = post(api, REGISTER, GOOD).json()["token"]
    body = {"username": "ann", "password": GOOD["password"]}
    assert post(api, TOKEN, body).json() == {"token": registered}


@pytest.mark.parametrize(
    "credentials",
    [
        {"username": "player-x", "password": "wrong password"},
        {"username": "nobody", "password": PASSWORD},
    ],
    ids=["wrong-password", "unknown-user"],
)
def test_token_refuses_wrong_credentials(api: APIClient, credentials: dict[str, str]) -> None:
    UserFactory(username="player-x")
    response = post(api, TOKEN, credentials)
    assert response.status_code == 401
    assert response["WWW-Authenticate"] == "Token"
    assert response.json() == {
        "error": "invalid_credentials",
        "message": "Unknown username or wrong password.",
    }
    assert not Token.objects.exists()


def test_token_refuses_inactive_user(api: APIClient) -> None:
    user = UserFactory(is_active=False)
    response = post(api, TOKEN, {"username": user.username, "password": PASSWORD})
    assert response.status_code == 401
    assert response.json()["error"] == "invalid_credentials"


def test_token_refuses_missing_password(api: APIClient) -> None:
    response = post(api, TOKEN, {"username": "ann"})
    assert response.status_code == 400
    assert response.json()["fields"] == {"password": ["This field is required."]}


@pytest.mark.parametrize("url", [REGISTER, TOKEN])
def test_auth_calls_accept_post_only(api: APIClient, url: str) -> None:
    response = api.get(url)
    assert response.status_code == 405
    assert response.json()["error"] == "method_not_allowed"


def test_auth_calls_are_throttled(api: APIClient, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ScopedRateThrottle, "THROTTLE_RATES", {"auth": "3/min"})
    wrong = {"username": "ann", "password": "wrong"}
    # Register and token share the scope: guessing passwords through either counts.
    assert post(api, REGISTER, GOOD).status_code == 201
    assert post(api, TOKEN, wrong).status_code == 401
    assert post(api, TOKEN, wrong).status_code == 401
    response = post(api, TOKEN, {"username": "ann", "password": GOOD["password"]})
    assert response.status_code == 429
    body = response.json()
    assert body["error"] == "throttled"
    assert 0 < body["retry_after"] <= 60
    assert int(response["Retry-After"]) == body["retry_after"]


def test_throttling_ignores_a_client_supplied_forwarded_for(
    api: APIClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A client cannot escape the limit by sending a different X-Forwarded-For each time."""
    monkeypatch.setattr(ScopedRateThrottle, "THROTTLE_RATES", {"auth": "2/min"})
    wrong = {"username": "ann", "password": "wrong"}
    statuses = [
        api.post(TOKEN, wrong, format="json", HTTP_X_FORWARDED_FOR=f"10.0.0.{n}").status_code
        for n in range(3)
    ]
    assert statuses == [401, 401, 429]


def test_throttling_counts_each_client_address_apart(
    api: APIClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(ScopedRateThrottle, "THROTTLE_RATES", {"auth": "1/min"})
    wrong = {"username": "ann", "password": "wrong"}
    assert api.post(TOKEN, wrong, format="json", REMOTE_ADDR="10.0.0.1").status_code == 401
    assert api.post(TOKEN, wrong, format="json", REMOTE_ADDR="10.0.0.1").status_code == 429
    assert api.post(TOKEN, wrong, format="json", REMOTE_ADDR="10.0.0.2").status_code == 401


# --- revoking a token (issue 20, item 4) ----------------------------------------------------------


def test_delete_revokes_the_callers_token_and_the_next_post_hands_out_a_new_one(
    api: APIClient,
) -> None:
    user = UserFactory()
    old = post(api, TOKEN, {"username": user.username, "password": PASSWORD}).json()["token"]
    api.credentials(HTTP_AUTHORIZATION=f"Token {old}")
    response = api.delete(TOKEN)
    assert response.status_code == 204 and response.content == b""
    assert api.get(ME).status_code == 401  # the revoked token opens nothing
    assert api.delete(TOKEN).status_code == 401  # nor can it be revoked twice
    api.credentials()
    new = post(api, TOKEN, {"username": user.username, "password": PASSWORD}).json()["token"]
    assert new != old and api.get(ME, HTTP_AUTHORIZATION=f"Token {new}").status_code == 200


def test_delete_revokes_only_the_callers_token(api: APIClient) -> None:
    ann, bob = UserFactory(), UserFactory()
    bobs = Token.objects.create(user=bob)
    api.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=ann).key}")
    assert api.delete(TOKEN).status_code == 204
    assert Token.objects.filter(user=ann).count() == 0
    assert Token.objects.get(user=bob) == bobs


def test_delete_without_credentials_is_refused(api: APIClient) -> None:
    response = api.delete(TOKEN)
    assert response.status_code == 401
    assert response.json()["error"] == "not_authenticated"


def test_a_browser_session_revokes_its_token_with_its_csrf_token_only() -> None:
    user = UserFactory()
    Token.objects.create(user=user)
    api = APIClient(enforce_csrf_checks=True)
    api.force_login(user)
    assert api.delete(TOKEN).status_code == 403  # a cross-site request cannot revoke it
    assert Token.objects.filter(user=user).exists()


def test_the_token_call_still_needs_no_session_or_csrf(api: APIClient) -> None:
    user = UserFactory()
    browser = APIClient(enforce_csrf_checks=True)
    browser.force_login(user)
    body = {"username": user.username, "password": PASSWORD}
    assert post(browser, TOKEN, body).status_code == 200


@pytest.mark.parametrize("how", ["set_password", "the password page", "the admin"])
def test_a_password_change_revokes_the_accounts_token(how: str) -> None:
    user = UserFactory()
    key = Token.objects.create(user=user).key
    client = APIClient()
    if how == "set_password":
        user.set_password("another sturdy passphrase 77")
        user.save()
    elif how == "the password page":
        client.force_login(user)
        page = client.post(
            "/accounts/password/",
            {
                "old_password": PASSWORD,
                "new_password1": "another sturdy passphrase 77",
                "new_password2": "another sturdy passphrase 77",
            },
        )
        assert page.status_code == 302
        client.logout()
    else:
        admin = UserFactory(is_staff=True, is_superuser=True)
        client.force_login(admin)
        page = client.post(
            f"/admin/accounts/user/{user.pk}/password/",
            {
                "password1": "another sturdy passphrase 77",
                "password2": "another sturdy passphrase 77",
            },
        )
        assert page.status_code == 302
        client.logout()
    assert not Token.objects.filter(user=user).exists()
    assert client.get(ME, HTTP_AUTHORIZATION=f"Token {key}").status_code == 401


def test_saving_an_account_without_a_new_password_keeps_its_token() -> None:
    user = UserFactory()
    token = Token.objects.create(user=user)
    user.email = "new@example.com"
    user.save()
    assert Token.objects.get(user=user) == token
