"""Events: a tournament, its entries, its rounds and their tables, what organizers did.

The pairing and bracket logic is pure (``tournaments.formats``); these rows are what it reads
(entries with their seeds, each round's plan and results) and what it produced. A round's plan is
stored as the format gave it, so standings and the next round are always recomputed from the
stored rounds, never from a cache that could drift.
"""

from __future__ import annotations

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q
from django.urls import reverse

from games.engine.rules import MAX_PLAYERS, MIN_PLAYERS

FORMAT_CHOICES = [
    ("single_elimination", "Single elimination"),
    ("double_elimination", "Double elimination"),
    ("round_robin", "Round robin"),
    ("swiss", "Swiss"),
    ("multi_table_elimination", "Multi-table elimination"),
    ("swiss_tables", "Swiss tables"),
]


class Tournament(models.Model):
    """An event: its rules and clock, its format, who may enter, and where it stands."""

    class Status(models.TextChoices):
        DRAFT = "draft", "Draft"
        REGISTRATION = "registration", "Registration open"
        CHECK_IN = "check_in", "Check-in open"
        RUNNING = "running", "Running"
        FINISHED = "finished", "Finished"
        CANCELLED = "cancelled", "Cancelled"

    class Seeding(models.TextChoices):
        RATING = "rating", "By rating"
        HAND = "hand", "By hand"
        RANDOM = "random", "At random"

    name = models.CharField(max_length=120)
    slug = models.SlugField(max_length=120, unique=True)
    description = models.TextField(blank=True)
    club = models.ForeignKey(
        "accounts.Club",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="tournaments",
        help_text="The club running it: its admins organize it and its tables count in its pool.",
    )
    ruleset = models.ForeignKey("games.RuleSet", on_delete=models.PROTECT, related_name="+")
    overrides = models.JSONField(default=dict, blank=True, help_text="Rule fields changed.")
    turn_seconds = models.PositiveIntegerField(default=60)
    time_bank_seconds = models.PositiveIntegerField(default=0)
    rated = models.BooleanField(default=True)
    format = models.CharField(max_length=30, choices=FORMAT_CHOICES)
    table_size = models.PositiveSmallIntegerField(
        default=2, validators=[MinValueValidator(MIN_PLAYERS), MaxValueValidator(MAX_PLAYERS)]
    )
    rounds = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="Swiss formats: how many rounds (empty: the default)."
    )
    options = models.JSONField(
        default=dict,
        blank=True,
        help_text="Format settings: third_place, grand_final_reset, double_round, advance, "
        "min_table, placement_points.",
    )
    seeding = models.CharField(max_length=10, choices=Seeding.choices, default=Seeding.RATING)
    random_seed = models.CharField(
        max_length=64, blank=True, help_text="The seed of a random seeding, kept for checking."
    )
    online = models.BooleanField(
        default=True,
        help_text="Play at online tables (off: played face to face, results entered by an admin).",
    )
    auto_advance = models.BooleanField(
        default=True, help_text="Start each next round by itself (else it waits for an organizer)."
    )
    registration_opens_at = models.DateTimeField(null=True, blank=True)
    registration_closes_at = models.DateTimeField(null=True, blank=True)
    check_in_opens_at = models.DateTimeField(null=True, blank=True)
    check_in_closes_at = models.DateTimeField(null=True, blank=True)
    starts_at = models.DateTimeField(null=True, blank=True)
    max_players = models.PositiveIntegerField(null=True, blank=True)
    min_rating = models.FloatField(null=True, blank=True)
    max_rating = models.FloatField(null=True, blank=True)
    min_rated_games = models.PositiveIntegerField(default=0)
    members_only = models.BooleanField(default=False, help_text="Only the club's members enter.")
    status = models.CharField(
        max_length=12, choices=Status.choices, default=Status.DRAFT, db_index=True
    )
    admins = models.ManyToManyField(
        settings.AUTH_USER_MODEL,
        blank=True,
        related_name="organized_tournaments",
        help_text="Event admins besides staff and the club's admins.",
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    paused_at = models.DateTimeField(null=True, blank=True)
    published_at = models.DateTimeField(
        null=True,
        blank=True,
        help_text="When registration opened and the event became public. A draft cancelled "
        "before that never was, and stays its organizers' only.",
    )
    champion = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    standings = models.JSONField(
        default=list, blank=True, help_text="The standings as of the last finished round."
    )

    class Meta:
        ordering = ["-starts_at", "-created_at"]

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("tournaments:detail", args=[self.slug])

    @property
    def private(self) -> bool:
        """Seen by its organizers only: a draft, or a draft that was cancelled (``PRIVATE``)."""
        return self.status == self.Status.DRAFT or (
            self.status == self.Status.CANCELLED and self.published_at is None
        )


class Entry(models.Model):
    """A player's place in an event, from registration to the final standings."""

    class Status(models.TextChoices):
        REGISTERED = "registered", "Registered"
        CHECKED_IN = "checked_in", "Checked in"
        PLAYING = "playing", "Playing"
        WITHDRAWN = "withdrawn", "Withdrawn"
        DISQUALIFIED = "disqualified", "Disqualified"
        NO_SHOW = "no_show", "Did not check in"

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="entries")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="tournament_entries"
    )
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.REGISTERED)
    seed = models.PositiveIntegerField(null=True, blank=True)
    hand_seed = models.PositiveIntegerField(
        null=True, blank=True, help_text="An organizer's seed, for seeding by hand."
    )
    rating = models.FloatField(null=True, blank=True, help_text="In the event's pool at start.")
    registered_at = models.DateTimeField(auto_now_add=True)
    checked_in_at = models.DateTimeField(null=True, blank=True)
    left_at = models.DateTimeField(null=True, blank=True)
    reason = models.TextField(blank=True, help_text="Why an organizer withdrew or disqualified.")

    class Meta:
        ordering = ["tournament", "seed", "registered_at"]
        constraints = [
            models.UniqueConstraint(fields=["tournament", "user"], name="one_entry_per_player")
        ]
        verbose_name_plural = "entries"

    def __str__(self) -> str:
        return f"{self.user} in {self.tournament}"

    @property
    def active(self) -> bool:
        """Still in the event's play (not withdrawn, disqualified or a no-show)."""
        return self.status in (self.Status.CHECKED_IN, self.Status.PLAYING)


