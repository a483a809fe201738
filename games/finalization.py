"""Finalization hooks: what other apps do once a game is over (update ratings, advance a
tournament), each run once per game as its own Celery task.

``games`` never imports the apps that listen (DESIGN.md): they register a hook by name, usually
in their ``AppConfig.ready``::

    @finalization.register("ratings")
    def rate(result: GameResult) -> None: ...

``run_hook`` runs one hook for one finished game inside a transaction that first writes its
``FinalizerRun`` row. The row is unique per table and hook, and it commits or rolls back with the
hook's own writes, so a task delivered twice, or run by two workers at once, has its effect once.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta

from django.db import transaction

from games.models import FinalizerRun, GameResult, Table

Hook = Callable[[GameResult], None]

_hooks: dict[str, Hook] = {}


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


def run_hook(table_id: int, name: str) -> bool:
    """Run hook ``name`` for the finished game of table ``table_id``, unless it has run.

    Returns whether it ran now. An unknown hook, or a table without a result, does nothing.
    """
    hook = _hooks.get(name)
    if hook is None:
        return False
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


def unfinalized(
    now: datetime, *, settle: timedelta, window: timedelta, limit: int
) -> list[tuple[int, str]]:
    """``(table_id, hook)`` pairs of games finished between ``window`` and ``settle`` ago whose
    hook has not run: the sweep sends them again (the normal path had ``settle`` to do it)."""
    found: list[tuple[int, str]] = []
    recent = GameResult.objects.filter(
        finished_at__lte=now - settle, finished_at__gte=now - window
    ).order_by("finished_at")
    for name in hook_names():
        ids = recent.exclude(table__finalizer_runs__hook=name).values_list("table_id", flat=True)
        found.extend((table_id, name) for table_id in ids[:limit])
    return found
