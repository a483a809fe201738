"""The notifications' services: a notice is made once per user and key (even when two make
it at once), pushed and queued for email after commit only; its email is sent by the Celery
task unless the kind is off; notices are read; settings change."""

from __future__ import annotations

import time
from typing import Any

import pytest
from django.core import mail
from django.db import transaction

from accounts.models import User
from notifications import tasks
from notifications.errors import NotificationError
from notifications.models import EmailSetting, Kind, Notification
from notifications.selectors import email_settings, unread_count
from notifications.services import (
    email_settings_update,
    notification_send_email,
    notifications_mark_read,
    notify,
)
from tests.accounts.factories import UserFactory
from tests.notifications.helpers import Outbox, race, record


@pytest.fixture
def box(monkeypatch: pytest.MonkeyPatch) -> Outbox:
    return record(monkeypatch)


@pytest.fixture
def ann(db: None) -> User:
    return UserFactory(username="ann")


def ready(user: User, key: str = "table:7", text: str = "Your table is ready.") -> Any:
    return notify(user=user, kind=Kind.TABLE_READY, text=text, link="/tables/7/", key=key)


@pytest.mark.django_db
def test_a_notice_is_made_once_per_key_and_told_after_commit(
    ann: User, box: Outbox, django_capture_on_commit_callbacks: Any
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        first = ready(ann)
        again = ready(ann, text="Another text, same key")
        other = ready(ann, key="table:8")
    assert first is not None and again is None and other is not None
    assert [n.text for n in Notification.objects.filter(user=ann).order_by("id")] == [
        "Your table is ready.",
        "Your table is ready.",
    ]
    assert box.pushed == [first.pk, other.pk]
    assert box.queued == [first.pk, other.pk]
    assert unread_count(ann.pk) == 2


@pytest.mark.django_db
def test_nothing_is_told_of_a_notice_rolled_back(
    ann: User, box: Outbox, django_capture_on_commit_callbacks: Any
) -> None:
    with (
        django_capture_on_commit_callbacks(execute=True),
        pytest.raises(RuntimeError),
        transaction.atomic(),
    ):
        ready(ann)
        raise RuntimeError("the change it told of failed")
    assert not Notification.objects.exists()
    assert box.pushed == [] and box.queued == []


@pytest.mark.django_db(transaction=True)
def test_two_at_once_make_one_notice_and_tell_it_once(box: Outbox) -> None:
    """On PostgreSQL the second insert waits for the first to commit, then finds its row."""
    ann = UserFactory(username="ann")

    def make(key: str) -> Any:
        def call() -> Any:
            with transaction.atomic():
                made = ready(ann, key=key)
                time.sleep(0.05)  # hold the insert open so the other one meets it
                return made

        return call

    for n in range(4):
        key = f"table:{n}"
        results = race([make(key), make(key), make(key)])
        made = [r for r in results if isinstance(r, Notification)]
        assert len(made) == 1 and results.count(None) == 2, results
        assert Notification.objects.filter(user=ann, key=key).count() == 1
    assert len(box.pushed) == 4 and len(box.queued) == 4


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"kind": "party"}, "kind"),
        ({"text": "   "}, "text"),
        ({"text": "x" * 301}, "text"),
        ({"link": "https://elsewhere.example/"}, "link"),
        ({"link": "//elsewhere.example/"}, "link"),
        ({"link": "/\\elsewhere.example/"}, "link"),
        ({"key": ""}, "key"),
    ],
)
def test_bad_input_is_refused(ann: User, fields: dict[str, str], message: str) -> None:
    call = {"kind": Kind.TABLE_READY, "text": "Hi", "link": "/x/", "key": "k", **fields}
    with pytest.raises(NotificationError) as caught:
        notify(user=ann, **call)
    assert caught.value.code == "bad_request" and caught.value.message.startswith(message)


@pytest.mark.django_db
def test_text_is_kept_on_one_line(ann: User) -> None:
    notice = ready(ann, text="Spring\ncup:\r\n  your  table")
    assert notice.text == "Spring cup: your table"


