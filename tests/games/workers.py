"""A real Celery worker (and beat) for the clock tests, in the mode the settings are in.

On a Redis broker (CI, and any run with ``REDIS_URL``) the worker and beat are separate
``celery`` processes, as in compose, on the test database and on this run's own queue. On the
embedded default (in-memory broker) they run inside the test process, as in ``make run``.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from celery.signals import task_postrun
from django.conf import settings
from django.db import connection
from django.test import override_settings

from config.celery import app as celery_app
from config.embedded import EmbeddedWorker, start_worker
from games import finalization
from tests.games import finalize_hook

ROOT = Path(__file__).resolve().parents[2]
# Generous: the outcome, not the speed, is under test (bench/clock.py measures the speed).
WAIT_SECONDS = 30.0


def wait_for[T](probe: Callable[[], T], *, timeout: float = WAIT_SECONDS, what: str = "") -> T:
    """Poll ``probe`` until it returns something truthy; fail after ``timeout`` seconds."""
    end = time.monotonic() + timeout
    while True:
        value = probe()
        if value:
            return value
        if time.monotonic() > end:
            raise AssertionError(f"waited {timeout} s for {what or probe}")
        time.sleep(0.05)


def full_mode() -> bool:
    return not settings.CELERY_BROKER_URL.startswith("memory://")


class Stack:
    """Start and stop a worker (and beat) on this run's queue; count the tasks they finish."""

    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        self.hook_log = tmp / "hook.log"
        self.queue = settings.CELERY_TASK_DEFAULT_QUEUE
        self.procs: list[subprocess.Popen[bytes]] = []
        self.logs: list[Path] = []
        self.embedded: EmbeddedWorker | None = None
        self.finished: Counter[str] = Counter()
        self._lock = threading.Lock()
        self._overrides: list[override_settings] = []
        self._schedule = celery_app.conf.beat_schedule
        task_postrun.connect(self._count, weak=False)
        finalization.register(finalize_hook.HOOK)(finalize_hook.log_result)
        os.environ[finalize_hook.LOG_ENV] = str(self.hook_log)

    def _count(self, sender: Any = None, **_: Any) -> None:
        with self._lock:
            self.finished[getattr(sender, "name", "")] += 1

    def purge(self) -> None:
        """Drop every message waiting on this run's queue (a lost timer)."""
        with celery_app.connection_for_write() as conn:
            conn.default_channel.queue_purge(self.queue)

    def start(self, *, beat: bool = False, concurrency: int = 2, **env: str) -> None:
        """Start the worker (and beat); ``env`` sets settings such as CLOCK_SWEEP_SECONDS."""
        if full_mode():
            self._spawn(["worker", "-Q", self.queue, "-c", str(concurrency)], env)
            if beat:
                schedule = self.tmp / f"beat-{uuid.uuid4().hex}"
                self._spawn(["beat", "--schedule", str(schedule)], env)
            self._wait_ready()
            return
        for name, value in env.items():
            override = override_settings(**{name: float(value)})
            override.enable()
            self._overrides.append(override)
        if beat:
            every = float(env.get("CLOCK_SWEEP_SECONDS", settings.CLOCK_SWEEP_SECONDS))
            entry = {"task": "games.tasks.sweep", "schedule": every}
            celery_app.conf.beat_schedule = {"sweep": {**entry, "options": {"queue": self.queue}}}
        self.embedded = start_worker(
            celery_app, concurrency=concurrency, queues=[self.queue], beat=beat
        )

    def _spawn(self, args: list[str], env: dict[str, str]) -> None:
        db = connection.settings_dict
        url = f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}"
        log = self.tmp / f"{args[0]}-{len(self.logs)}.log"
        environ = {
            **os.environ,
            "DATABASE_URL": url,
            "DJANGO_SETTINGS_MODULE": "config.settings",
            "DJANGO_CONN_MAX_AGE": "0",
            "CELERY_QUEUE": self.queue,
            "CHANNELS_PREFIX": settings.CHANNEL_LAYERS["default"]
            .get("CONFIG", {})
            .get("prefix", ""),
            finalize_hook.LOG_ENV: str(self.hook_log),
            # Notices' emails go nowhere: the full settings would try SMTP on localhost:25.
            "EMAIL_URL": "dummymail://",
            **env,
        }
        name = f"clocktest-{uuid.uuid4().hex[:8]}@localhost"
        command = [sys.executable, "-m", "celery", "-A", "config", *args, "-l", "INFO"]
        if args[0] == "worker":
            command += ["-n", name, "-I", finalize_hook.__name__, "--without-gossip"]
            self.worker_name = name
        with log.open("wb") as out:
            # A session of its own, so kill() reaches the worker's pool processes too.
            proc = subprocess.Popen(
                command, cwd=ROOT, env=environ, stdout=out, stderr=out, start_new_session=True
            )
        self.procs.append(proc)
        self.logs.append(log)

    def _wait_ready(self) -> None:
        # The running processes are the last started: logs also keep those stopped before.
        running = self.logs[len(self.logs) - len(self.procs) :]

        def answered() -> bool:
            for proc, log in zip(self.procs, running, strict=True):
                if proc.poll() is not None:
                    raise AssertionError(f"{log.name} exited:\n{log.read_text()}")
            return bool(celery_app.control.ping([self.worker_name], timeout=0.5))

        wait_for(answered, what="the worker to answer a ping")

    def done(self, task: str) -> int:
        """How many ``task`` runs the worker has finished (all of this stack's workers)."""
        if not full_mode():
            with self._lock:
                return self.finished[task]
        pattern = f"Task {task}["
        return sum(
            pattern in line and " succeeded in " in line
            for log in self.logs
            for line in log.read_text().splitlines()
        )

    def hook_runs(self) -> list[str]:
        return self.hook_log.read_text().split() if self.hook_log.exists() else []

    def stop(self) -> None:
        for proc in self.procs:
            proc.terminate()
        for proc in self.procs:
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        self.procs.clear()
        if self.embedded is not None:
            self.embedded.stop()
            self.embedded = None

    def kill(self) -> None:
        """SIGKILL the worker (with its pool processes) and beat, as a crashed machine would:
        no shutdown, no message acknowledged or handed back to the broker."""
        assert full_mode(), "the embedded worker is a thread of this process"
        for proc in self.procs:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        self.procs.clear()

    def received(self, task: str) -> int:
        """How many ``task`` messages this stack's workers have taken from the broker."""
        pattern = f"Task {task}["
        return sum(
            pattern in line and line.rstrip().endswith(" received")
            for log in self.logs
            for line in log.read_text().splitlines()
        )

    def close(self) -> None:
        self.stop()
        for override in reversed(self._overrides):
            override.disable()
        celery_app.conf.beat_schedule = self._schedule
        task_postrun.disconnect(self._count)
        finalization.unregister(finalize_hook.HOOK)
        os.environ.pop(finalize_hook.LOG_ENV, None)


def make_tmp() -> Path:
    return Path(tempfile.mkdtemp(prefix="rummy-clock-"))
