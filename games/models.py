"""Rule configurations, live tables, their seats, the append-only action log and game results.

A table's game lives in two places that must always agree: ``Table.state`` (the engine's full
state, a snapshot for fast reads) and its ``TableEvent`` rows (the truth: replaying them from the
first rebuilds the snapshot exactly, see ``games.selectors.table_rebuild``). Both are written only
by ``games.services`` while holding the table's row lock.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.urls import reverse

from config.jsontext import Decoder, Encoder
from games.engine.errors import ConfigError
from games.engine.rules import MAX_PLAYERS, MIN_PLAYERS, Rules
from games.engine.state import Ended as EngineEnded
from games.engine.state import GameState

# Every field of the engine's configuration, in the engine's order.
RULE_FIELDS: tuple[str, ...] = tuple(Rules.__dataclass_fields__)

# The break between hands: a setting of the service's clock, not of the engine's rules (no
# engine field, so the rules dict and the replay tool's output do not change). Two minutes at
# most: long enough to read a summary aloud at a club night, short enough that a forgotten
# setting never stalls a tournament round.
BETWEEN_HANDS_SECONDS = 8
BETWEEN_HANDS_SECONDS_MAX = 120
_BREAK_RANGE = [MinValueValidator(0), MaxValueValidator(BETWEEN_HANDS_SECONDS_MAX)]

# The JSON columns the server alone writes, read and written on every action: through orjson
# (``config.jsontext``), several times faster than the standard library on a snapshot.
SERVER_JSON: dict[str, Any] = {"encoder": Encoder, "decoder": Decoder}


class RuleSet(models.Model):
    """A named rule configuration: every engine field, checked by the engine itself.

    Tables copy the effective configuration when they are created, so editing a rule set never
    changes a game that has already begun.
    """

    class Values(models.TextChoices):
        PIP = "pip", "Face value (pip)"
        FIVE_TEN = "five_ten", "Five-ten (2-9 score 5)"
        LOW5_HIGH10 = "low5_high10", "Low five, high ten (2-5 score 5, 6-K 10)"

    class StockOut(models.TextChoices):
        END = "end", "The hand ends"
        RESHUFFLE = "reshuffle", "The discard pile is reshuffled"

    slug = models.SlugField(max_length=60, unique=True)
    name = models.CharField(max_length=100, unique=True)
    description = models.TextField(blank=True)
    is_preset = models.BooleanField(
        default=False, help_text="One of the six presets of RULES.md, created by a migration."
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    values = models.CharField(
        max_length=20,
        choices=Values.choices,
        default="pip",
        help_text="How cards score: face value, five-ten, or low five / high ten.",
    )
    low_ace = models.PositiveSmallIntegerField(
        default=1, help_text="What an ace scores when played low in a run (A-2-3), 0 to 15."
    )
    jokers_per_deck = models.PositiveSmallIntegerField(
        default=2, help_text="Jokers added to each 52-card deck, 0 to 2."
    )
    two_decks_from = models.PositiveSmallIntegerField(
        default=5, help_text="From this many players on, two decks are shuffled together (2-9)."
    )
    hand_size_two = models.PositiveSmallIntegerField(
        default=13, help_text="Cards dealt to each player at a two-player table."
    )
    hand_size = models.PositiveSmallIntegerField(
        default=7, help_text="Cards dealt to each player at a table of three or more."
    )
    hand_size_five_plus = models.PositiveSmallIntegerField(
        null=True,
        blank=True,
        help_text="Cards dealt with five or more players; empty means the same as hand size.",
    )
    set_distinct_suits = models.BooleanField(
        default=True, help_text="The cards of a set must all differ in suit (so at most four)."
    )
    run_wraps = models.BooleanField(default=False, help_text="A run may turn the corner (K-A-2).")
    min_naturals = models.PositiveSmallIntegerField(
        default=1, help_text="The fewest natural (non-joker) cards a meld must hold, 0 to 3."
    )
    no_rediscard_top = models.BooleanField(
        default=True,
        help_text="A player who took only the top discard may not throw it back the same turn.",
    )
    stock_out = models.CharField(
        max_length=20,
        choices=StockOut.choices,
        default="end",
        help_text="What happens when a player draws from an empty stock.",
    )
    target = models.PositiveIntegerField(
        default=500, help_text="The game ends when a player's total reaches this score."
    )
    must_discard_to_go_out = models.BooleanField(
        default=False, help_text="Going out needs a final discard; melding every card is refused."
    )
    top_discard_must_meld = models.BooleanField(
        default=False, help_text="Taking only the top discard also obliges the player to meld it."
    )
    deep_pickup_new_meld = models.BooleanField(
        default=False,
        help_text="The required card of a deeper pickup must start a new meld, not be laid off.",
    )
    rummy_call = models.BooleanField(
        default=False,
        help_text='Any player may call "Rummy!" on a discard that could have been played.',
    )
    winner_must_go_out = models.BooleanField(
        default=False, help_text="Only a player who went out in the last hand can win the game."
    )
    turn_seconds = models.PositiveIntegerField(
        default=60, help_text="Seconds each turn may take before the server plays it."
    )
    time_bank_seconds = models.PositiveIntegerField(
        default=0, help_text="Extra seconds per player per game, spent once a turn runs out."
    )
    max_timeouts = models.PositiveSmallIntegerField(
        default=3, help_text="Consecutive timeouts after which a player is marked absent."
    )
    between_hands_seconds = models.PositiveSmallIntegerField(
        default=BETWEEN_HANDS_SECONDS,
        validators=_BREAK_RANGE,
        help_text="Seconds between a hand's end and the next hand's first turn clock, while "
        "everyone sees the hand's summary; 0 to 120, 0 for no break.",
    )

    class Meta:
        ordering = ["-is_preset", "name"]

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("games:ruleset", args=[self.slug])

    def rules_dict(self) -> dict[str, Any]:
        """The configuration as the engine's ``Rules.from_dict`` takes it."""
        return {name: getattr(self, name) for name in RULE_FIELDS}

    def to_rules(self, overrides: dict[str, Any] | None = None) -> Rules:
        """The engine configuration, with ``overrides`` applied.

        :raises ConfigError: an override the engine refuses (naming the field).
        """
        return Rules.from_dict({**self.rules_dict(), **(overrides or {})})

    def clean(self) -> None:
        """Refuse whatever the engine refuses, on the field at fault."""
        try:
            self.to_rules()
        except ConfigError as exc:
            field = exc.field if exc.field in RULE_FIELDS else None
            raise ValidationError({field: exc.message} if field else exc.message) from exc


