"""Chat rooms: messages kept by room key, each reader's mutes, and a room's on/off switch.

A room is only a key (``table:12:players``, ``table:12:spectators``, ``event:34``): the app
that owns what the key names decides who may read, write and moderate it (``chat.access``).
Messages stay with their room for as long as the table or event is kept; a deleted message
keeps its row (who deleted it, and when) but is never shown again.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models

# Characters: a line or two, more than lichess's 140, enough to say something at a table.
MAX_TEXT = 300
MAX_ROOM_KEY = 64


class ChatMessage(models.Model):
    room = models.CharField(max_length=MAX_ROOM_KEY)
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="chat_messages"
    )
    text = models.CharField(max_length=MAX_TEXT, help_text="As typed, stripped; escaped on output")
    created = models.DateTimeField()
    deleted_at = models.DateTimeField(null=True, blank=True)
    deleted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )

    class Meta:
        indexes = [
            # A room's history, newest first, and one author's recent messages in a room (the
            # rate limit).
            models.Index(fields=["room", "-created"], name="chat_room_created"),
            models.Index(fields=["author", "room", "-created"], name="chat_author_room"),
        ]

    def __str__(self) -> str:
        return f"{self.room} #{self.pk}"


class ChatMute(models.Model):
    """``user`` no longer receives ``muted``'s messages, in any room."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    muted = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "muted"], name="chat_mute_once")]

    def __str__(self) -> str:
        return f"{self.user_id} mutes {self.muted_id}"


class ChatRoom(models.Model):
    """A room's switch, written only when a moderator turns it off (or on again)."""

    key = models.CharField(max_length=MAX_ROOM_KEY, unique=True)
    enabled = models.BooleanField(default=True)
    changed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    changed_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"{self.key} ({'on' if self.enabled else 'off'})"
