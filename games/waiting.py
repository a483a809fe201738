"""Waiting tables are bounded: a cap on those one player sits at, and an age past which the
sweep closes them.

Without either, one account could open tables until the lobby's list showed only theirs (the
lobby lists a bounded number of waiting tables), and a table nobody joins would wait for ever.
The cap is a precondition of ``table_create`` and ``table_join``
(``games.refusals.waiting_cap_refusal``), counted while holding the player's row lock
(``lock_player``), so two calls at once cannot both take the last place. Tables an event or
quick play opens start at once, so they never wait and are not capped. A table closed for age
ends ``aborted``, as a table whose last player left does, so the lobby, the table page and its
socket already know what it means.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from accounts.models import User
from games import push
from games.models import Table
from games.record import lock_table


def lock_player(user: User) -> None:
    """Hold ``user``'s row until the transaction ends: one player's seat-taking calls run one
    at a time, so the cap is counted on what the others committed. Call inside
    ``transaction.atomic``, after any table lock (the order every caller keeps)."""
    # NO KEY: rows other transactions insert that point at the user (their seats, log rows)
    # need not wait for it; two of these still exclude each other (as ``lobby.services``'s).
    list(User.objects.select_for_update(no_key=True).filter(pk=user.pk).values_list("pk"))


def expired_waiting_ids(now: datetime, *, limit: int) -> list[int]:
    """Waiting tables opened more than ``WAITING_TABLE_EXPIRY_SECONDS`` before ``now``."""
    cutoff = now - timedelta(seconds=settings.WAITING_TABLE_EXPIRY_SECONDS)
    rows = Table.objects.filter(status=Table.Status.WAITING, created_at__lt=cutoff)
    return list(rows.order_by("created_at").values_list("pk", flat=True)[:limit])


def table_expire(table_id: int, now: datetime) -> bool:
    """Close a table that has waited too long (``aborted``), and tell its page and the lobby;
    whether it did. Read again under the lock: one that started or closed meanwhile is left."""
    cutoff = now - timedelta(seconds=settings.WAITING_TABLE_EXPIRY_SECONDS)
    with transaction.atomic():
        table = lock_table(table_id)
        if table.status != Table.Status.WAITING or table.created_at >= cutoff:
            return False
        table.status = Table.Status.ABORTED
        table.finished_at = timezone.now()
        table.save(update_fields=["status", "finished_at"])
        push.on_commit_table(table)
    return True
