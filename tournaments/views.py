"""Pages: the events (``/events/``), an event's page with its live sections, its CSV exports,
the create-event form, and the plain POST forms of players and organizers.

The event page is rendered by the server; ``static/js/event.js`` listens on ``/ws/events/<slug>/``
and swaps in the sections of ``/events/<slug>/live/`` when something changes. Every form calls
the same service as the API, and says what happened (or why not) in a message.
"""

from __future__ import annotations

import csv
import math
from collections.abc import Callable
from typing import Any

from django.contrib import messages
from django.contrib.auth.views import redirect_to_login
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from config.csvcells import safe_row
from config.errors import ServiceError
from config.throttles import EntryThrottle, page_wait
from tournaments import entries, organizer, seed_order, services
from tournaments.errors import EventError
from tournaments.forms import EventForm, parse_places, parse_seating
from tournaments.limits import whole_number
from tournaments.models import Entry, Tournament
from tournaments.page_context import page_context, viewer_of
from tournaments.scorekeeper import hands_from_text, scorekeeper_enter
from tournaments.seed_order import order_moved, seeding_preview
from tournaments.selectors import (
    LISTS,
    clubs_with_events,
    drafts_for,
    event_get,
    event_list,
    event_summary,
    may_create_events,
    organizer_clubs,
    results_rows,
    round_table_get,
    standings_rows,
)
from tournaments.stalls import round_table_retry

Status = Tournament.Status
LIST_TITLES = {"upcoming": "Upcoming", "running": "Running", "finished": "Finished"}


def _event_or_404(request: HttpRequest, slug: str) -> Tournament:
    try:
        return event_get(slug, viewer_of(request))
    except ServiceError as exc:
        raise Http404(exc.message) from None


def event_list_page(request: HttpRequest) -> HttpResponse:
    club = request.GET.get("club") or None
    lists = [
        (key, LIST_TITLES[key], [event_summary(e) for e in event_list(key, club=club)])
        for key in LISTS
    ]
    context = {
        "lists": lists,
        "clubs": clubs_with_events(),
        "club": club,
        "drafts": [event_summary(e) for e in drafts_for(request.user)],  # type: ignore[arg-type]
        "may_create": may_create_events(request.user),  # type: ignore[arg-type]
    }
    return render(request, "tournaments/list.html", context)


def event_page(request: HttpRequest, slug: str) -> HttpResponse:
    event = _event_or_404(request, slug)
    return render(request, "tournaments/detail.html", page_context(request, event))


def event_live(request: HttpRequest, slug: str) -> HttpResponse:
    """The page's live sections alone, for ``event.js`` to swap in."""
    event = _event_or_404(request, slug)
    return render(request, "tournaments/_live.html", page_context(request, event))


def _csv(rows: list[list[Any]], name: str) -> HttpResponse:
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    # Usernames, round names and reasons are typed by people: none may run as a formula.
    csv.writer(response).writerows(safe_row(row) for row in rows)
    return response


def standings_csv(request: HttpRequest, slug: str) -> HttpResponse:
    event = _event_or_404(request, slug)
    return _csv(standings_rows(event), f"{event.slug}-standings.csv")


def results_csv(request: HttpRequest, slug: str) -> HttpResponse:
    event = _event_or_404(request, slug)
    return _csv(results_rows(event), f"{event.slug}-results.csv")


def event_create(request: HttpRequest) -> HttpResponse:
    """``/events/new/``: staff, and club admins for their clubs."""
    user: Any = request.user
    if not user.is_authenticated:
        return redirect_to_login(request.get_full_path())
    if not may_create_events(user):
        messages.error(request, "Only staff and club admins create events.")
        return redirect("tournaments:list")
    form = EventForm(request.POST or None, clubs=organizer_clubs(user), staff=user.is_staff)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            event = services.event_create(
                created_by=user, name=data["name"], format=data["format"], **form.service_fields()
            )
        except ServiceError as exc:
            form.refused(exc)
        else:
            messages.success(request, f"{event.name} is created, in draft: open registration.")
            return redirect(event)
    return render(request, "tournaments/create.html", {"form": form})


# --- forms posted from the event page ------------------------------------------------------------

Call = Callable[[Tournament, Any, Any], str]


def _register(event: Tournament, user: Any, post: Any) -> str:
    entries.entry_register(event_id=event.pk, user=user)
    return f"You are registered for {event.name}. Come back to check in before it starts."


def _withdraw(event: Tournament, user: Any, post: Any) -> str:
    entries.entry_withdraw(event_id=event.pk, user=user)
    return f"You have withdrawn from {event.name}."


def _check_in(event: Tournament, user: Any, post: Any) -> str:
    entries.entry_check_in(event_id=event.pk, user=user)
    return "You are checked in. Your first table opens here when the event starts."


def _organizer(service: Any, done: str) -> Call:
    def call(event: Tournament, user: Any, post: Any) -> str:
        service(event_id=event.pk, actor=user)
        return done

    return call


def _cancel(event: Tournament, user: Any, post: Any) -> str:
    reason = post.get("reason", "").strip()
    services.event_cancel(event_id=event.pk, actor=user, reason=reason)
    return "The event is cancelled."


def _announce(event: Tournament, user: Any, post: Any) -> str:
    organizer.announce(event_id=event.pk, text=post.get("text", ""), actor=user)
    return "Announcement posted."


