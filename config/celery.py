"""The Celery app. Configuration comes from Django settings under the `CELERY_` prefix.

In full mode run `celery -A config worker` and `celery -A config beat` beside the web servers;
in embedded mode config/asgi.py runs both inside the server process (see config/embedded.py).
"""

import logging.config
import os
from typing import Any

from celery import Celery, signals
from django.conf import settings
from django.db import close_old_connections
from prometheus_client import start_http_server
from prometheus_client.multiprocess import mark_process_dead

from config.metrics import MULTIPROCESS, scrape_registry
from config.push import drain

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("rummy500")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@signals.setup_logging.connect
def _use_django_logging(**_: Any) -> None:
    """The worker and beat log as the web servers do (``LOGGING``: JSON lines in production,
    the periodic tasks' lines at DEBUG) instead of replacing the root logger's handlers with
    Celery's own; ``LOG_LEVEL`` sets the level, not ``--loglevel``."""
    logging.config.dictConfig(settings.LOGGING)


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


@signals.worker_init.connect
def _serve_metrics(**_: Any) -> None:
    """With ``METRICS_PORT`` set, the worker serves its metrics there (timer lateness, actions
    the clock played, queue depth), from its main process. The tasks run in child processes:
    set ``PROMETHEUS_MULTIPROC_DIR`` too, or the port shows only the main process's. The port
    is for the monitoring network only: publish it nowhere (docs/scaling.md)."""
    if settings.METRICS_PORT:
        start_http_server(settings.METRICS_PORT, registry=scrape_registry())


@signals.worker_process_shutdown.connect
def _forget_process_metrics(pid: int | None = None, **_: Any) -> None:
    """A child that ends takes its live gauges out of the shared directory."""
    if MULTIPROCESS and pid is not None:
        mark_process_dead(pid)
