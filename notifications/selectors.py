"""Reads of a user's notices and email settings."""

from __future__ import annotations

from typing import cast

from accounts.models import User
from notifications.models import EmailSetting, Kind, Notification
from notifications.payloads import (
    EmailSettingsOutput,
    NotificationListOutput,
    NotificationOutput,
)


def unread_count(user_id: int) -> int:
    return Notification.objects.filter(user_id=user_id, read_at__isnull=True).count()


def notification_payload(notice: Notification) -> NotificationOutput:
    return {
        "id": notice.pk,
        "kind": notice.kind,
        "text": notice.text,
        "link": notice.link,
        "created": notice.created_at.isoformat(),
        "read_at": notice.read_at.isoformat() if notice.read_at else None,
    }


def notifications_recent(user: User, limit: int, offset: int = 0) -> list[Notification]:
    return list(Notification.objects.filter(user=user)[offset : offset + limit])


def notifications_page(user: User, limit: int, offset: int) -> NotificationListOutput:
    return {
        "count": Notification.objects.filter(user=user).count(),
        "unread": unread_count(user.pk),
        "limit": limit,
        "offset": offset,
        "results": [notification_payload(n) for n in notifications_recent(user, limit, offset)],
    }


def email_settings(user: User) -> EmailSettingsOutput:
    """Each kind's email on or off for ``user`` (on unless turned off)."""
    chosen = dict(EmailSetting.objects.filter(user=user).values_list("kind", "email"))
    return cast(EmailSettingsOutput, {kind: chosen.get(kind, True) for kind in Kind.values})


def email_wanted(user_id: int, kind: str) -> bool:
    return not EmailSetting.objects.filter(user_id=user_id, kind=kind, email=False).exists()