def _remove(event: Tournament, user: Any, post: Any) -> str:
    disqualify = post.get("action") == "disqualify"
    reason = post.get("reason", "").strip()
    entry_id = whole_number(post.get("entry"))
    if entry_id is None or not reason:
        raise EventError("bad_request", "choose a player and give a reason")
    entry = organizer.entry_remove(
        event_id=event.pk,
        entry_id=entry_id,
        actor=user,
        disqualify=disqualify,
        reason=reason,
    )
    return f"{entry.user.username} is {'disqualified' if disqualify else 'withdrawn'}."


def _seed(event: Tournament, user: Any, post: Any) -> str:
    """Move one player a place up or down the seeding (the page's buttons, without JS)."""
    step = {"up": -1, "down": 1}.get(post.get("move", ""))
    entry_id = whole_number(post.get("entry"))
    if step is None or entry_id is None:
        raise EventError("bad_request", "choose a player and move them up or down")
    order = order_moved([r["entry"] for r in seeding_preview(event)], entry_id, step)
    event = seed_order.event_seed_order(event_id=event.pk, actor=user, order=order)
    row = next(r for r in seeding_preview(event) if r["entry"] == entry_id)
    return f"{row['username']} is seed {row['position']} now."


EVENT_CALLS: dict[str, Call] = {
    "register": _register,
    "withdraw": _withdraw,
    "check-in": _check_in,
    "open-registration": _organizer(services.event_open_registration, "Registration is open."),
    "open-check-in": _organizer(
        services.event_open_check_in, "Check-in is open; registration is closed."
    ),
    "close": _organizer(services.event_close_window, "The open window is closed."),
    "start": _organizer(services.event_start, "The event has started."),
    "pause": _organizer(organizer.event_pause, "The event is paused: every clock stands still."),
    "resume": _organizer(organizer.event_resume, "The event is resumed."),
    "cancel": _cancel,
    "announce": _announce,
    "remove-player": _remove,
    "seed": _seed,
}


def _run(request: HttpRequest, slug: str, call: Callable[[Tournament, Any], str]) -> HttpResponse:
    """Call ``call(event, user)`` for a logged-in user, say how it went, back to the page."""
    event = _event_or_404(request, slug)
    if not request.user.is_authenticated:
        return redirect_to_login(event.get_absolute_url())
    try:
        messages.success(request, call(event, request.user))
    except ServiceError as exc:
        messages.error(request, exc.message[:1].upper() + exc.message[1:])
    return redirect(event)


#: The event page's forms that spend the API's budget of entries (``EntryThrottle``).
THROTTLED = {"register", "withdraw"}


@require_POST
def event_post(request: HttpRequest, slug: str, action: str) -> HttpResponse:
    if action not in EVENT_CALLS:
        raise Http404(f"no action {action}")
    wait = None
    if action in THROTTLED and request.user.is_authenticated:
        wait = page_wait(request, EntryThrottle)
    if wait is not None:
        minutes = math.ceil(wait / 60)
        message = f"Too many registrations and withdrawals: try again in {minutes} minute"
        messages.error(request, message + ("s." if minutes > 1 else "."))
        return redirect(_event_or_404(request, slug))
    return _run(request, slug, lambda event, user: EVENT_CALLS[action](event, user, request.POST))


@require_POST
def table_adjudicate(request: HttpRequest, slug: str, round_table_id: int) -> HttpResponse:
    def call(event: Tournament, user: Any) -> str:
        table = round_table_get(event.pk, round_table_id)
        names = dict(Entry.objects.filter(pk__in=table.players).values_list("pk", "user__username"))
        places = parse_places(request.POST, [names[p] for p in table.players])
        organizer.round_table_adjudicate(
            event_id=event.pk,
            round_table_id=table.pk,
            places=places,
            actor=user,
            reason=request.POST.get("reason", ""),
        )
        return f"Table {table.key or table.index + 1} is decided."

    return _run(request, slug, call)


@require_POST
def table_result(request: HttpRequest, slug: str, round_table_id: int) -> HttpResponse:
    """A game played face to face, entered hand by hand (``tournaments.scorekeeper``)."""

    def call(event: Tournament, user: Any) -> str:
        table = round_table_get(event.pk, round_table_id)
        hands = hands_from_text(request.POST.get("hands", ""))
        scorekeeper_enter(event_id=event.pk, round_table_id=table.pk, hands=hands, actor=user)
        return f"The result of table {table.key or table.index + 1} is entered."

    return _run(request, slug, call)


@require_POST
def table_retry(request: HttpRequest, slug: str, round_table_id: int) -> HttpResponse:
    """A table's result that could not be recorded, sent again (``tournaments.stalls``)."""

    def call(event: Tournament, user: Any) -> str:
        table = round_table_retry(event_id=event.pk, round_table_id=round_table_id, actor=user)
        return f"The result of table {table.key or table.index + 1} is being recorded again."

    return _run(request, slug, call)


@require_POST
def round_post(request: HttpRequest, slug: str, round_id: int, action: str) -> HttpResponse:
    def call(event: Tournament, user: Any) -> str:
        if action == "start":
            found = organizer.round_start(event_id=event.pk, round_id=round_id, actor=user)
            return f"{found.name} has started."
        ids = dict(event.entries.values_list("user__username", "pk"))
        tables = parse_seating(request.POST.get("tables", ""), ids)
        found = organizer.round_reseat(
            event_id=event.pk, round_id=round_id, tables=tables, actor=user
        )
        return f"{found.name} is re-seated."

    if action not in ("start", "reseat"):
        raise Http404(f"no action {action}")
    return _run(request, slug, call)
