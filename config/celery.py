"""The Celery app. Configuration comes from Django settings under the `CELERY_` prefix.

In full mode run `celery -A config worker` and `celery -A config beat` beside the web servers;
in embedded mode config/asgi.py runs both inside the server process (see config/embedded.py).
"""

import os
from typing import Any

from celery import Celery, signals
from django.db import close_old_connections

from config.push import drain

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("rummy500")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@signals.task_prerun.connect
@signals.task_postrun.connect
def _tidy_database_connections(**_: Any) -> None:
    """Apply Django's own connection rules around every task, as around every request: a
    connection past ``CONN_MAX_AGE``, or broken by an error, is closed (and opened afresh when
    next used). With ``CELERY_DB_REUSE_MAX`` set, Celery leaves the rest open across tasks."""
    close_old_connections()


@signals.worker_process_shutdown.connect
def _send_pending_pushes(**_: Any) -> None:
    """A worker process hands its pushes to a loop of its own: let them go out before it ends."""
    drain()
