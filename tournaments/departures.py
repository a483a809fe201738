"""A player leaves a running event: by their own withdrawal (``tournaments.entries``) or an
organizer's (``tournaments.organizer``). The event's part is written under its lock; the table
they sit at is changed after commit, in its own transaction (the lock order of
``tournaments.locks``)."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from accounts.models import User
from games.hosting import table_withdraw_player
from games.models import Table
from tournaments.audit import audit
from tournaments.models import AuditEntry, Entry, Tournament

Action = AuditEntry.Action


def live_tables(event: Tournament) -> list[Table]:
    """The event's games in play."""
    return list(
        Table.objects.filter(tournament_table__round__tournament=event, status=Table.Status.PLAYING)
    )


def leave_event(
    event: Tournament, entry: Entry, status: str, *, actor: User, reason: str = ""
) -> None:
    """``entry`` leaves a running event: left out of later rounds, and absent for good at the
    table they are playing now (after commit). Call holding the event's lock."""
    entry.status = status
    entry.left_at = timezone.now()
    entry.reason = reason
    entry.save(update_fields=["status", "left_at", "reason"])
    audit(event, actor, Action(status), {"player": entry.user.username, "reason": reason})
    for table in live_tables(event):
        if table.seat_set.filter(user_id=entry.user_id).exists():
            table_id, player = table.pk, entry.user

            def withdraw(table_id: int = table_id, player: User = player) -> None:
                table_withdraw_player(table_id=table_id, player=player, actor=actor, reason=reason)

            transaction.on_commit(withdraw, robust=True)
