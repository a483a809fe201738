"""The Celery worker and beat SIGKILLed while turn timers wait in the worker (docs/faults.md).

A timer waits for its deadline inside the worker, unacknowledged; Redis would hand it to
another worker only after the visibility timeout (3 hours), so what plays the overdue turns once
a worker and beat are back is the sweep. Each overdue turn must be played exactly once, even
when the dead worker's timers turn up after all.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta

import pytest
from django.utils import timezone

from games.models import Table, TableEvent
from games.timers import ENFORCE_TURN, send
from tests.faults.stack import needs_services
from tests.games.tables import players, started_table
from tests.games.workers import Stack, make_tmp, wait_for

pytestmark = [needs_services, pytest.mark.django_db(transaction=True)]

TABLES = 4
SWEEP = {"CLOCK_SWEEP_SECONDS": "1", "CLOCK_SWEEP_GRACE_SECONDS": "0.5"}


@pytest.fixture
def stack() -> Iterator[Stack]:
    running = Stack(make_tmp())
    running.purge()  # timers other tests left on this run's queue
    yield running
    running.close()


def timed(table: Table) -> list[TableEvent]:
    """The turns the server played when their deadline passed, in order."""
    rows = TableEvent.objects.filter(table=table, kind="timeout").order_by("version")
    return [r for r in rows if not r.data.get("absent")]


def test_turns_overdue_while_the_worker_was_dead_are_each_played_once(stack: Stack) -> None:
    stack.start(beat=True, **SWEEP)
    tables = [
        started_table(players(f"a{i}", f"b{i}"), overrides={"turn_seconds": 2})
        for i in range(TABLES)
    ]
    wait_for(lambda: stack.received(ENFORCE_TURN) >= TABLES, what="the worker to hold the timers")
    stack.kill()
    for table in tables:
        table.refresh_from_db()
    turns = {t.pk: (t.version, t.deadline) for t in tables}
    last = max(deadline for _, deadline in turns.values())
    wait_for(lambda: timezone.now() > last + timedelta(seconds=1), what="every deadline to pass")
    assert not TableEvent.objects.filter(kind="timeout").exists()  # nobody played them

    stack.start(beat=True, **SWEEP)
    wait_for(lambda: all(timed(t) for t in tables), what="the sweep to play the overdue turns")
    for table in tables:  # the dead worker's timers, delivered after all
        version, deadline = turns[table.pk]
        send(ENFORCE_TURN, (table.pk, version, deadline.isoformat()))
    # The next turn of each table, timed by the new worker; and those late timers run.
    wait_for(lambda: all(len(timed(t)) >= 2 for t in tables), what="two turns played per table")
    wait_for(lambda: stack.done(ENFORCE_TURN) >= 2 * TABLES, what="every timer to run")
    stack.stop()

    for i, table in enumerate(tables):
        overdue = timed(table)[0]
        assert (overdue.player, overdue.data["by"]) == (f"a{i}", "sweep")
        assert datetime.fromisoformat(overdue.data["deadline"]) == turns[table.pk][1]
        assert overdue.data["late_ms"] >= 1000
        played = [r.data["deadline"] for r in timed(table)]
        assert len(set(played)) == len(played), "a turn was played twice"
        kinds = TableEvent.objects.filter(table=table).order_by("version")
        assert list(kinds.values_list("kind", flat=True)) == ["start"] + ["timeout"] * len(played)
