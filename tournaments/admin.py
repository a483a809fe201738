"""The event admin: events are set up here and moved on through the services.

An event's life (registration, check-in, start, pause, cancel) changes only through
``tournaments.services`` and ``tournaments.organizer``, which take the event's lock and write the
audit log, so the event admin's actions call them. Its settings are edited here under the same
checks as ``event_create``; once it has started, the settings its rounds were planned with
are read-only. Rounds, their tables and the audit log are view-only. Of an entry only the
organizer's seed (seeding by hand) is edited here; players enter through the services, which
check the event's conditions. An announcement added here is posted through ``announce``.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any, cast

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import ValidationError
from django.db.models import QuerySet
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

from accounts.auth import signed_in
from config.errors import ServiceError
from games.admin import ViewOnlyAdmin
from tournaments import organizer, services
from tournaments.audit import audit
from tournaments.models import Announcement, AuditEntry, Entry, Round, RoundTable, Tournament

#: What the admin shows of an event, grouped.
FIELDSETS: list[tuple[str, dict[str, list[str]]]] = [
    ("Event", {"fields": ["name", "slug", "description", "club", "admins"]}),
    ("Rules and clock", {"fields": ["ruleset", "overrides", "turn_seconds", "time_bank_seconds"]}),
    ("Format", {"fields": ["format", "table_size", "rounds", "options", "seeding", "random_seed"]}),
    ("How it runs", {"fields": ["online", "rated", "auto_advance"]}),
    (
        "Who may enter",
        {"fields": ["max_players", "min_rating", "max_rating", "min_rated_games", "members_only"]},
    ),
    (
        "Dates",
        {
            "fields": [
                "registration_opens_at",
                "registration_closes_at",
                "check_in_opens_at",
                "check_in_closes_at",
                "starts_at",
            ]
        },
    ),
    (
        "Progress",
        {
            "fields": [
                "status",
                "created_by",
                "created_at",
                "started_at",
                "paused_at",
                "finished_at",
                "champion",
                "standings_table",
            ]
        },
    ),
]
#: What the services write: never edited here.
PROGRESS = [*FIELDSETS[-1][1]["fields"], "random_seed"]
#: Settings the rounds are planned with: fixed once the event has started.
PLANNED_WITH = [
    "ruleset",
    "overrides",
    "turn_seconds",
    "time_bank_seconds",
    "rated",
    "online",
    "format",
    "table_size",
    "rounds",
    "options",
    "seeding",
]
NOT_STARTED = ("draft", "registration", "check_in")


class ViewOnlyInline(admin.TabularInline):
    extra = 0
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class TournamentForm(forms.ModelForm):
    """Refuses settings the event could not run with, as ``event_create`` does."""

    class Meta:
        model = Tournament
        fields = [
            name for _, group in FIELDSETS for name in group["fields"] if name not in PROGRESS
        ]

    def clean(self) -> dict[str, Any]:
        data: dict[str, Any] = super().clean() or {}
        if self.errors:
            return data  # a field is in error already
        probe = copy.copy(self.instance)  # the event as it would be saved, unsaved
        columns = {f.name for f in Tournament._meta.concrete_fields}
        for name, value in data.items():
            if name in columns:
                setattr(probe, name, value)
        try:
            services.check_event(probe)
        except ServiceError as exc:
            raise ValidationError(exc.message) from None
        return data


class EntryInline(admin.TabularInline):
    """The event's players; only the organizer's seed is edited here."""

    model = Entry
    fields = ["user", "status", "seed", "hand_seed", "rating", "registered_at", "checked_in_at"]
    readonly_fields = ["user", "status", "seed", "rating", "registered_at", "checked_in_at"]
    extra = 0
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


def _each_event(
    model_admin: admin.ModelAdmin,
    request: HttpRequest,
    events: QuerySet[Tournament],
    call: Callable[..., Any],
    done: str,
) -> None:
    """Call the service ``call`` for each selected event; a refusal is reported for its event
    and the others go on (each call is its own transaction)."""
    count = 0
    for pk, name in events.order_by("pk").values_list("pk", "name"):
        try:
            call(event_id=pk, actor=signed_in(request))
        except ServiceError as exc:
            model_admin.message_user(request, f"{name}: {exc.message}", messages.ERROR)
        else:
            count += 1
    if count:
        noun = "event" if count == 1 else "events"
        model_admin.message_user(request, f"{done} {count} {noun}.", messages.SUCCESS)


def _cancel(*, event_id: int, actor: Any) -> Tournament:
    return services.event_cancel(event_id=event_id, actor=actor, reason="cancelled in the admin")


@admin.register(Tournament)
class TournamentAdmin(admin.ModelAdmin):
    form = TournamentForm
    list_display = ["name", "status", "format", "club", "starts_at", "started_at", "finished_at"]
    list_filter = ["status", "format", "online", "rated", "club"]
    list_select_related = ["club"]
    search_fields = ["name", "slug", "description", "club__name"]
    date_hierarchy = "created_at"
    prepopulated_fields = {"slug": ["name"]}
    filter_horizontal = ["admins"]
    inlines = [EntryInline]
    actions = [
        "open_registration",
        "open_check_in",
        "start_events",
        "pause_events",
        "resume_events",
        "cancel_events",
    ]
    fieldsets = cast(Any, FIELDSETS)  # the stubs type fieldsets as a TypedDict of options

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        if obj is not None and obj.status not in NOT_STARTED:
            return [*PROGRESS, *PLANNED_WITH]
        return list(PROGRESS)

    def save_model(self, request: HttpRequest, obj: Tournament, form: Any, change: bool) -> None:
        if not change:
            obj.created_by = signed_in(request)
        super().save_model(request, obj, form, change)
        if change:
            audit(
                obj,
                signed_in(request),
                AuditEntry.Action.EDIT,
                {"fields": sorted(form.changed_data)},
            )
        else:
            audit(obj, signed_in(request), AuditEntry.Action.CREATE, {"format": obj.format})

    @admin.display(description="Standings")
    def standings_table(self, obj: Tournament) -> SafeString | str:
        if not obj.standings:
            return "None yet."
        rows = format_html_join(
            "",
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            (
                (s["rank"], s["username"], s["points"], "out" if s.get("eliminated") else "")
                for s in obj.standings
            ),
        )
        return format_html(
            "<table><tr><th>Rank</th><th>Player</th><th>Points</th><th></th></tr>{}</table>",
            rows,
        )

    @admin.action(description="Open registration")
    def open_registration(self, request: HttpRequest, queryset: QuerySet[Tournament]) -> None:
        call = services.event_open_registration
        _each_event(self, request, queryset, call, "Opened registration of")

    @admin.action(description="Open check-in (registration closes)")
    def open_check_in(self, request: HttpRequest, queryset: QuerySet[Tournament]) -> None:
        _each_event(self, request, queryset, services.event_open_check_in, "Opened check-in of")

    @admin.action(description="Start (players not checked in are dropped)")
    def start_events(self, request: HttpRequest, queryset: QuerySet[Tournament]) -> None:
        _each_event(self, request, queryset, services.event_start, "Started")

    @admin.action(description="Pause (every table's clock stops)")
    def pause_events(self, request: HttpRequest, queryset: QuerySet[Tournament]) -> None:
        _each_event(self, request, queryset, organizer.event_pause, "Paused")

    @admin.action(description="Resume")
    def resume_events(self, request: HttpRequest, queryset: QuerySet[Tournament]) -> None:
        _each_event(self, request, queryset, organizer.event_resume, "Resumed")

    @admin.action(description="Cancel")
    def cancel_events(self, request: HttpRequest, queryset: QuerySet[Tournament]) -> None:
        _each_event(self, request, queryset, _cancel, "Cancelled")


ENTRY_FIELDS = (
    "tournament",
    "user",
    "status",
    "hand_seed",
    "seed",
    "rating",
    "registered_at",
    "checked_in_at",
    "left_at",
    "reason",
)


@admin.register(Entry)
class EntryAdmin(admin.ModelAdmin):
    """Players enter through the services (the event's conditions); the organizer's seed for
    seeding by hand is set here, also straight from the list."""

    list_display = ["user", "tournament", "status", "seed", "hand_seed", "rating", "registered_at"]
    list_editable = ["hand_seed"]
    list_filter = ["status", "tournament"]
    list_select_related = ["user", "tournament"]
    search_fields = ["user__username", "tournament__name"]
    fields = ENTRY_FIELDS
    readonly_fields = tuple(f for f in ENTRY_FIELDS if f != "hand_seed")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class RoundTableColumns:
    """A round table's players with their places, and its game, as read-only columns."""

    @admin.display(description="Players and places")
    def seated(self, obj: RoundTable) -> str:
        """``ann 1, bob 2`` (places once the result is in), in seat order."""
        names = dict(Entry.objects.filter(pk__in=obj.players).values_list("pk", "user__username"))
        places = obj.places or [None] * len(obj.players)
        return ", ".join(
            names.get(pid, str(pid)) + ("" if place is None else f" {place}")
            for pid, place in zip(obj.players, places, strict=True)
        )

    @admin.display(description="Game")
    def game(self, obj: RoundTable) -> SafeString | str:
        if obj.table_id is None:
            return "-"
        url = reverse("admin:games_table_change", args=[obj.table_id])
        return format_html('<a href="{}">table {}</a>', url, obj.table_id)


class RoundTableInline(RoundTableColumns, ViewOnlyInline):
    model = RoundTable
    fields = ("index", "key", "seated", "game", "adjudicated", "finished_at")
    readonly_fields = fields


@admin.register(Round)
class RoundAdmin(ViewOnlyAdmin):
    list_display = ["__str__", "number", "status", "started_at", "finished_at"]
    list_filter = ["status"]
    list_select_related = ["tournament"]
    search_fields = ["tournament__name", "name"]
    inlines = [RoundTableInline]


@admin.register(RoundTable)
class RoundTableAdmin(RoundTableColumns, ViewOnlyAdmin):
    list_display = ["__str__", "key", "seated", "game", "adjudicated", "finished_at"]
    list_filter = ["round__status"]
    list_select_related = ["round__tournament"]
    search_fields = ["round__tournament__name", "key"]
    fields = ("round", "index", "key", "seated", "points", "game", "adjudicated", "finished_at")
    readonly_fields = fields


@admin.register(Announcement)
class AnnouncementAdmin(admin.ModelAdmin):
    """A new announcement is posted through ``announce`` (audited, pushed to the event's page)."""

    list_display = ["__str__", "tournament", "author", "created_at"]
    list_select_related = ["tournament", "author"]
    search_fields = ["text", "tournament__name"]
    fields = ["tournament", "text", "author", "created_at"]

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        fixed = ["author", "created_at"]
        return fixed if obj is None else ["tournament", *fixed]

    def save_model(self, request: HttpRequest, obj: Announcement, form: Any, change: bool) -> None:
        if change:
            super().save_model(request, obj, form, change)
            return
        note = organizer.announce(
            event_id=obj.tournament_id, text=obj.text, actor=signed_in(request)
        )
        # The admin goes on with its own object (its log entry, the redirect): make it the note.
        obj.pk, obj.text, obj.author = note.pk, note.text, note.author
        obj.created_at = note.created_at


@admin.register(AuditEntry)
class AuditEntryAdmin(ViewOnlyAdmin):
    list_display = ["created_at", "tournament", "action", "actor", "details"]
    list_filter = ["action"]
    list_select_related = ["tournament", "actor"]
    search_fields = ["tournament__name", "actor__username", "action"]
