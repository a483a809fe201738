"""The embedded Celery worker and beat, for the single-process default (`make run`).

An in-memory broker exists only inside one process, so the worker and the beat scheduler must
run in that process too. Both run in daemon threads, so Ctrl-C on the server ends them with it.
Start them after Django is set up and from the ASGI module: doing it in `AppConfig.ready` would
re-enter app loading, since the worker imports task modules while it boots.
"""

import logging
import threading
from dataclasses import dataclass
from typing import Any

from celery import Celery
from celery.beat import EmbeddedService
from celery.worker import WorkController

logger = logging.getLogger(__name__)


@dataclass
class EmbeddedWorker:
    """A running worker and beat pair; `stop()` ends both."""

    worker: WorkController
    thread: threading.Thread
    beat: Any | None

    def stop(self) -> None:
        if self.beat is not None:
            self.beat.stop()
        self.worker.stop(in_sighandler=False)
        self.thread.join(timeout=10)


def start_worker(
    app: Celery, *, concurrency: int = 4, queues: list[str] | None = None, beat: bool = True
) -> EmbeddedWorker:
    """Start a thread-pool worker (and, with `beat`, the scheduler) in daemon threads.

    The thread pool keeps tasks in this process, where the in-memory broker and channel layer
    are; heartbeats, mingle and gossip only talk to other workers, of which there are none.
    """
    worker = app.WorkController(
        pool_cls="threads",
        concurrency=concurrency,
        hostname=f"embedded-{threading.get_native_id()}@localhost",
        queues=queues,
        without_heartbeat=True,
        without_mingle=True,
        without_gossip=True,
        loglevel="WARNING",
    )
    # The sweep runs every few seconds: its "received"/"succeeded" lines would drown the
    # server's own output. Only this process's loggers are changed (embedded mode).
    for name in ("celery.app.trace", "celery.worker.strategy", "celery.beat"):
        logging.getLogger(name).setLevel(logging.WARNING)
    thread = threading.Thread(target=worker.start, name="celery-worker", daemon=True)
    thread.start()
    scheduler = None
    if beat:
        # The plain Scheduler keeps its schedule in memory: no schedule file next to the code.
        scheduler = EmbeddedService(app, thread=True, scheduler_cls="celery.beat:Scheduler")
        scheduler.start()
    logger.info("embedded Celery worker started (concurrency %s)", concurrency)
    return EmbeddedWorker(worker=worker, thread=thread, beat=scheduler)
