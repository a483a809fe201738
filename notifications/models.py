"""A user's notices (the bell and the notifications page) and their choice of emails.

A notice is made once: ``key`` names what it is about (the event and what happened, the table
offered again) and is unique per user, so a trigger that fires twice, or two sweeps that
overlap, leave one row, and only the insert that made it pushes and mails.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models


class Kind(models.TextChoices):
    """What a notice is about; each kind's email can be turned off (``EmailSetting``)."""

    TABLE_READY = "table_ready", "Your event's table is ready"
    CHECK_IN_OPEN = "check_in_open", "Check-in has opened"
    STARTS_SOON = "starts_soon", "Your event starts in ten minutes"
    REMATCH_OFFER = "rematch_offer", "A rematch offer"
    EVENT_STALLED = "event_stalled", "Your event's result could not be recorded"


class Notification(models.Model):
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notifications"
    )
    kind = models.CharField(max_length=20, choices=Kind.choices)
    text = models.CharField(max_length=300, help_text="Plain text, escaped wherever shown.")
    link = models.CharField(max_length=300, help_text="A path on this site, e.g. /tables/7/.")
    key = models.CharField(max_length=120, help_text="What it is about: one notice per user.")
    created_at = models.DateTimeField(auto_now_add=True)
    read_at = models.DateTimeField(null=True, blank=True)
    emailed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(fields=["user", "key"], name="one_notification_per_key")
        ]
        indexes = [
            models.Index(fields=["user", "-created_at"], name="notification_user_created"),
            models.Index(
                fields=["user"], name="notification_user_unread", condition=models.Q(read_at=None)
            ),
        ]

    def __str__(self) -> str:
        return f"{self.user}: {self.text}"


class EmailSetting(models.Model):
    """Whether ``user`` gets emails of ``kind``; no row means yes."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="email_settings"
    )
    kind = models.CharField(max_length=20, choices=Kind.choices)
    email = models.BooleanField(default=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "kind"], name="one_email_setting_per_kind")
        ]

    def __str__(self) -> str:
        return f"{self.user}: {self.kind} {'on' if self.email else 'off'}"
