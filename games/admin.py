"""The admin: rule sets are edited here; tables, their log and results are only viewed.

Tables change only through ``games.services`` (which holds the row lock and writes the log), so
their admins are view-only; the table admin's actions pause and resume tables through
``games.clock_services``, as the REST API does. Presets mirror the engine's ``PRESETS``: their
slug and rules are read-only and they cannot be deleted. A rule set some table uses is protected
by the database (``on_delete=PROTECT``), and the admin's delete page lists the tables in the way.
"""

from collections.abc import Callable, Sequence
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest

from games import clock_services
from games.engine.errors import ConfigError
from games.engine.rules import MAX_PLAYERS, MIN_PLAYERS, Rules
from games.errors import TableError
from games.models import (
    RULE_FIELDS,
    FinalizerFailure,
    FinalizerRun,
    GameResult,
    HandResult,
    RuleSet,
    Seat,
    Table,
    TableEvent,
)


def deal_refusals(rules: Rules) -> dict[int, ConfigError]:
    """Why ``rules`` cannot deal, for each table size (2 to 8 players) it cannot deal to."""
    refusals = {}
    for players in range(MIN_PLAYERS, MAX_PLAYERS + 1):
        try:
            rules.check_players(players)
        except ConfigError as exc:
            refusals[players] = exc
    return refusals


class RuleSetForm(forms.ModelForm):
    """Refuses a configuration that cannot deal to any table size, on the fields at fault.

    The model's own ``clean`` (run after this) refuses what the engine refuses field by field.
    Dealing depends on the player count, so a set that fits some table sizes is accepted (a
    table of another size is refused when it is created); one that fits none is refused here.
    """

    class Meta:
        model = RuleSet
        fields = ["slug", "name", "description", *RULE_FIELDS, "between_hands_seconds"]

    def clean(self) -> dict[str, Any]:
        data: dict[str, Any] = super().clean() or {}
        if not all(name in data for name in RULE_FIELDS):
            return data  # a field is already in error, or read-only (a preset)
        try:
            rules = Rules.from_dict({name: data[name] for name in RULE_FIELDS})
        except ConfigError:
            return data  # the model's clean names the field
        refusals = deal_refusals(rules)
        if len(refusals) == MAX_PLAYERS - MIN_PLAYERS + 1:
            # Each blocking field once, with its refusal at the smallest table it blocks.
            errors: dict[str, str] = {}
            for exc in refusals.values():
                errors.setdefault(exc.field, exc.message)
            for field, message in errors.items():
                self.add_error(field, f"No table can be dealt: {message}")
        return data


@admin.register(RuleSet)
class RuleSetAdmin(admin.ModelAdmin):
    form = RuleSetForm
    list_display = ["name", "slug", "is_preset", "values", "jokers_per_deck", "target"]
    list_filter = ["is_preset", "values"]
    search_fields = ["name", "slug", "description"]
    fieldsets = [
        ("Name", {"fields": ["slug", "name", "description", "is_preset"]}),
        (
            "Deck and deal",
            {
                "fields": [
                    "jokers_per_deck",
                    "two_decks_from",
                    "hand_size_two",
                    "hand_size",
                    "hand_size_five_plus",
                    "table_sizes",
                ]
            },
        ),
        ("Scoring", {"fields": ["values", "low_ace", "target", "winner_must_go_out"]}),
        ("Melds", {"fields": ["set_distinct_suits", "run_wraps", "min_naturals"]}),
        (
            "Turn",
            {
                "fields": [
                    "no_rediscard_top",
                    "stock_out",
                    "must_discard_to_go_out",
                    "top_discard_must_meld",
                    "deep_pickup_new_meld",
                    "rummy_call",
                ]
            },
        ),
        (
            "Clock",
            {
                "fields": [
                    "turn_seconds",
                    "time_bank_seconds",
                    "max_timeouts",
                    "between_hands_seconds",
                ]
            },
        ),
    ]

    def get_readonly_fields(self, request: HttpRequest, obj: RuleSet | None = None) -> list[str]:
        fixed = ["is_preset", "table_sizes"]
        if obj is not None and obj.is_preset:
            # A preset must stay equal to the engine's preset of the same name.
            return [*fixed, "slug", *RULE_FIELDS]
        return fixed

    def get_prepopulated_fields(
        self, request: HttpRequest, obj: RuleSet | None = None
    ) -> dict[str, Sequence[str]]:
        # Only a new set's slug follows its name; a saved slug is in links and API calls.
        return {"slug": ["name"]} if obj is None else {}

    def has_delete_permission(self, request: HttpRequest, obj: RuleSet | None = None) -> bool:
        if obj is not None and obj.is_preset:
            return False
        return super().has_delete_permission(request, obj)

    def get_deleted_objects(
        self, objs: Any, request: HttpRequest
    ) -> tuple[list[Any], dict[str, int], set[str], list[Any]]:
        deleted, counts, perms_needed, protected = super().get_deleted_objects(objs, request)
        # Tables are view-only, so Django reports the tables a rule set protects as a missing
        # delete permission and hides the list; show them as the protected objects they are.
        if protected:
            perms_needed.discard(Table._meta.verbose_name)
        if any(ruleset.is_preset for ruleset in objs):
            perms_needed.discard(RuleSet._meta.verbose_name)
            perms_needed.add("preset rule set")
        return deleted, counts, perms_needed, protected

    @admin.display(description="Table sizes it can deal")
    def table_sizes(self, obj: RuleSet) -> str:
        if obj.pk is None:
            return "Shown once saved."
        try:
            refusals = deal_refusals(obj.to_rules())
        except ConfigError as exc:
            return f"None ({exc})"
        sizes = [n for n in range(MIN_PLAYERS, MAX_PLAYERS + 1) if n not in refusals]
        return ", ".join(map(str, sizes)) + " players" if sizes else "None"


