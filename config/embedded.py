"""The embedded Celery worker and beat, for the single-process default (`make run`).

An in-memory broker exists only inside one process, so the worker and the beat scheduler must
run in that process too. Both run in daemon threads, and `stop_with_server` stops them when the
server stops (Ctrl-C), before the interpreter is torn down. Start them after Django is set up
and from the ASGI module: doing it in `AppConfig.ready` would re-enter app loading, since the
worker imports task modules while it boots.
"""

import atexit
import logging
import sys
import threading
from dataclasses import dataclass, field
from typing import Any

from celery import Celery
from celery.beat import EmbeddedService
from celery.worker import WorkController

# Importing this installs no reactor (it looks the reactor up when called), so it is safe
# outside Daphne too; stop_with_server uses it only under Daphne, whose reactor is installed.
from twisted.internet.threads import deferToThread

logger = logging.getLogger(__name__)

# How long `stop()` waits for each thread, and the server for `stop()`: a task still running
# then is left to the interpreter's exit (which joins the pool's threads).
STOP_SECONDS = 10.0


@dataclass
class EmbeddedWorker:
    """A running worker and beat pair; `stop()` ends both."""

    worker: WorkController
    thread: threading.Thread
    beat: Any | None
    _claim: threading.Lock = field(default_factory=threading.Lock, repr=False)
    _stopping: bool = field(default=False, repr=False)

    def stop(self) -> None:
        """Stop beat and the worker (warm: a running task finishes). Only the first call does
        anything; a later one (the server's, then the exit's) returns at once."""
        with self._claim:
            if self._stopping:
                return
            self._stopping = True
        # Beat notices within its one-second nap while the worker stops: told first, waited
        # for last.
        if self.beat is not None:
            self.beat.service.stop()
        self.worker.stop(in_sighandler=False)
        self.thread.join(timeout=STOP_SECONDS)
        if self.beat is not None:
            self.beat.join(timeout=STOP_SECONDS)


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


def stop_with_server(embedded: EmbeddedWorker) -> None:
    """Stop ``embedded`` when the server stops, while the interpreter is still whole.

    Left to die with the process, the worker went on taking tasks through the interpreter's
    shutdown (its pool refused them: "cannot schedule new futures after interpreter shutdown"),
    and its daemon threads were cut off wherever they stood once the interpreter began tearing
    itself down, with any lock they held left held. Under Daphne (`make run`) they stop as its
    reactor shuts down, before Daphne returns; under any other server, at exit.
    """
    reactor: Any = sys.modules.get("twisted.internet.reactor")
    if reactor is not None and hasattr(reactor, "addSystemEventTrigger"):

        def stop_in_a_thread() -> Any:
            # The reactor keeps serving the requests Daphne is cancelling meanwhile, and waits
            # for the stop, but not forever.
            return deferToThread(embedded.stop).addTimeout(STOP_SECONDS, reactor)

        reactor.addSystemEventTrigger("before", "shutdown", stop_in_a_thread)
    atexit.register(embedded.stop)
