"""The home page (``/``), a dashboard. Everyone sees what the site is, how busy it is (live
counts of games and players) and the upcoming events; a signed-in player also sees their tables
in play, the events they entered (with the time to the start and where their check-in stands)
and the top ten of the leaderboard.

It reads the games, ratings and tournaments selectors, so it lives in the app that may import
all three. Its queries do not grow with the numbers it shows (``tests/tournaments/test_home``).
"""

from __future__ import annotations

import math
from datetime import datetime
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone

from games.listing import live_counts, tables_of
from games.selectors import seat_infos
from ratings.selectors import Board, board_page, pool_choice
from tournaments.models import Entry, Tournament
from tournaments.page_context import viewer_of
from tournaments.refusals import STILL_IN, window_refusal
from tournaments.selectors import event_list, event_summary, format_name
from tournaments.standing import entry_standing, standings_by_entry

Status = Tournament.Status
UPCOMING = 5
MY_TABLES = 10
#: At most this many of a player's events: each running bracket's standings are read live.
MY_EVENTS = 10
LEADERS = 10
#: The events a player's dashboard lists: not over yet.
OPEN = (Status.REGISTRATION, Status.CHECK_IN, Status.RUNNING)


def home_page(request: HttpRequest) -> HttpResponse:
    """The dashboard; ``?part=counts`` is its live counts alone, which the page asks for again
    as the lobby socket tells of tables created, started or over (``static/js/home.js``)."""
    if request.GET.get("part") == "counts":
        return render(request, "_home_counts.html", {"counts": live_counts()})
    return render(request, "home.html", home_context(viewer_of(request)))


def home_context(viewer: Any) -> dict[str, Any]:
    context: dict[str, Any] = {
        "counts": live_counts(),
        "upcoming": [event_summary(e) for e in event_list("upcoming", limit=UPCOMING)],
    }
    if viewer is None:
        return context
    return {
        **context,
        "tables": my_tables(viewer),
        "entries": my_events(viewer, timezone.now()),
        "leaders": board_page(Board(pool_choice()), 0, LEADERS),
    }


def my_tables(viewer: Any) -> list[dict[str, Any]]:
    """The player's tables in play or gathering players, each with its link and players."""
    return [
        {
            "id": t.pk,
            "url": t.get_absolute_url(),
            "ruleset": t.ruleset.name,
            "status": t.status,
            "status_label": t.get_status_display(),
            "players": [s.username for s in seat_infos(t.seat_set.all())],
        }
        for t in tables_of(viewer)[:MY_TABLES]
    ]


def my_events(viewer: Any, now: datetime) -> list[dict[str, Any]]:
    """The events the player is still in and that are not over, the soonest first, each with
    when it starts and where they stand."""
    entries = (
        Entry.objects.filter(user=viewer, status__in=STILL_IN, tournament__status__in=OPEN)
        .select_related("tournament")
        .order_by("tournament__starts_at", "tournament__pk")
    )
    return [
        {
            "name": e.tournament.name,
            "url": e.tournament.get_absolute_url(),
            "format_name": format_name(e.tournament.format),
            "when": when_text(e.tournament, now),
            "state": entry_state(e.tournament, e),
        }
        for e in entries[:MY_EVENTS]
    ]


def when_text(event: Tournament, now: datetime) -> str:
    """>>> from datetime import timedelta
    >>> at = timezone.now()
    >>> when_text(Tournament(status="registration", starts_at=at + timedelta(minutes=125)), at)
    'starts in 2 h 5 min'
    >>> when_text(Tournament(status="check_in", starts_at=at + timedelta(days=1, hours=3)), at)
    'starts in 1 d 3 h'
    >>> when_text(Tournament(status="check_in", starts_at=at - timedelta(minutes=1)), at)
    'starts any moment'
    """
    if event.status == Status.RUNNING:
        return "under way"
    if event.starts_at is None:
        return "no start time set"
    minutes = math.ceil((event.starts_at - now).total_seconds() / 60)
    if minutes <= 0:
        return "starts any moment"
    days, rest = divmod(minutes, 24 * 60)
    hours, mins = divmod(rest, 60)
    if days:
        return f"starts in {days} d {hours} h"
    return f"starts in {hours} h {mins} min" if hours else f"starts in {mins} min"


def entry_state(event: Tournament, entry: Entry) -> str:
    """Where the player stands in ``event``, check-in above all: a player registered while
    check-in is open is told to check in."""
    if event.status == Status.REGISTRATION:
        return "registered; check-in opens before the start"
    if event.status == Status.CHECK_IN:
        if entry.status == Entry.Status.CHECKED_IN:
            return "checked in"
        refusal = window_refusal(event, Status.CHECK_IN)
        return "check-in is open: check in now" if refusal is None else refusal.message
    return entry_standing(event, entry, standings_by_entry(event)).label.lower()
