"""The embedded Celery worker: tasks with a countdown fire on time, beat runs in-process."""

import threading
import time
import uuid
from collections.abc import Iterator

import pytest

from config.celery import app as celery_app
from config.embedded import EmbeddedWorker, start_worker

# Arrival times (monotonic seconds) by key, with an event to wait on.
arrivals: dict[str, list[float]] = {}
arrived: dict[str, threading.Event] = {}


@celery_app.task(name="tests.processes.test_embedded.record")
def record(key: str) -> None:
    arrivals.setdefault(key, []).append(time.monotonic())
    arrived[key].set()


@pytest.fixture
def queue() -> str:
    # A queue of its own, so a Redis broker shared with other runs hands this worker only ours.
    return f"test-embedded-{uuid.uuid4().hex}"


@pytest.fixture
def key() -> Iterator[str]:
    name = uuid.uuid4().hex
    arrived[name] = threading.Event()
    yield name
    arrived.pop(name)
    arrivals.pop(name, None)


@pytest.fixture
def worker(queue: str, db: None) -> Iterator[EmbeddedWorker]:
    # Celery's Django fixup runs the system checks as the worker starts, and the JSONField
    # check asks the database what it supports: so the worker needs database access.
    running = start_worker(celery_app, concurrency=2, queues=[queue], beat=False)
    yield running
    running.stop()


def test_countdown_task_fires_on_time(worker: EmbeddedWorker, queue: str, key: str) -> None:
    sent = time.monotonic()
    record.apply_async((key,), countdown=1, queue=queue)
    assert arrived[key].wait(timeout=10), "the countdown task never ran"
    delay = arrivals[key][0] - sent
    # Never before its countdown; lateness is bounded only by the generous wait above, since a
    # tight wall-clock limit would fail on a loaded machine without anything being wrong.
    assert delay >= 1.0, delay


def test_worker_runs_in_a_daemon_thread(worker: EmbeddedWorker) -> None:
    assert worker.thread.daemon
    assert worker.thread.is_alive()


# Every test that starts a worker needs the database (see `worker`), even where an earlier test
# in the process already ran the check: in another order, or on another xdist worker, it is first.
def test_stop_ends_the_worker_thread(queue: str, db: None) -> None:
    running = start_worker(celery_app, concurrency=1, queues=[queue], beat=False)
    running.stop()
    assert not running.thread.is_alive()


def test_embedded_beat_sends_periodic_tasks(queue: str, key: str, db: None) -> None:
    schedule = {"record": {"task": record.name, "schedule": 0.5, "args": (key,)}}
    previous = celery_app.conf.beat_schedule
    celery_app.conf.beat_schedule = {
        name: {**entry, "options": {"queue": queue}} for name, entry in schedule.items()
    }
    try:
        running = start_worker(celery_app, concurrency=2, queues=[queue], beat=True)
        try:
            deadline = time.monotonic() + 10
            while len(arrivals.get(key, [])) < 2 and time.monotonic() < deadline:
                time.sleep(0.1)
        finally:
            running.stop()
    finally:
        celery_app.conf.beat_schedule = previous
    assert len(arrivals.get(key, [])) >= 2, "beat did not send the periodic task twice"
