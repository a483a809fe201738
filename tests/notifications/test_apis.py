"""The notifications REST API: the list (paged, with the unread count), marking read, the
email settings; a signed-in user's own notices only, bad input answered 400."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from accounts.models import User
from notifications.models import Kind, Notification
from notifications.services import notify
from tests.accounts.factories import UserFactory

pytestmark = pytest.mark.django_db


def client(user: User | None = None) -> APIClient:
    api = APIClient()
    if user is not None:
        api.force_authenticate(user)
    return api


@pytest.fixture
def ann() -> User:
    user = UserFactory(username="ann")
    for n in range(5):
        notify(
            user=user,
            kind=Kind.TABLE_READY,
            text=f"Table {n} is <ready>",
            link=f"/tables/{n}/",
            key=f"table:{n}",
        )
    return user


def test_the_list_pages_newest_first_with_the_unread_count(ann: User) -> None:
    UserFactory(username="bob")
    got = client(ann).get("/api/notifications/?limit=2&offset=1").json()
    assert (got["count"], got["unread"], got["limit"], got["offset"]) == (5, 5, 2, 1)
    assert [r["link"] for r in got["results"]] == ["/tables/3/", "/tables/2/"]
    first = got["results"][0]
    assert first["kind"] == "table_ready" and first["text"] == "Table 3 is <ready>"
    assert first["read_at"] is None and first["created"]
    bob = client(User.objects.get(username="bob")).get("/api/notifications/").json()
    assert bob["count"] == 0 and bob["results"] == []


@pytest.mark.parametrize("query", ["limit=0", "limit=101", "limit=x", "offset=-1"])
def test_bad_paging_is_refused(ann: User, query: str) -> None:
    response = client(ann).get(f"/api/notifications/?{query}")
    assert response.status_code == 400 and response.json()["error"] == "bad_request"


def test_marking_read(ann: User) -> None:
    ids = list(Notification.objects.filter(user=ann).values_list("pk", flat=True)[:2])
    response = client(ann).post("/api/notifications/read/", {"ids": ids}, format="json")
    assert response.status_code == 200 and response.json() == {"marked": 2, "unread": 3}
    response = client(ann).post("/api/notifications/read/", {"all": True}, format="json")
    assert response.json() == {"marked": 3, "unread": 0}
    listed = client(ann).get("/api/notifications/").json()
    assert listed["unread"] == 0 and all(r["read_at"] for r in listed["results"])


@pytest.mark.parametrize(
    "body", [{}, {"all": False}, {"ids": "1"}, {"ids": [1.5]}, [1, 2], {"all": "yes"}]
)
def test_marking_read_refuses_bad_bodies(ann: User, body: Any) -> None:
    response = client(ann).post("/api/notifications/read/", body, format="json")
    assert response.status_code == 400 and response.json()["error"] == "bad_request"


def test_settings_read_and_change(ann: User) -> None:
    assert client(ann).get("/api/notifications/settings/").json() == {
        "email": dict.fromkeys(Kind.values, True)
    }
    body = {"email": {"rematch_offer": False}}
    response = client(ann).put("/api/notifications/settings/", body, format="json")
    assert response.status_code == 200
    assert response.json()["email"] == {**dict.fromkeys(Kind.values, True), "rematch_offer": False}
    assert client(ann).get("/api/notifications/settings/").json()["email"]["rematch_offer"] is False


@pytest.mark.parametrize(
    "body", [{}, {"email": []}, {"email": {"bell": False}}, {"email": {"starts_soon": "off"}}]
)
def test_settings_refuse_bad_bodies(ann: User, body: Any) -> None:
    response = client(ann).put("/api/notifications/settings/", body, format="json")
    assert response.status_code == 400 and response.json()["error"] == "bad_request"


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("get", "/api/notifications/"),
        ("post", "/api/notifications/read/"),
        ("get", "/api/notifications/settings/"),
        ("put", "/api/notifications/settings/"),
    ],
)
def test_a_visitor_must_sign_in(method: str, path: str) -> None:
    response = getattr(client(), method)(path, {}, format="json")
    assert response.status_code == 401 and response.json()["error"] == "not_authenticated"
