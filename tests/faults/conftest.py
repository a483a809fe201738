"""Fixtures of the fault tests: the processes a test starts, ended whatever happens."""

from collections.abc import Iterator
from pathlib import Path

import pytest
from django.conf import settings

from config.celery import app as celery_app
from tests.faults.stack import Processes


@pytest.fixture
def procs(tmp_path: Path) -> Iterator[Processes]:
    running = Processes(tmp_path)
    try:
        yield running
    finally:
        running.close()
        # The servers set turn timers on this run's queue: no later test should meet them.
        with celery_app.connection_for_write() as conn:
            conn.default_channel.queue_purge(settings.CELERY_TASK_DEFAULT_QUEUE)