class Table(models.Model):
    """A live table: its effective rules, its seats, and the current snapshot of its game.

    ``version`` counts log rows: 0 while players gather, then one more per accepted change.
    """

    class Status(models.TextChoices):
        WAITING = "waiting", "Waiting for players"
        PLAYING = "playing", "Playing"
        FINISHED = "finished", "Finished"
        ABORTED = "aborted", "Aborted"

    ruleset = models.ForeignKey(RuleSet, on_delete=models.PROTECT, related_name="tables")
    rules = models.JSONField(help_text="The effective configuration, frozen at creation.")
    overrides = models.JSONField(default=dict, blank=True)
    seats = models.PositiveSmallIntegerField(
        validators=[MinValueValidator(MIN_PLAYERS), MaxValueValidator(MAX_PLAYERS)]
    )
    status = models.CharField(
        max_length=10, choices=Status.choices, default=Status.WAITING, db_index=True
    )
    version = models.PositiveIntegerField(default=0)
    state = models.JSONField(
        null=True, blank=True, help_text="The engine's full state.", **SERVER_JSON
    )
    deals = models.JSONField(
        **SERVER_JSON,
        default=list,
        blank=True,
        help_text="Per hand: its number, seed commitment and seed (secret until the hand ends).",
    )
    turn_seconds = models.PositiveIntegerField(default=60)
    time_bank_seconds = models.PositiveIntegerField(
        default=0, help_text="Each player's extra seconds for the whole game, once a turn runs out."
    )
    deadline = models.DateTimeField(
        null=True,
        blank=True,
        db_index=True,
        help_text="When the server plays the turn: its start plus the turn clock plus the bank.",
    )
    turn_started_at = models.DateTimeField(null=True, blank=True)
    between_hands_seconds = models.PositiveSmallIntegerField(
        default=BETWEEN_HANDS_SECONDS,
        validators=_BREAK_RANGE,
        help_text="Seconds between hands, no clock running (copied from the rule set).",
    )
    break_ends_at = models.DateTimeField(
        null=True,
        blank=True,
        help_text="When the break after the last hand ended ends, so the next turn clock starts.",
    )
    last_hand = models.JSONField(
        **SERVER_JSON,
        null=True,
        blank=True,
        help_text="The most recently finished hand's summary: melds, cards left, scores, totals.",
    )
    banks = models.JSONField(
        **SERVER_JSON,
        default=dict,
        blank=True,
        help_text="Milliseconds of time bank each player has left, as of the current turn's start.",
    )
    paused_at = models.DateTimeField(null=True, blank=True)
    paused_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    rated = models.BooleanField(default=True)
    withdrawn = models.JSONField(
        default=list,
        blank=True,
        help_text="Players an organizer withdrew: absent for good, their actions refused.",
    )
    club = models.ForeignKey(
        "accounts.Club",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="tables",
        help_text="A club's table: only its members sit, and a rated result counts in its pool.",
    )
    creator = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="created_tables"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    # ``(version, engine state)`` of the snapshot, kept on the instance by the services so that
    # reads in the same process (the pushes after commit) need not parse it again. Keyed by
    # version because ``refresh_from_db`` reloads ``state`` but not this.
    engine_cache: tuple[int, GameState] | None = None
    # The log rows this instance's changes wrote (``games.record``), so the push after commit
    # tells their moves without reading them back; ``games.selectors.log_since`` uses them only
    # when they are every row it needs.
    recorded: list[TableEvent] | None = None

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"Table {self.pk} ({self.get_status_display()})"

    def get_absolute_url(self) -> str:
        return reverse("games:table", args=[self.pk])

    def engine_rules(self) -> Rules:
        return Rules.from_dict(self.rules)


