"""A finalization hook that keeps failing (issue 20, item 5): each failure is counted with its
reason and one error line in the log, the sweep sends it again only when its delay (doubling)
has passed, and after ``FINALIZE_MAX_ATTEMPTS`` it is given up: never sent again by the sweep,
the listeners told once. ``finalization.retry`` starts it over."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from django.db import OperationalError
from django.test import override_settings

from games import finalization, tasks
from games.models import FinalizerFailure, FinalizerRun, GameResult, Table
from games.timers import RUN_FINALIZER
from tests.games.clocks import FakeTime, Sends, Sent, fresh
from tests.games.tables import players, started_table

pytestmark = pytest.mark.django_db

BROKEN = "broken"


@pytest.fixture
def broken() -> Iterator[list[Exception]]:
    """A registered hook ``broken`` that raises each exception put in the list, in turn, and
    runs once the list is empty."""
    failures: list[Exception] = []

    @finalization.register(BROKEN)
    def hook(result: GameResult) -> None:
        if failures:
            raise failures.pop(0)

    yield failures
    finalization.unregister(BROKEN)


@pytest.fixture
def told() -> Iterator[list[FinalizerFailure]]:
    """The failures the ``on_given_up`` listeners heard of."""
    heard: list[FinalizerFailure] = []
    listener = finalization.on_given_up(heard.append)
    yield heard
    finalization._given_up.remove(listener)


def finished(now: FakeTime) -> Table:
    """A game over: both players time out once with ``max_timeouts`` 1."""
    table = started_table(players("ann", "bob"), overrides={"max_timeouts": 1})
    for _ in range(2):
        now.at(fresh(table).deadline)
        tasks.table_enforce_deadline(table.pk)
    table = fresh(table)
    assert table.status == Table.Status.FINISHED
    return table


def swept(sent: Sends, table: Table) -> bool:
    """Whether a sweep now sends ``broken`` for ``table``."""
    sent.clear()
    tasks.sweep()
    return Sent(RUN_FINALIZER, (table.pk, BROKEN), None) in sent.all


@override_settings(FINALIZE_SETTLE_SECONDS=60, FINALIZE_MAX_ATTEMPTS=3)
def test_a_hook_that_keeps_failing_backs_off_then_is_given_up_and_told(
    now: FakeTime,
    sent: Sends,
    broken: list[Exception],
    told: list[FinalizerFailure],
    caplog: pytest.LogCaptureFixture,
) -> None:
    table = finished(now)
    broken.extend(RuntimeError("no table of 2") for _ in range(10))
    caplog.set_level(logging.ERROR, logger="games.finalization")
    assert tasks.run_finalizer(table.pk, BROKEN) is False  # the first run, at the game's end
    failure = FinalizerFailure.objects.get(table=table, hook=BROKEN)
    assert (failure.attempts, failure.error) == (1, "RuntimeError: no table of 2")
    assert failure.retry_at == now.now + timedelta(seconds=60)
    assert not FinalizerRun.objects.filter(table=table, hook=BROKEN).exists()
    for attempt, delay in ((2, 120), (3, None)):
        now.advance(seconds=59)
        assert not swept(sent, table)  # every two seconds, but not before its time
        now.advance(seconds=1)
        assert swept(sent, table)
        assert tasks.run_finalizer(table.pk, BROKEN) is False
        failure.refresh_from_db()
        assert failure.attempts == attempt
        if delay is not None:
            assert failure.retry_at == now.now + timedelta(seconds=delay)
            now.advance(seconds=60)  # the rest of the doubled delay, less the next 60
    assert failure.given_up and failure.retry_at is None
    assert [f.pk for f in told] == [failure.pk]
    now.advance(hours=1)
    assert not swept(sent, table)  # given up: the sweep sends it no more
    lines = [r for r in caplog.records if r.name == "games.finalization"]
    assert [r.getMessage() for r in lines] == [
        f"finalization hook broken for table {table.pk} failed (attempt 1 of 3): "
        "RuntimeError: no table of 2",
        f"finalization hook broken for table {table.pk} failed (attempt 2 of 3): "
        "RuntimeError: no table of 2",
        f"finalization hook broken for table {table.pk} failed (attempt 3 of 3, given up): "
        "RuntimeError: no table of 2",
    ]
    assert [bool(r.exc_info) for r in lines] == [True, False, False]


@override_settings(FINALIZE_SETTLE_SECONDS=60, FINALIZE_MAX_ATTEMPTS=2)
def test_a_retry_starts_over_and_a_run_clears_the_failure(
    now: FakeTime,
    sent: Sends,
    broken: list[Exception],
    told: list[FinalizerFailure],
    django_capture_on_commit_callbacks: Any,
) -> None:
    table = finished(now)
    broken.extend([RuntimeError("one"), RuntimeError("two")])
    assert tasks.run_finalizer(table.pk, BROKEN) is False
    assert tasks.run_finalizer(table.pk, BROKEN) is False
    assert FinalizerFailure.objects.get(table=table).given_up
    assert finalization.retry(table.pk + 1000) == []  # nothing given up there
    sent.clear()
    with django_capture_on_commit_callbacks(execute=True):
        assert finalization.retry(table.pk) == [BROKEN]
    assert not FinalizerFailure.objects.exists()
    assert sent.all == [Sent(RUN_FINALIZER, (table.pk, BROKEN), None)]
    assert tasks.run_finalizer(table.pk, BROKEN) is True  # fixed: it runs, once
    assert FinalizerRun.objects.filter(table=table, hook=BROKEN).count() == 1
    assert not FinalizerFailure.objects.exists()
    assert len(told) == 1


def test_a_database_error_that_may_pass_is_the_task_s_to_retry_uncounted(
    now: FakeTime, sent: Sends, broken: list[Exception]
) -> None:
    table = finished(now)
    broken.append(OperationalError("the connection dropped"))
    with pytest.raises(OperationalError):
        finalization.run_hook(table.pk, BROKEN)
    assert not FinalizerFailure.objects.exists()
    assert finalization.run_hook(table.pk, BROKEN) is True
