"""The chat's socket groups and its pushes (after commit, through ``config.push``).

A room's group has every socket that reads it; a user's mute group has every chat-reading socket
of that user. A push to a room is shared by all its readers, so it carries the author's id and
each connection leaves out what its own reader muted (``chat.socket``).
"""

from __future__ import annotations

from typing import Any

from django.db import transaction

from chat.payloads import ChatMessageOutput
from config.push import group_send


def room_group(key: str) -> str:
    """``table:12:players`` -> ``chat.table.12.players`` (a group name allows no colon)."""
    return "chat." + key.replace(":", ".")


def mutes_group(user_id: int) -> str:
    return f"chat.mutes.{user_id}"


def _on_commit(group: str, message: dict[str, Any]) -> None:
    transaction.on_commit(lambda: group_send(group, message))


def on_commit_message(key: str, author_id: int, message: ChatMessageOutput) -> None:
    _on_commit(
        room_group(key),
        {"type": "chat.message", "room": key, "author_id": author_id, "message": message},
    )


def on_commit_deleted(key: str, message_id: int) -> None:
    _on_commit(room_group(key), {"type": "chat.deleted", "room": key, "id": message_id})


def on_commit_switch(key: str, enabled: bool) -> None:
    _on_commit(room_group(key), {"type": "chat.switch", "room": key, "enabled": enabled})


def on_commit_mutes(user_id: int) -> None:
    _on_commit(mutes_group(user_id), {"type": "chat.mutes"})
