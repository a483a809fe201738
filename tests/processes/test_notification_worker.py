"""A notice's email sent by a real Celery worker: a separate ``celery worker`` process on the
Redis broker where one is configured (CI), the in-process worker of ``make run`` otherwise. The
notice is made through the service; its email task goes to the broker after commit and the
worker sends it (``emailed_at`` set), once. The worker process mails through a dummy mailer
(``EMAIL_URL=dummymail://``), the in-process one through the test settings' locmem mailer.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from django.core import mail

from notifications.models import Kind, Notification
from notifications.queue import SEND_EMAIL
from notifications.services import notify
from tests.accounts.factories import UserFactory
from tests.games.workers import Stack, full_mode, make_tmp, wait_for

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def stack() -> Iterator[Stack]:
    running = Stack(make_tmp())
    running.purge()  # tasks other tests left on this run's queue
    yield running
    running.close()


def test_the_worker_sends_a_new_notices_email_once(stack: Stack) -> None:
    stack.start(**({"EMAIL_URL": "dummymail://"} if full_mode() else {}))
    ann = UserFactory(username="ann")
    # Outside a transaction: committed at once, so its email is queued at once.
    notice = notify(
        user=ann, kind=Kind.TABLE_READY, text="Your table is ready.", link="/tables/1/", key="t1"
    )
    assert notice is not None
    sent = Notification.objects.filter(pk=notice.pk, emailed_at__isnull=False)
    wait_for(sent.exists, what="the worker to send the email")
    wait_for(lambda: stack.done(SEND_EMAIL) == 1, what="the task to be logged done")
    assert (
        notify(
            user=ann,
            kind=Kind.TABLE_READY,
            text="Your table is ready.",
            link="/tables/1/",
            key="t1",
        )
        is None
    )  # the same key: no second email queued
    if not full_mode():
        assert [m.to for m in mail.outbox] == [["ann@example.com"]]
