"""Ratings: one per player per pool, the ledger of rated games, and every change.

Everything here is derived from finished games (DESIGN.md: the log is the truth) and
``ratings_recompute`` rebuilds it. ``RatingBucket`` keeps how many players sit in each whole
rating point of a pool, so a player's rank is a sum over about two thousand buckets instead of a
count over a million ratings.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

from ratings.elo import START
from ratings.glicko import START_DEVIATION, provisional


class Pool(models.Model):
    """Who is compared with whom: everyone, the games of one rule preset, or one club's."""

    class Kind(models.TextChoices):
        GLOBAL = "global", "Global"
        RULESET = "ruleset", "Rule preset"
        CLUB = "club", "Club"

    kind = models.CharField(max_length=10, choices=Kind.choices)
    ruleset = models.ForeignKey(
        "games.RuleSet", on_delete=models.CASCADE, null=True, blank=True, related_name="+"
    )
    club = models.ForeignKey(
        "accounts.Club", on_delete=models.CASCADE, null=True, blank=True, related_name="+"
    )

    class Meta:
        ordering = ["kind", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["kind"], condition=Q(kind="global"), name="one_global_pool"
            ),
            models.UniqueConstraint(
                fields=["ruleset"], condition=Q(kind="ruleset"), name="one_pool_per_ruleset"
            ),
            models.UniqueConstraint(
                fields=["club"], condition=Q(kind="club"), name="one_pool_per_club"
            ),
            models.CheckConstraint(
                condition=Q(kind="global", ruleset__isnull=True, club__isnull=True)
                | Q(kind="ruleset", ruleset__isnull=False, club__isnull=True)
                | Q(kind="club", ruleset__isnull=True, club__isnull=False),
                name="pool_kind_matches_its_key",
            ),
        ]

    def __str__(self) -> str:
        return self.key

    @property
    def key(self) -> str:
        """``global``, ``ruleset:<slug>`` or ``club:<slug>``: how commands and pages name it.
        (The check constraint ties the kind to the one key that is set.)"""
        if self.ruleset is not None:
            return f"ruleset:{self.ruleset.slug}"
        if self.club is not None:
            return f"club:{self.club.slug}"
        return "global"

    @property
    def label(self) -> str:
        if self.ruleset is not None:
            return f"{self.ruleset.name} rules"
        if self.club is not None:
            return self.club.name
        return "Everyone"


class Rating(models.Model):
    """A player's current rating in a pool; a row exists once they have a rated game there."""

    # No index of its own: the unique (pool, user) and the board's index both start with it.
    pool = models.ForeignKey(Pool, on_delete=models.CASCADE, related_name="ratings", db_index=False)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="ratings"
    )
    rating = models.FloatField(default=START)
    games = models.PositiveIntegerField(default=0)
    peak = models.FloatField(default=START, help_text="The highest rating reached.")
    last_played_at = models.DateTimeField(null=True, blank=True)
    deviation = models.FloatField(
        default=START_DEVIATION,
        help_text="How far off the rating may be, as of the player's last game in the pool.",
    )

    class Meta:
        ordering = ["pool", "-rating", "user"]
        constraints = [
            models.UniqueConstraint(fields=["pool", "user"], name="one_rating_per_pool"),
        ]
        indexes = [
            # The leaderboard's order: the top 100 is the first 100 entries of this index.
            models.Index(fields=["pool", "-rating", "user"], name="rating_board"),
            # "Played this month" boards.
            models.Index(fields=["pool", "last_played_at"], name="rating_recent"),
        ]

    def __str__(self) -> str:
        return f"{self.user} {self.rating:.0f} in {self.pool}"

    @property
    def provisional(self) -> bool:
        return provisional(self.deviation)


class RatedGame(models.Model):
    """The ledger: one row per finished rated table the ratings have taken in, in the order
    they did (its id). ``counted`` is false for a game that fewer than two players ever acted
    in, which changes nobody's rating. ``ratings_recompute`` replays the ledger in this order,
    so it reproduces the incremental path exactly."""

    table = models.OneToOneField("games.Table", on_delete=models.CASCADE, related_name="rated_game")
    counted = models.BooleanField(default=True)
    finished_at = models.DateTimeField()
    rated_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return f"rated game {self.pk} (table {self.table_id})"


class RatingChange(models.Model):
    """One player's rating before and after one rated game in one pool."""

    game = models.ForeignKey(RatedGame, on_delete=models.CASCADE, related_name="changes")
    table = models.ForeignKey("games.Table", on_delete=models.CASCADE, related_name="+")
    # No indexes of their own: ``rating_change_pool`` and ``rating_change_history`` start with
    # them (at ten million changes the two would cost 150 MB and slow every insert).
    pool = models.ForeignKey(Pool, on_delete=models.CASCADE, related_name="changes", db_index=False)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="rating_changes",
        db_index=False,
    )
    before = models.FloatField()
    after = models.FloatField()
    deviation_before = models.FloatField(
        default=START_DEVIATION,
        help_text="The deviation brought to the game: grown by the drift and the time away.",
    )
    deviation_after = models.FloatField(default=START_DEVIATION)
    k = models.FloatField(help_text="The K of Elo's formula that the change amounts to.")
    place = models.PositiveSmallIntegerField(help_text="The place rated: absent players last.")
    table_size = models.PositiveSmallIntegerField()
    at = models.DateTimeField(help_text="When the game finished.")

    class Meta:
        ordering = ["game", "pool", "user"]
        indexes = [
            # A player's history in a pool, newest first; also their games in a period.
            models.Index(fields=["user", "pool", "-game"], name="rating_change_history"),
            models.Index(fields=["pool", "game"], name="rating_change_pool"),
        ]

    def __str__(self) -> str:
        return f"{self.user} {self.before:.0f} -> {self.after:.0f} (table {self.table_id})"


class RatingBucket(models.Model):
    """How many players of a pool have a rating in ``[bucket, bucket + 1)``: all of them, and
    those no longer provisional (by their deviation as of their last game). Kept in the same
    transaction as the ratings themselves."""

    pool = models.ForeignKey(Pool, on_delete=models.CASCADE, related_name="buckets")
    bucket = models.IntegerField()
    players = models.IntegerField(default=0)
    established = models.IntegerField(default=0)

    class Meta:
        ordering = ["pool", "-bucket"]
        constraints = [
            models.UniqueConstraint(fields=["pool", "bucket"], name="one_bucket_per_point"),
        ]

    def __str__(self) -> str:
        return f"{self.pool} [{self.bucket}]: {self.players}"
