"""The hand-off of a notice's email to Celery, after commit.

The task is sent by name, so the services need not import the task module (which imports
them). A send that fails (the broker down) is logged by ``on_commit(robust=True)`` and dropped:
the notice itself is in the site either way, and an email is a courtesy, not the record.
"""

from __future__ import annotations

from django.db import transaction

from config.celery import app

SEND_EMAIL = "notifications.tasks.send_email"

# A broker that does not answer holds up the request that made the notice this little.
_PUBLISH_RETRY = {"max_retries": 2, "interval_start": 0, "interval_step": 0.2, "interval_max": 0.5}


def send(name: str, args: tuple[object, ...]) -> None:
    app.send_task(name, args, retry=True, retry_policy=_PUBLISH_RETRY)


def on_commit_email(notification_id: int) -> None:
    transaction.on_commit(lambda: send(SEND_EMAIL, (notification_id,)), robust=True)