@pytest.mark.django_db(transaction=True)
def test_the_task_sends_a_plain_text_email_with_the_absolute_link(box: Outbox) -> None:
    """Through Celery's own call (``apply``: its signals tidy the connection as a worker
    does, so the data is committed first)."""
    ann = UserFactory(username="ann")
    notice = ready(ann, text="Club <night> & more: your table is ready.")
    assert tasks.send_email.apply(args=(notice.pk,)).get() is True
    (sent,) = mail.outbox
    assert sent.to == ["ann@example.com"]
    assert sent.subject == "Rummy 500: Your event's table is ready"
    assert "Club <night> & more: your table is ready." in sent.body  # plain text, not HTML
    assert "https://rummy.example/tables/7/" in sent.body
    assert "https://rummy.example/notifications/settings/" in sent.body
    assert sent.from_email == "Rummy 500 <noreply@localhost>"
    assert not sent.alternatives
    # Delivered twice, sent once.
    assert tasks.send_email.apply(args=(notice.pk,)).get() is False
    assert len(mail.outbox) == 1


@pytest.mark.django_db
def test_no_email_when_the_kind_is_off(ann: User) -> None:
    email_settings_update(user=ann, email={"table_ready": False})
    off = ready(ann)
    on = notify(user=ann, kind=Kind.REMATCH_OFFER, text="Rematch?", link="/tables/3/", key="r")
    assert notification_send_email(off.pk) is False
    assert notification_send_email(on.pk) is True
    assert [m.subject for m in mail.outbox] == ["Rummy 500: A rematch offer"]
    off.refresh_from_db()
    assert off.emailed_at is None  # still in the site: only the email was skipped
    assert unread_count(ann.pk) == 2


@pytest.mark.django_db
def test_no_email_without_an_address() -> None:
    nobody = UserFactory(username="nobody", email="")
    assert notification_send_email(ready(nobody).pk) is False
    assert mail.outbox == []


@pytest.mark.django_db
def test_marking_read_by_id_and_all(
    ann: User, box: Outbox, django_capture_on_commit_callbacks: Any
) -> None:
    bob = UserFactory(username="bob")
    a, b, c = (ready(ann, key=f"k{i}") for i in range(3))
    theirs = ready(bob)
    with django_capture_on_commit_callbacks(execute=True):
        assert notifications_mark_read(user=ann, ids=[a.pk, theirs.pk]) == {
            "marked": 1,
            "unread": 2,
        }
    theirs.refresh_from_db()
    assert theirs.read_at is None  # not ann's to read
    assert box.unread == [ann.pk]
    with django_capture_on_commit_callbacks(execute=True):
        assert notifications_mark_read(user=ann, ids=[a.pk]) == {"marked": 0, "unread": 2}
    assert len(box.unread) == 1  # nothing changed, nothing pushed
    assert notifications_mark_read(user=ann) == {"marked": 2, "unread": 0}
    for bad in ("1", [1, "2"], [True], {"id": 1}):
        with pytest.raises(NotificationError):
            notifications_mark_read(user=ann, ids=bad)
    assert {b.pk, c.pk} <= set(
        Notification.objects.filter(read_at__isnull=False).values_list("pk", flat=True)
    )


@pytest.mark.django_db
def test_email_settings(ann: User) -> None:
    assert email_settings(ann) == dict.fromkeys(Kind.values, True)
    got = email_settings_update(user=ann, email={"starts_soon": False, "check_in_open": False})
    assert got == {**dict.fromkeys(Kind.values, True), "starts_soon": False, "check_in_open": False}
    assert email_settings_update(user=ann, email={"starts_soon": True})["starts_soon"] is True
    assert EmailSetting.objects.filter(user=ann).count() == 2
    for bad in ([], {"party": True}, {"starts_soon": "no"}, {"starts_soon": 0}):
        with pytest.raises(NotificationError):
            email_settings_update(user=ann, email=bad)
