"""Celery tasks of the tables: the turn timer, the sweep, the finalization of a game and the
push of an expired rematch offer.

Each task parses its arguments and calls one service. Every one is idempotent, so a message
delivered twice, or a timer and the sweep arriving together, has its effect once. Database errors
that may pass (a dropped connection, a failover, a serialization failure) are retried with
exponential backoff.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from celery import shared_task
from django.conf import settings
from django.db import InterfaceError, OperationalError
from django.utils import timezone

from games import finalization, timers, waiting
from games.clock_services import overdue_table_ids, table_enforce_deadline
from games.rematch import rematch_expiry_push

TRANSIENT = (OperationalError, InterfaceError)
_RETRY = {
    # Acknowledged only once done: a worker that dies mid-task leaves it to be delivered again.
    "acks_late": True,
    "reject_on_worker_lost": True,
    "autoretry_for": TRANSIENT,
    "retry_backoff": 0.5,
    "retry_backoff_max": 30,
    "retry_jitter": True,
    "max_retries": 8,
}


@shared_task(name=timers.ENFORCE_TURN, **_RETRY)
def enforce_turn(table_id: int, version: int, deadline: str) -> bool:
    """The timer of one turn (set when it began, for ``deadline``). ``version`` is the table's
    version when it was set, kept for the logs."""
    return table_enforce_deadline(table_id, deadline=datetime.fromisoformat(deadline))


@shared_task(name="games.tasks.sweep", **_RETRY)
def sweep() -> dict[str, int]:
    """The safety net run by beat every ``CLOCK_SWEEP_SECONDS``: play every turn whose deadline
    passed more than ``CLOCK_SWEEP_GRACE_SECONDS`` ago (its timer lost with a worker, a message
    or a restart), send again every finalization left undone, and close the waiting tables
    past ``WAITING_TABLE_EXPIRY_SECONDS``."""
    now = timezone.now()
    grace = timedelta(seconds=settings.CLOCK_SWEEP_GRACE_SECONDS)
    enforced = 0
    for table_id in overdue_table_ids(now, grace=grace, limit=settings.CLOCK_SWEEP_LIMIT):
        enforced += table_enforce_deadline(table_id, by="sweep")
    pending = finalization.unfinalized(
        now,
        settle=timedelta(seconds=settings.FINALIZE_SETTLE_SECONDS),
        window=timedelta(days=1),
        limit=settings.CLOCK_SWEEP_LIMIT,
    )
    for table_id, hook in pending:
        timers.send(timers.RUN_FINALIZER, (table_id, hook))
    expired = sum(
        waiting.table_expire(table_id, now)
        for table_id in waiting.expired_waiting_ids(now, limit=settings.CLOCK_SWEEP_LIMIT)
    )
    return {"enforced": enforced, "finalizations": len(pending), "expired": expired}


@shared_task(name=timers.FINALIZE_GAME, **_RETRY)
def finalize_game(table_id: int) -> int:
    """Fan out a finished game's hooks, one task each, so one failing never holds the others."""
    names = finalization.hook_names()
    for name in names:
        timers.send(timers.RUN_FINALIZER, (table_id, name))
    return len(names)


@shared_task(name=timers.RUN_FINALIZER, **_RETRY)
def run_finalizer(table_id: int, hook: str) -> bool:
    return finalization.run_hook(table_id, hook)


@shared_task(name=timers.REMATCH_EXPIRED, **_RETRY)
def rematch_expired(table_id: int, expires: str) -> bool:
    """Show open pages that a rematch offer has expired. ``expires`` is the offer's end when the
    task was set, kept for the logs: the service reads the offer again."""
    return rematch_expiry_push(table_id)