class ViewOnlyAdmin(admin.ModelAdmin):
    """View only: these rows change through games.services alone."""

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class HiddenInPlay(admin.ModelAdmin):
    """While a table's game is in play, its pages leave out the fields that hold what nobody may
    see then (PROTOCOL.md: no page carries a hidden card or the stock's order): staff sit at
    tables too, and the admin is no exception. Once the game is over they are shown whole."""

    hidden_in_play: tuple[str, ...] = ()

    def get_exclude(self, request: HttpRequest, obj: Any = None) -> Any:
        excluded = super().get_exclude(request, obj)
        table = obj if isinstance(obj, Table) else getattr(obj, "table", None)
        if table is not None and table.status == Table.Status.PLAYING:
            return [*(excluded or ()), *self.hidden_in_play]
        return excluded


class SeatInline(admin.TabularInline):
    model = Seat
    fields = ("position", "user", "joined_at", "connections")
    readonly_fields = fields
    extra = 0
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


def _each_table(
    model_admin: admin.ModelAdmin,
    request: HttpRequest,
    tables: QuerySet[Table],
    call: Callable[..., Table],
    done: str,
) -> None:
    """Call the clock service ``call`` for each selected table; a refusal is reported for its
    table and the others go on (each call is its own transaction)."""
    count = 0
    for table_id in tables.order_by("pk").values_list("pk", flat=True):
        try:
            call(table_id=table_id, user=request.user)
        except TableError as exc:
            model_admin.message_user(request, f"Table {table_id}: {exc.message}", messages.ERROR)
        else:
            count += 1
    if count:
        noun = "table" if count == 1 else "tables"
        model_admin.message_user(request, f"{done} {count} {noun}.", messages.SUCCESS)


@admin.register(Table)
class TableAdmin(HiddenInPlay, ViewOnlyAdmin):
    # Every hand and the stock's order; the seed of the hand being played.
    hidden_in_play = ("state", "deals")
    list_display = [
        "id",
        "status",
        "is_paused",
        "seats",
        "ruleset",
        "creator",
        "version",
        "created_at",
    ]
    list_filter = ["status", "rated"]
    list_select_related = ["ruleset", "creator"]
    search_fields = ["creator__username", "seat_set__user__username"]
    date_hierarchy = "created_at"
    inlines = [SeatInline]
    actions = ["pause_tables", "resume_tables"]

    @admin.display(description="Paused", boolean=True)
    def is_paused(self, obj: Table) -> bool:
        return obj.paused_at is not None

    @admin.action(description="Pause selected tables")
    def pause_tables(self, request: HttpRequest, queryset: QuerySet[Table]) -> None:
        _each_table(self, request, queryset, clock_services.table_pause, "Paused")

    @admin.action(description="Resume selected tables")
    def resume_tables(self, request: HttpRequest, queryset: QuerySet[Table]) -> None:
        _each_table(self, request, queryset, clock_services.table_resume, "Resumed")


@admin.register(TableEvent)
class TableEventAdmin(HiddenInPlay, ViewOnlyAdmin):
    # A hand's seed, and the engine's events (a stock draw's card).
    hidden_in_play = ("seed", "events")
    list_display = ["table", "version", "kind", "player", "actor", "created_at"]
    list_filter = ["kind"]
    list_select_related = ["table", "actor"]
    search_fields = ["player", "actor__username"]
    # The newest tables first, each table's log in order.
    ordering = ["-table_id", "version"]


@admin.register(GameResult)
class GameResultAdmin(ViewOnlyAdmin):
    list_display = ["table", "winner", "ended", "finished_at"]
    list_filter = ["ended"]
    list_select_related = ["table"]
    search_fields = ["winner"]


@admin.register(HandResult)
class HandResultAdmin(ViewOnlyAdmin):
    list_display = ["table", "hand", "player", "melded", "in_hand", "net", "went_out"]
    list_filter = ["went_out"]
    list_select_related = ["table"]
    search_fields = ["player"]
    ordering = ["-table_id", "hand", "player"]


@admin.register(FinalizerRun)
class FinalizerRunAdmin(ViewOnlyAdmin):
    """Which finalization hooks (ratings, tournaments) have run for which finished game."""

    list_display = ["table", "hook", "done_at"]
    list_filter = ["hook"]
    list_select_related = ["table"]


@admin.register(FinalizerFailure)
class FinalizerFailureAdmin(ViewOnlyAdmin):
    """Finalization hooks that failed: how often, why, and when the sweep tries again (empty:
    given up; an event's organizers retry it from its page)."""

    list_display = ["table", "hook", "attempts", "failed_at", "retry_at", "error"]
    list_filter = ["hook"]
    list_select_related = ["table"]