#: The events ``Tournament.private`` names, as a filter.
PRIVATE = Q(status=Tournament.Status.DRAFT) | Q(
    status=Tournament.Status.CANCELLED, published_at__isnull=True
)


class Round(models.Model):
    """One round as the format planned it; ``pending`` until its tables are opened."""

    class Status(models.TextChoices):
        PENDING = "pending", "Waiting to start"
        RUNNING = "running", "Running"
        FINISHED = "finished", "Finished"

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="round_set")
    number = models.PositiveSmallIntegerField()
    name = models.CharField(max_length=120)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    byes = models.JSONField(default=list, blank=True, help_text="Entry ids sitting out.")
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["tournament", "number"]
        constraints = [
            models.UniqueConstraint(fields=["tournament", "number"], name="one_round_per_number")
        ]

    def __str__(self) -> str:
        return f"{self.tournament}: {self.name}"


class RoundTable(models.Model):
    """One table (or match) of a round: who sits, the game played there, and its result."""

    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="tables")
    index = models.PositiveSmallIntegerField()
    key = models.CharField(max_length=30, blank=True)
    players = models.JSONField(help_text="Entry ids in seat order.")
    table = models.OneToOneField(
        "games.Table",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="tournament_table",
    )
    places = models.JSONField(null=True, blank=True, help_text="Per player: 1 best, ties equal.")
    points = models.JSONField(null=True, blank=True, help_text="Per player: game points.")
    adjudicated = models.TextField(blank=True, help_text="An organizer's reason, if decided.")
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["round", "index"]
        constraints = [
            models.UniqueConstraint(fields=["round", "index"], name="one_table_per_index")
        ]

    def __str__(self) -> str:
        return f"{self.round} table {self.index + 1}"

    @property
    def done(self) -> bool:
        return self.places is not None


class Announcement(models.Model):
    tournament = models.ForeignKey(
        Tournament, on_delete=models.CASCADE, related_name="announcements"
    )
    text = models.TextField()
    author = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return self.text[:60]


class AuditEntry(models.Model):
    """Every organizer action on an event, who did it and with what."""

    class Action(models.TextChoices):
        """What was done; a move of the event or an entry logs the status it moved to."""

        CREATE = "create", "Created"
        EDIT = "edit", "Edited"
        REGISTRATION = "registration", "Registration opened"
        CHECK_IN = "check_in", "Check-in opened"
        CLOSE_WINDOW = "close_window", "Window closed"
        START = "start", "Started"
        PAUSE = "pause", "Paused"
        RESUME = "resume", "Resumed"
        START_ROUND = "start_round", "Round started"
        RESEAT = "reseat", "Round re-seated"
        SEED = "seed", "Seeding set by hand"
        ADJUDICATE = "adjudicate", "Table adjudicated"
        ENTER_RESULT = "enter_result", "Result entered"
        WITHDRAWN = "withdrawn", "Player withdrawn"
        DISQUALIFIED = "disqualified", "Player disqualified"
        ANNOUNCE = "announce", "Announcement"
        FINISH = "finish", "Finished"
        STALLED = "stalled", "Table's result stuck"
        RETRY = "retry", "Table's result retried"
        CANCELLED = "cancelled", "Cancelled"

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="audit")
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, related_name="+"
    )
    action = models.CharField(max_length=40, choices=Action.choices)
    details = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name_plural = "audit entries"

    def __str__(self) -> str:
        return f"{self.action} by {self.actor} on {self.tournament}"
