"""What the event page and its live fragment show: the event's reads, the visitor's own box
(where they stand and what they can do now), and for organizers the tools their event's state
allows and its audit log."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from django.utils import timezone

from tournaments.bracket_view import event_bracket
from tournaments.forms import seating_text
from tournaments.models import Entry, Round, Tournament
from tournaments.payloads import (
    EntryOutput,
    EventOutput,
    RoundOutput,
    RoundTableOutput,
    StandingsOutput,
)
from tournaments.selectors import (
    event_announcements,
    event_audit,
    event_detail,
    event_entries,
    event_rounds,
    event_rules_summary,
    event_standings,
)

Status = Tournament.Status
TIEBREAK_LABELS = {"sonneborn_berger": "Sonneborn-Berger"}


def viewer_of(request: HttpRequest) -> Any:
    return request.user if request.user.is_authenticated else None


def page_context(request: HttpRequest, event: Tournament) -> dict[str, Any]:
    """What the event page and its live fragment show."""
    viewer = viewer_of(request)
    detail = event_detail(event, viewer)
    rounds = event_rounds(event)
    entry_rows = event_entries(event)
    context: dict[str, Any] = {
        "event": event,
        "detail": detail,
        "rules": event_rules_summary(event),
        "you": player_panel(event, detail, rounds, viewer),
        "entries": entry_rows,
        "announcements": event_announcements(event),
        "rounds": rounds,
        "standings": standings_for_page(event_standings(event)),
        "bracket": event_bracket(event),
    }
    if detail["is_admin"]:
        reseat = context["bracket"] is None
        context["tools"] = organizer_tools(event, rounds, entry_rows, reseat=reseat)
        context["audit"] = event_audit(event)
    return context


def standings_for_page(standings: StandingsOutput) -> dict[str, Any]:
    """The standings as the page's table shows them: ``labels`` name the tiebreak columns and
    each row's ``breaks`` fills them (the API leaves both out)."""
    names = standings["tiebreaks"]
    return {
        **standings,
        "labels": [TIEBREAK_LABELS.get(n, n.replace("_", " ").capitalize()) for n in names],
        "rows": [
            {**r, "breaks": [r["tiebreaks"].get(n) for n in names]} for r in standings["rows"]
        ],
    }


def player_panel(
    event: Tournament, detail: EventOutput, rounds: list[RoundOutput], viewer: Any
) -> dict[str, Any]:
    """The visitor's own box: where they stand, what they can do now (``actions``: register,
    check-in, withdraw) and, while they play, their table."""
    if viewer is None:
        return {"login": True, "actions": []}
    entry = detail["my_entry"]
    status = entry["status"] if entry else None
    if event.status == Status.REGISTRATION and status in (None, Entry.Status.WITHDRAWN):
        return {"message": _window_note(event), "actions": ["register"]}
    if status == Entry.Status.REGISTERED and event.status == Status.CHECK_IN:
        note = "Check in to play: whoever has not checked in when the event starts is left out."
        return {"message": note, "actions": ["check-in", "withdraw"]}
    if status == Entry.Status.REGISTERED:
        return {
            "message": "You are registered; check-in opens before the start.",
            "actions": ["withdraw"],
        }
    if status == Entry.Status.CHECKED_IN:
        return {
            "message": "You are checked in: your first table opens here at the start.",
            "actions": ["withdraw"],
        }
    if status == Entry.Status.PLAYING and event.status == Status.RUNNING:
        return {
            "message": "You are playing.",
            "actions": ["withdraw"],
            "table": _my_table(rounds, viewer.username),
        }
    if entry is not None:
        reason = f" ({entry['reason']})" if entry["reason"] else ""
        return {"message": f"Your entry: {entry['status_label'].lower()}{reason}.", "actions": []}
    return {"message": _closed_note(event), "actions": []}


def _window_note(event: Tournament) -> str:
    opens, closes = event.registration_opens_at, event.registration_closes_at
    now = timezone.now()
    if opens and now < opens:
        return f"Registration opens at {opens:%Y-%m-%d %H:%M} UTC."
    if closes and now >= closes:
        return f"Registration closed at {closes:%Y-%m-%d %H:%M} UTC."
    until = f" until {closes:%Y-%m-%d %H:%M} UTC" if closes else ""
    return f"Registration is open{until}."


def _closed_note(event: Tournament) -> str:
    if event.status in (Status.DRAFT,):
        return "Registration has not opened yet."
    if event.status in (Status.FINISHED, Status.CANCELLED):
        return f"This event is {event.get_status_display().lower()}."
    return "Registration is closed."


def _my_table(rounds: list[RoundOutput], username: str) -> RoundTableOutput | None:
    """The visitor's table in the latest round, if they sit at one."""
    for table in rounds[-1]["tables"] if rounds else []:
        if username in table["players"]:
            return table
    return None


def organizer_tools(
    event: Tournament,
    rounds: list[RoundOutput],
    entry_rows: list[EntryOutput],
    *,
    reseat: bool,
) -> dict[str, Any]:
    """What the organizer forms offer: the calls the event's status allows, the players who
    may be removed, the tables waiting for a result, the rounds waiting to start (and to be
    re-seated, unless a bracket's draw fixes who meets whom)."""
    running = event.status == Status.RUNNING
    live = (Entry.Status.REGISTERED, Entry.Status.CHECKED_IN, Entry.Status.PLAYING)
    return {
        "open_registration": event.status == Status.DRAFT,
        "open_check_in": event.status == Status.REGISTRATION,
        "close": event.status in (Status.REGISTRATION, Status.CHECK_IN),
        "start": event.status == Status.CHECK_IN,
        "pause": running and event.paused_at is None,
        "resume": running and event.paused_at is not None,
        "cancel": event.status not in (Status.FINISHED, Status.CANCELLED),
        "players": [e for e in entry_rows if e["status"] in live],
        "open_tables": [
            t
            for r in rounds
            if r["status"] == Round.Status.RUNNING
            for t in r["tables"]
            if t["placements"] is None
        ],
        "reseat": reseat,
        "waiting_rounds": [
            {**r, "seating": seating_text(r["tables"])}
            for r in rounds
            if r["status"] == Round.Status.PENDING
        ],
    }
