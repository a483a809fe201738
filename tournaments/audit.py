"""The event's audit log: every organizer's action, and the event's own (its schedule's)."""

from __future__ import annotations

from typing import Any

from accounts.models import User
from tournaments.models import AuditEntry, Tournament
from tournaments.push import on_commit_event


def audit(
    event: Tournament, actor: User | None, action: AuditEntry.Action, details: dict[str, Any]
) -> None:
    """Log an organizer's action (or the service's own, ``actor`` None), and tell the event's
    watchers: every audited action changes what the event page shows."""
    AuditEntry.objects.create(tournament=event, actor=actor, action=action, details=details)
    on_commit_event(event.pk, action)
