"""Where a Celery worker's time goes per turn enforcement: loaded into the worker by
``bench/clock.py --profile`` (``celery worker --include bench.clock_probe``), never by the site.

Each pool process wraps the steps of ``table_enforce_deadline`` with wall-clock timers (waits on
PostgreSQL and Redis included) and writes its totals as JSON to ``$BENCH_CLOCK_PROBE/<pid>.json``
when it shuts down. With ``BENCH_CLOCK_CPROFILE=1`` it also runs cProfile and writes
``<pid>.prof``. The steps nest (``enforce`` holds the rest; ``push`` holds ``push_views`` and
``push_send``), so shares are of ``enforce`` or of the task.
"""

from __future__ import annotations

import cProfile
import functools
import json
import os
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

from celery import signals

TOTALS: defaultdict[str, list[float]] = defaultdict(lambda: [0, 0.0])  # step: [calls, seconds]
PROFILER: list[cProfile.Profile] = []
_TASK_START: dict[str, float] = {}


def timed(step: str, func: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter()
        try:
            return func(*args, **kwargs)
        finally:
            total = TOTALS[step]
            total[0] += 1
            total[1] += time.perf_counter() - start

    return wrapper


def wrap(owner: Any, name: str, step: str) -> None:
    setattr(owner, name, timed(step, getattr(owner, name)))


def install() -> None:
    """Wrap the steps where the callers look them up (modules that imported names directly)."""
    from games import clock_services, push, record, tasks, timers
    from games.models import Table, TableEvent

    wrap(tasks, "table_enforce_deadline", "enforce")
    wrap(clock_services, "lock_table", "lock")
    wrap(clock_services, "table_state", "state_parse")
    wrap(clock_services, "apply_timeout", "engine_timeout")
    wrap(clock_services, "advance", "advance")
    wrap(record, "full_state", "full_state")
    wrap(TableEvent.objects, "create", "event_insert")
    wrap(Table, "save", "table_save")
    wrap(record, "_play_absent_turns", "absent_check")
    wrap(push, "push_table", "push")
    wrap(push, "table_seats", "push_seats_query")
    wrap(push, "state_frame", "push_views")
    wrap(push, "group_send_many", "push_send")
    wrap(timers, "send_timer", "timer_send")


@signals.worker_process_init.connect
def _start(**_: Any) -> None:
    if not os.environ.get("BENCH_CLOCK_PROBE"):
        return
    install()
    if os.environ.get("BENCH_CLOCK_CPROFILE") == "1":
        PROFILER.append(cProfile.Profile())
        PROFILER[0].enable()


@signals.task_prerun.connect
def _task_start(task_id: str = "", **_: Any) -> None:
    _TASK_START[task_id] = time.perf_counter()


@signals.task_postrun.connect
def _task_end(task_id: str = "", task: Any = None, **_: Any) -> None:
    start = _TASK_START.pop(task_id, None)
    if start is not None and task is not None:
        total = TOTALS["task:" + task.name.rsplit(".", 1)[-1]]
        total[0] += 1
        total[1] += time.perf_counter() - start


@signals.worker_process_shutdown.connect
def _dump(**_: Any) -> None:
    folder = os.environ.get("BENCH_CLOCK_PROBE")
    if not folder:
        return
    out = Path(folder)
    if PROFILER:
        PROFILER[0].disable()
        PROFILER[0].dump_stats(out / f"{os.getpid()}.prof")
    cpu = os.times()
    totals = {**TOTALS, "cpu": [1, cpu.user + cpu.system]}
    (out / f"{os.getpid()}.json").write_text(json.dumps(totals))
