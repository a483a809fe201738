"""A finalization hook for the worker tests: it appends the finished table's id to the file
named by ``RUMMY_TEST_HOOK_LOG``, so a test can count how often it ran in any process.

Worker processes import this module (``celery worker -I``) with the variable set, and so
register the hook; the test process registers it through ``tests.games.workers.Stack``. Such a
worker also writes the periodic tasks' "succeeded" lines, which config/logs.py keeps at DEBUG:
``Stack.done`` counts finished tasks by them.
"""

from __future__ import annotations

import logging
import os

from games import finalization
from games.models import GameResult

HOOK = "test-log"
LOG_ENV = "RUMMY_TEST_HOOK_LOG"


def log_result(result: GameResult) -> None:
    with open(os.environ[LOG_ENV], "a") as log:
        log.write(f"{result.table_id}\n")


if os.environ.get(LOG_ENV) and os.environ.get("CELERY_QUEUE"):
    finalization.register(HOOK)(log_result)
    logging.getLogger("celery.app.trace").setLevel(logging.DEBUG)
