"""Finalization hooks: what other apps do once a game is over (update ratings, advance a
tournament), each run once per game as its own Celery task.

``games`` never imports the apps that listen (DESIGN.md): they register a hook by name, usually
in their ``AppConfig.ready``::

    @finalization.register("ratings")
    def rate(result: GameResult) -> None: ...

``run_hook`` runs one hook for one finished game inside a transaction that first writes its
``FinalizerRun`` row. The row is unique per table and hook, and it commits or rolls back with the
hook's own writes, so a task delivered twice, or run by two workers at once, has its effect once.

A hook that raises is rolled back and its failure kept (``FinalizerFailure``): one error line in
the log with the reason, and the sweep (``unfinalized``) sends it again after a delay that
doubles each time. After ``FINALIZE_MAX_ATTEMPTS`` it is given up: the sweep sends it no more
and the listeners of ``on_given_up`` are told (the tournaments app tells the event's
organizers, whose page shows it); ``retry`` starts it over once the cause is fixed. A database
error that may pass (a dropped connection) is not the hook's fault: it is raised for the task to
retry, and not counted.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime, timedelta

from django.conf import settings
from django.db import InterfaceError, OperationalError, transaction
from django.db.models import Q
from django.utils import timezone

from games import timers
from games.models import FinalizerFailure, FinalizerRun, GameResult, Table

logger = logging.getLogger(__name__)

Hook = Callable[[GameResult], None]
GivenUp = Callable[[FinalizerFailure], None]

#: Database errors that may pass: the task retries them (``games.tasks``), uncounted.
TRANSIENT = (OperationalError, InterfaceError)

_hooks: dict[str, Hook] = {}
_given_up: list[GivenUp] = []


def register(name: str) -> Callable[[Hook], Hook]:
    """Decorator: run ``hook(result)`` once for every finished game."""

    def add(hook: Hook) -> Hook:
        if name in _hooks and _hooks[name] is not hook:
            raise ValueError(f"a finalization hook named {name!r} is already registered")
        _hooks[name] = hook
        return hook

    return add


def unregister(name: str) -> None:
    _hooks.pop(name, None)


def hook_names() -> list[str]:
    return sorted(_hooks)


def on_given_up(listener: GivenUp) -> GivenUp:
    """Register ``listener(failure)``, called when a hook is given up, in the transaction that
    records it (so what it writes, and sends after commit, goes with the record). Idempotent."""
    if listener not in _given_up:
        _given_up.append(listener)
    return listener


def run_hook(table_id: int, name: str) -> bool:
    """Run hook ``name`` for the finished game of table ``table_id``, unless it has run.

    Returns whether it ran now. An unknown hook, or a table without a result, does nothing. A
    hook that raises is recorded as failed (``FinalizerFailure``) and False is returned.

    :raises OperationalError, InterfaceError: a database error that may pass, for the task to
        retry.
    """
    hook = _hooks.get(name)
    if hook is None:
        return False
    try:
        ran = _run(table_id, name, hook)
    except TRANSIENT:
        raise
    except Exception as exc:
        _failed(table_id, name, exc)
        return False
    if ran:
        FinalizerFailure.objects.filter(table_id=table_id, hook=name).delete()
    return ran


def _run(table_id: int, name: str, hook: Hook) -> bool:
    with transaction.atomic():
        # The table's row lock orders runs for one game (and orders them with its last change);
        # the unique constraint is what guarantees once. NO KEY UPDATE (PostgreSQL) still lets
        # other transactions insert rows that refer to this table: a hook rating several games
        # at once writes rows for tables whose own hooks are waiting, which under a plain
        # FOR UPDATE would deadlock against them.
        table = Table.objects.select_for_update(no_key=True).filter(pk=table_id).first()
        if table is None:
            return False
        result = GameResult.objects.filter(table=table).first()
        if result is None:
            return False
        _, created = FinalizerRun.objects.get_or_create(table=table, hook=name)
        if not created:
            return False
        hook(result)
    return True


def _failed(table_id: int, name: str, exc: Exception) -> None:
    """Count a failure of hook ``name`` for table ``table_id``: when to try again (the delay
    doubling from ``FINALIZE_SETTLE_SECONDS``), or, at ``FINALIZE_MAX_ATTEMPTS``, give up and
    tell the listeners. One error line in the log either way."""
    bound = settings.FINALIZE_MAX_ATTEMPTS
    reason = f"{type(exc).__name__}: {exc}"[:500]
    with transaction.atomic():
        failure, _ = FinalizerFailure.objects.select_for_update().get_or_create(
            table_id=table_id,
            hook=name,
            defaults={"error": reason, "failed_at": timezone.now()},
        )
        failure.attempts += 1
        failure.error, failure.failed_at = reason, timezone.now()
        given_up = failure.attempts >= bound
        delay = settings.FINALIZE_SETTLE_SECONDS * 2 ** (failure.attempts - 1)
        failure.retry_at = None if given_up else failure.failed_at + timedelta(seconds=delay)
        failure.save()
        logger.error(
            "finalization hook %s for table %s failed (attempt %d of %d%s): %s",
            name,
            table_id,
            failure.attempts,
            bound,
            ", given up" if given_up else "",
            reason,
            exc_info=failure.attempts == 1,  # the traceback once, the reason every time
        )
        if given_up:
            for listener in _given_up:
                _tell(listener, failure)


def _tell(listener: GivenUp, failure: FinalizerFailure) -> None:
    """Call one listener in a savepoint: one that fails leaves the failure recorded."""
    try:
        with transaction.atomic():
            listener(failure)
    except Exception:
        logger.exception("telling %r of the failure of %s failed", listener, failure)


def retry(table_id: int) -> list[str]:
    """Start over every hook given up for table ``table_id`` (its cause fixed): the failures
    are cleared and each hook is sent again after commit. Returns their names. Call inside a
    transaction, before taking any lock a hook's failure listener needs (an event's row)."""
    failures = FinalizerFailure.objects.filter(table_id=table_id, retry_at__isnull=True)
    # Locked first: of two retries at once, the second finds the rows gone and sends nothing.
    names = sorted(f.hook for f in failures.select_for_update())
    failures.delete()
    for name in names:

        def send(name: str = name) -> None:
            timers.send(timers.RUN_FINALIZER, (table_id, name))

        transaction.on_commit(send, robust=True)
    return names


def unfinalized(
    now: datetime, *, settle: timedelta, window: timedelta, limit: int
) -> list[tuple[int, str]]:
    """``(table_id, hook)`` pairs of games finished between ``window`` and ``settle`` ago whose
    hook has not run: the sweep sends them again (the normal path had ``settle`` to do it). A
    hook that failed waits for its ``retry_at``, and one given up is left alone."""
    found: list[tuple[int, str]] = []
    recent = GameResult.objects.filter(
        finished_at__lte=now - settle, finished_at__gte=now - window
    ).order_by("finished_at")
    for name in hook_names():
        waiting = FinalizerFailure.objects.filter(
            Q(retry_at__isnull=True) | Q(retry_at__gt=now), hook=name
        ).values("table_id")
        ids = (
            recent.exclude(table__finalizer_runs__hook=name)
            .exclude(table_id__in=waiting)
            .values_list("table_id", flat=True)
        )
        found.extend((table_id, name) for table_id in ids[:limit])
    return found
