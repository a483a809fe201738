"""One key for a username everywhere (accounts.usernames): registration on the page, through the
API and in the admin refuses a name that is taken in another spelling or looks like a taken one,
and log-ins find an account by any spelling of its key."""

from __future__ import annotations

from typing import Any

import pytest
from django.apps import apps
from django.test import Client
from rest_framework.test import APIClient

from accounts.models import User
from accounts.services import UsernameTaken
from tests.accounts.factories import PASSWORD, UserFactory

pytestmark = pytest.mark.django_db

NEW_PASSWORD = "a-long-unusual-passphrase-42"
FULLWIDTH_ADMIN = "\uff41\uff44\uff4d\uff49\uff4e"  # admin in fullwidth letters
CYRILLIC_ADMIN = "\u0430dmin"  # a Cyrillic a (U+0430), then Latin "dmin"
TAKEN = "That username is taken."
LOOKALIKE = UsernameTaken.LOOKALIKE

# Django's sign-up form says "already exists" itself for a name equal up to case (after NFKC).
EXISTS = "A user with that username already exists."
SPELLINGS = [
    pytest.param(FULLWIDTH_ADMIN, TAKEN, EXISTS, id="fullwidth"),
    pytest.param("ADMIN", TAKEN, EXISTS, id="upper-case"),
    pytest.param(CYRILLIC_ADMIN, LOOKALIKE, LOOKALIKE, id="cyrillic-a"),
    pytest.param("adm1n", None, None, id="a-different-name"),
]


@pytest.fixture(autouse=True)
def admin_account() -> Any:
    return UserFactory(username="admin")


@pytest.fixture
def boss() -> Client:
    """A superuser's admin session (pytest-django's ``admin_client`` is named ``admin``)."""
    client = Client()
    client.force_login(UserFactory(username="boss", is_staff=True, is_superuser=True))
    return client


@pytest.mark.parametrize(("username", "refusal", "page_refusal"), SPELLINGS)
def test_the_api_refuses_another_spelling_or_a_lookalike(
    username: str, refusal: str | None, page_refusal: str | None
) -> None:
    body = {"username": username, "password": NEW_PASSWORD, "email": ""}
    response = APIClient().post("/api/auth/register/", body, format="json")
    if refusal is None:
        assert response.status_code == 201
        return
    assert response.status_code == 409
    assert response.json() == {"error": "username_taken", "message": refusal}
    assert User.objects.count() == 1


@pytest.mark.parametrize(("username", "refusal", "page_refusal"), SPELLINGS)
def test_the_sign_up_page_refuses_another_spelling_or_a_lookalike(
    username: str, refusal: str | None, page_refusal: str | None
) -> None:
    response = Client().post(
        "/accounts/signup/",
        {"username": username, "email": "", "password1": NEW_PASSWORD, "password2": NEW_PASSWORD},
    )
    if page_refusal is None:
        assert response.status_code == 302
        return
    assert response.status_code == 200
    assert response.context["form"].errors["username"] == [page_refusal]
    assert User.objects.count() == 1


def test_the_admin_refuses_a_lookalike_when_adding_a_user(boss: Client) -> None:
    response = boss.post(
        "/admin/accounts/user/add/",
        {
            "username": CYRILLIC_ADMIN,
            "usable_password": "true",
            "password1": NEW_PASSWORD,
            "password2": NEW_PASSWORD,
        },
    )
    assert response.status_code == 200
    assert response.context["adminform"].form.errors["username"] == [LOOKALIKE]


def test_the_admin_refuses_renaming_to_another_spelling(boss: Client) -> None:
    bob = UserFactory(username="bob")
    response = boss.get(f"/admin/accounts/user/{bob.pk}/change/")
    data = {**response.context["adminform"].form.initial, "username": "ADMIN"}
    skip = {"groups", "user_permissions"}
    data = {k: v for k, v in data.items() if v is not None and k not in skip}
    data["date_joined_0"], data["date_joined_1"] = "2030-01-01", "12:00:00"
    response = boss.post(f"/admin/accounts/user/{bob.pk}/change/", data)
    assert response.status_code == 200
    assert response.context["adminform"].form.errors["username"] == [TAKEN]
    bob.refresh_from_db()
    assert bob.username == "bob"


def test_the_api_stores_a_name_in_nfkc() -> None:
    body = {"username": "\uff4ebody", "password": NEW_PASSWORD}  # a fullwidth n
    response = APIClient().post("/api/auth/register/", body, format="json")
    assert response.status_code == 201
    assert response.json()["username"] == "nbody"


@pytest.mark.parametrize("spelling", ["admin", "ADMIN", FULLWIDTH_ADMIN])
def test_any_spelling_of_the_key_logs_in_on_every_door(spelling: str) -> None:
    """The documented choice: a name in another case or width reaches its own account (the key is
    what an account is found and counted by), on the page, the token call and the admin."""
    User.objects.filter(username="admin").update(is_staff=True, is_superuser=True)
    body = {"username": spelling, "password": PASSWORD}
    assert Client().post("/accounts/login/", body).status_code == 302
    assert APIClient().post("/api/auth/token/", body, format="json").status_code == 200
    admin = Client()
    response = admin.post("/admin/login/", {**body, "next": "/admin/"})
    assert response.status_code == 302
    assert admin.get("/admin/").status_code == 200


def test_a_lookalike_is_not_the_account() -> None:
    body = {"username": CYRILLIC_ADMIN, "password": PASSWORD}
    assert APIClient().post("/api/auth/token/", body, format="json").status_code == 401


def test_the_key_migration_leaves_a_clash_to_the_older_account() -> None:
    """Names registered before the key (a fullwidth ``admin`` through the API, beside ``admin``):
    the older keeps the key, the newer logs in by its exact spelling and gets a key once renamed
    to a free name."""
    fill = __import__("accounts.migrations.0002_username_key", fromlist=["fill"]).fill
    twin = UserFactory(username="twin")
    User.objects.filter(pk=twin.pk).update(username=FULLWIDTH_ADMIN, username_key=None)
    fill(apps, None)
    admin, twin = User.objects.get(username="admin"), User.objects.get(pk=twin.pk)
    assert (admin.username_key, twin.username_key) == ("admin", None)
    assert User.objects.get_by_natural_key(FULLWIDTH_ADMIN) == twin
    assert User.objects.get_by_natural_key("ADMIN") == admin
    twin.set_password(NEW_PASSWORD)
    twin.save()  # no clash on save: the key stays empty while it is taken
    assert User.objects.get(pk=twin.pk).username_key is None
    twin.username = "twin2"
    twin.save()
    assert User.objects.get(pk=twin.pk).username_key == "twin2"
