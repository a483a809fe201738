"""The pages: the bell in every page's header (signed-in users), the notifications page (each
notice links to its target, text escaped, "mark all read") and the email settings page."""

from __future__ import annotations

import pytest
from django.test import Client

from accounts.models import User
from notifications.models import Kind, Notification
from notifications.selectors import email_settings
from notifications.services import notify
from tests.accounts.factories import UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def ann() -> User:
    user = UserFactory(username="ann")
    notify(
        user=user,
        kind=Kind.REMATCH_OFFER,
        text="<b>bob</b> offers you a rematch of table 9.",
        link="/tables/9/",
        key="rematch:9",
    )
    return user


def signed_in(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_the_bell_shows_the_count_to_a_signed_in_user_only(ann: User) -> None:
    page = signed_in(ann).get("/rules/").content.decode()
    assert 'id="bell"' in page and 'data-socket="/ws/me/"' in page
    assert 'aria-label="Notifications, 1 unread"' in page
    assert '<span id="bell-count" class="bell-count">1</span>' in page
    assert "js/bell.js" in page
    visitor = Client().get("/rules/").content.decode()
    assert 'id="bell"' not in visitor and "bell.js" not in visitor


def test_the_notifications_page_lists_escaped_notices_linking_to_their_target(ann: User) -> None:
    page = signed_in(ann).get("/notifications/").content.decode()
    assert (
        '<a href="/tables/9/">&lt;b&gt;bob&lt;/b&gt; offers you a rematch of table 9.</a>' in page
    )
    assert "<b>bob</b>" not in page
    assert "1 unread" in page and "Mark all read" in page


def test_mark_all_read(ann: User) -> None:
    client = signed_in(ann)
    response = client.post("/notifications/read/")
    assert response.status_code == 302 and response["Location"] == "/notifications/"
    assert not Notification.objects.filter(read_at__isnull=True).exists()
    page = client.get("/notifications/").content.decode()
    assert "All read" in page and "Mark all read" not in page
    assert client.get("/notifications/read/").status_code == 405


def test_the_settings_page_turns_emails_off_and_on(ann: User) -> None:
    client = signed_in(ann)
    page = client.get("/notifications/settings/").content.decode()
    for kind in Kind:
        assert f'name="{kind.value}"' in page and kind.label.replace("'", "&#x27;") in page
    # Unchecked boxes are not sent: everything but the rematch offer goes off.
    response = client.post("/notifications/settings/", {"rematch_offer": "on"})
    assert response.status_code == 302
    assert email_settings(ann) == {**dict.fromkeys(Kind.values, False), "rematch_offer": True}
    page = client.get("/notifications/settings/").content.decode()
    assert "Saved: your email settings." in page
    assert 'name="rematch_offer" id="id_rematch_offer" checked' in page


@pytest.mark.parametrize("path", ["/notifications/", "/notifications/settings/"])
def test_a_visitor_is_sent_to_log_in(path: str) -> None:
    response = Client().get(path)
    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")
