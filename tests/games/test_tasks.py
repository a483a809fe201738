"""The Celery tasks' own behaviour: transient database errors are retried with backoff, anything
else fails at once; messages are acknowledged only once handled. (What the tasks do is tested
through the services in test_clock*.py and with a real worker in
tests/processes/test_timers_worker.py.)"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from unittest import mock

import pytest
from django.db import InterfaceError, OperationalError

from games import tasks

TASKS = [tasks.enforce_turn, tasks.sweep, tasks.finalize_game, tasks.run_finalizer]


def flaky(failures: list[Exception], answer: Any) -> tuple[Callable[..., Any], list[int]]:
    """A stand-in that raises each of ``failures`` in turn, then returns ``answer``."""
    calls: list[int] = []

    def call(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        if len(calls) <= len(failures):
            raise failures[len(calls) - 1]
        return answer

    return call, calls


@pytest.mark.parametrize("error", [OperationalError("connection lost"), InterfaceError("closed")])
def test_a_finalizer_is_retried_through_transient_database_errors(error: Exception) -> None:
    call, calls = flaky([error, error], True)
    with mock.patch.object(tasks.finalization, "run_hook", call):
        result = tasks.run_finalizer.apply((7, "ratings"))
    assert (result.state, result.result, len(calls)) == ("SUCCESS", True, 3)


def test_a_timer_is_retried_through_a_dropped_connection() -> None:
    call, calls = flaky([OperationalError("server closed the connection")], True)
    with mock.patch.object(tasks, "table_enforce_deadline", call):
        result = tasks.enforce_turn.apply((7, 12, "2026-11-30T20:00:00+00:00"))
    assert (result.state, result.result, len(calls)) == ("SUCCESS", True, 2)


def test_other_errors_are_not_retried() -> None:
    call, calls = flaky([ValueError("a bug, not a blip")], True)
    with mock.patch.object(tasks.finalization, "run_hook", call):
        result = tasks.run_finalizer.apply((7, "ratings"))
    assert (result.state, len(calls)) == ("FAILURE", 1)
    assert isinstance(result.result, ValueError)


def test_retries_give_up_after_their_limit() -> None:
    error = OperationalError("the database is down")
    call, calls = flaky([error] * 20, True)
    with mock.patch.object(tasks.finalization, "run_hook", call):
        result = tasks.run_finalizer.apply((7, "ratings"))
    assert result.state == "FAILURE"
    assert len(calls) == tasks.run_finalizer.max_retries + 1


@pytest.mark.parametrize("task", TASKS, ids=lambda t: t.name)
def test_tasks_back_off_and_are_acknowledged_once_handled(task: Any) -> None:
    assert set(task.autoretry_for) == {OperationalError, InterfaceError}
    assert task.retry_backoff and task.retry_jitter and task.retry_backoff_max == 30
    # A worker that dies mid-task leaves the message to be delivered again.
    assert task.acks_late and task.reject_on_worker_lost
