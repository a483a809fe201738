"""Quick play's rows: who waits in which pool (and the table of their last match), one row per
pool to serialize its matching, and how many lobby sockets each player has open."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class PoolEntry(models.Model):
    """A player's place in quick play: waiting in one pool, or matched to ``table``.

    One row per player (the primary key is the user), so a player waits in at most one pool:
    joining another moves the row. Kept after a match, so ``GET /api/pools/me/`` can name the
    table of the last match.
    """

    class Status(models.TextChoices):
        WAITING = "waiting", "Waiting"
        MATCHED = "matched", "Matched"

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, primary_key=True, related_name="+"
    )
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.WAITING)
    ruleset = models.CharField(max_length=60, help_text="The pool's rule set (a preset's slug).")
    seats = models.PositiveSmallIntegerField()
    turn_seconds = models.PositiveIntegerField()
    rating = models.FloatField(help_text="The player's rating in the rule set's pool at joining.")
    joined_at = models.DateTimeField(help_text="When the wait began: the window widens from it.")
    table = models.ForeignKey(
        "games.Table", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    matched_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [
            models.Index(
                fields=["status", "ruleset", "seats", "turn_seconds"], name="pool_entry_pool"
            )
        ]

    def __str__(self) -> str:
        return f"{self.user_id} {self.status} in {self.ruleset}-{self.seats}-{self.turn_seconds}"


class PoolLock(models.Model):
    """One row per pool, locked (``select_for_update``) by whoever changes who waits in it:
    joins, leaves and matching of one pool run one at a time, so a waiter is matched once."""

    key = models.CharField(max_length=100, unique=True)

    def __str__(self) -> str:
        return self.key


class LobbyPresence(models.Model):
    """How many lobby sockets a player has open, and since when none: a waiter with no socket
    for ``lobby.services.ABSENT_GRACE_SECONDS`` leaves the pool (the sweep)."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, primary_key=True, related_name="+"
    )
    sockets = models.PositiveIntegerField(default=0)
    closed_at = models.DateTimeField(null=True, blank=True, help_text="When the last one closed.")

    def __str__(self) -> str:
        return f"{self.user_id}: {self.sockets} lobby sockets"