class Seat(models.Model):
    """A player's seat; ``position`` is the engine's seat order (0 first)."""

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="seat_set")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="seats"
    )
    position = models.PositiveSmallIntegerField()
    joined_at = models.DateTimeField(auto_now_add=True)
    connections = models.PositiveIntegerField(
        default=0, help_text="Open sockets of this player on this table (shown as connected)."
    )

    class Meta:
        ordering = ["position"]
        constraints = [
            models.UniqueConstraint(fields=["table", "user"], name="seat_one_per_user"),
            models.UniqueConstraint(fields=["table", "position"], name="seat_one_per_position"),
        ]

    def __str__(self) -> str:
        return f"{self.user} at seat {self.position} of table {self.table_id}"


class TableEvent(models.Model):
    """One accepted change, append-only: the log that rebuilds the table.

    ``start`` holds the players and the first hand's seed, ``deal`` a later hand's seed,
    ``action`` a player's action, ``timeout`` a turn the server played for ``player``, ``back``
    an absent player's return; ``pause`` and ``resume`` (by ``actor``, an organizer) stop and
    restart the clocks and leave the game as it was.
    ``events`` are the engine's events, their private parts included; the log API shows those
    and the seeds only when they are no longer secret.
    """

    class Kind(models.TextChoices):
        START = "start", "Start"
        ACTION = "action", "Action"
        DEAL = "deal", "Deal"
        TIMEOUT = "timeout", "Timeout"
        BACK = "back", "Back"
        PAUSE = "pause", "Pause"
        RESUME = "resume", "Resume"
        WITHDRAW = "withdraw", "Withdraw"
        ADJUDICATE = "adjudicate", "Adjudicate"

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="events")
    version = models.PositiveIntegerField()
    kind = models.CharField(max_length=10, choices=Kind.choices)
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        help_text="Who sent it; empty for the server's own changes.",
    )
    player = models.CharField(max_length=150, blank=True, help_text="The seat acted for.")
    action = models.JSONField(null=True, blank=True, **SERVER_JSON)
    # NULL, not "", for "no client_id": the unique constraint below skips NULLs.
    client_id = models.CharField(max_length=100, null=True, blank=True)  # noqa: DJ001
    data = models.JSONField(default=dict, blank=True, **SERVER_JSON)
    seed = models.CharField(max_length=100, blank=True)
    events = models.JSONField(default=list, blank=True, **SERVER_JSON)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["table", "version"]
        constraints = [
            models.UniqueConstraint(fields=["table", "version"], name="event_one_per_version"),
            # A repeated client_id is answered from the row it made, never applied twice.
            models.UniqueConstraint(
                fields=["table", "actor", "client_id"],
                condition=models.Q(client_id__isnull=False),
                name="event_client_id_once",
            ),
        ]

    def __str__(self) -> str:
        return f"table {self.table_id} v{self.version} {self.kind}"


