"""Pushes to a user's own sockets (``/ws/me/``), after commit: a new notice with the unread
count, or the count alone once notices are read (so every open page's bell agrees)."""

from __future__ import annotations

from typing import Any

from django.db import transaction

from config.push import group_send
from notifications.models import Notification
from notifications.selectors import notification_payload, unread_count


def user_group(user_id: int) -> str:
    """Every socket of one user (``/ws/me/``)."""
    return f"user-{user_id}"


def _send(user_id: int, frame: dict[str, Any]) -> None:
    group_send(user_group(user_id), {"type": "user.frame", "frame": frame})


def push_notification(notice: Notification) -> None:
    frame = {
        "type": "notification",
        "notification": notification_payload(notice),
        "unread": unread_count(notice.user_id),
    }
    _send(notice.user_id, frame)


def push_unread(user_id: int) -> None:
    _send(user_id, {"type": "unread", "unread": unread_count(user_id)})


def on_commit_notification(notice: Notification) -> None:
    transaction.on_commit(lambda: push_notification(notice), robust=True)


def on_commit_unread(user_id: int) -> None:
    transaction.on_commit(lambda: push_unread(user_id), robust=True)