class GameResult(models.Model):
    """How a finished game ended: placements (ties share a place), totals and every hand."""

    class Ended(models.TextChoices):
        """The engine's ways (``games.engine.state.Ended``) and the service's own: an organizer
        decided the result, or a face-to-face game's result was entered."""

        TARGET = EngineEnded.TARGET.value, "A total reached the target"
        ABANDONED = EngineEnded.ABANDONED.value, "Abandoned: every player was absent"
        ADJUDICATED = "adjudicated", "Adjudicated by an organizer"
        ENTERED = "entered", "Entered: a face-to-face game's result"

    table = models.OneToOneField(Table, on_delete=models.CASCADE, related_name="result")
    winner = models.CharField(max_length=150, blank=True)
    ended = models.CharField(
        max_length=20,
        choices=Ended.choices,
        help_text="target, abandoned, adjudicated, or entered (a face-to-face game's result).",
    )
    placements = models.JSONField(
        help_text='[{"player", "user", "place", "score", "absent", "acted"}] by place: "absent" '
        'as the game ended, "acted" whether the player ever made a move of their own.'
    )
    hands = models.JSONField(help_text="The finished hands as the full state lists them.")
    finished_at = models.DateTimeField(db_index=True)

    class Meta:
        ordering = ["-finished_at"]

    def __str__(self) -> str:
        return f"result of table {self.table_id}"


class HandResult(models.Model):
    """One player's score for one finished hand, written with the change that ended it."""

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="hand_results")
    hand = models.PositiveSmallIntegerField()
    player = models.CharField(max_length=150)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, related_name="+"
    )
    melded = models.IntegerField()
    in_hand = models.IntegerField()
    net = models.IntegerField()
    went_out = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["table", "hand", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["table", "hand", "player"], name="hand_result_once_per_player"
            )
        ]

    def __str__(self) -> str:
        return f"table {self.table_id} hand {self.hand}: {self.player} {self.net:+d}"


class FinalizerRun(models.Model):
    """A finalization hook (rating update, tournament advancement) that has run for a game.

    Written in the same transaction as the hook's own effect, and unique per table and hook, so
    a task delivered twice finds the row and does nothing.
    """

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="finalizer_runs")
    hook = models.CharField(max_length=100)
    done_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["table", "hook"]
        constraints = [
            models.UniqueConstraint(fields=["table", "hook"], name="finalizer_once_per_table")
        ]

    def __str__(self) -> str:
        return f"{self.hook} for table {self.table_id}"


class FinalizerFailure(models.Model):
    """A finalization hook that failed for a game, and when it is tried again.

    Written by ``games.finalization.run_hook`` in its own transaction once the hook's has rolled
    back: one row per table and hook, counting the attempts. The sweep sends the hook again at
    ``retry_at`` (backing off), and after ``FINALIZE_MAX_ATTEMPTS`` stops (``retry_at`` empty:
    given up) and the listeners are told (an event tells its organizers). The row goes once the
    hook runs; an organizer's retry deletes it and sends the hook again.
    """

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="finalizer_failures")
    hook = models.CharField(max_length=100)
    attempts = models.PositiveIntegerField(default=0)
    error = models.CharField(max_length=500, help_text="The last failure's reason.")
    failed_at = models.DateTimeField(help_text="When it last failed.")
    retry_at = models.DateTimeField(
        null=True, blank=True, help_text="When the sweep sends it again; empty once given up."
    )

    class Meta:
        ordering = ["table", "hook"]
        constraints = [
            models.UniqueConstraint(fields=["table", "hook"], name="finalizer_failure_per_table")
        ]

    def __str__(self) -> str:
        return f"{self.hook} for table {self.table_id}: {self.attempts} failed"

    @property
    def given_up(self) -> bool:
        return self.retry_at is None


class Rematch(models.Model):
    """The offer of a rematch at a finished table (outside events): who accepted and who
    declined, in the order they answered, until when the offer stands, and the table it made
    once everyone accepted. Its status is read from these (``games.game_over``), so an offer
    expires by the clock alone, with no task that must run for it."""

    table = models.OneToOneField(
        Table, on_delete=models.CASCADE, primary_key=True, related_name="rematch"
    )
    accepted = models.JSONField(default=list, blank=True, help_text="Usernames, first first.")
    declined = models.JSONField(default=list, blank=True, help_text="Usernames, first first.")
    expires_at = models.DateTimeField(help_text="REMATCH_SECONDS after the first answer.")
    # One to one: a second table made for the same offer would break the constraint, not pass.
    next_table = models.OneToOneField(
        Table,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="rematch_of",
        help_text="The new table, once every player accepted.",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"rematch of table {self.table_id}"
