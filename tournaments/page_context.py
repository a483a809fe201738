"""What the event page and its live fragment show: the event's reads, the visitor's own box
(where they stand and what they can do now), and for organizers the tools their event's state
allows and its audit log.

What the box and the tools offer comes from the services' own checks (``tournaments.refusals``):
a call is offered exactly when its service would take it, and where the box says why not, it
says it in the refusal's words."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest

from tournaments.bracket_view import event_bracket
from tournaments.entry_reads import event_entries
from tournaments.errors import EventError
from tournaments.forms import seating_text
from tournaments.models import Entry, Round, RoundTable, Tournament
from tournaments.payloads import (
    EntryOutput,
    EventOutput,
    RoundOutput,
    RoundTableOutput,
    StandingsOutput,
)
from tournaments.refusals import (
    STILL_IN,
    adjudicate_refusal,
    anyone_register_refusal,
    cancel_refusal,
    check_in_refusal,
    close_window_refusal,
    open_check_in_refusal,
    open_registration_refusal,
    pause_refusal,
    register_refusal,
    remove_refusal,
    reseat_refusal,
    result_entry_refusal,
    resume_refusal,
    round_start_refusal,
    seeding_refusal,
    start_refusal,
    window_refusal,
    withdraw_refusal,
)
from tournaments.seed_order import seeding_preview
from tournaments.selectors import (
    event_announcements,
    event_audit,
    event_detail,
    event_rounds,
    event_rules,
    event_rules_summary,
    event_standings,
)
from tournaments.stalls import stalled_tables
from tournaments.standing import Standing, own_message

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
        # The clock row reads the rules the tables play, the same as the rules text.
        "clock": event_rules(event) or event,
        "you": player_panel(event, detail, rounds, viewer),
        "entries": entry_rows,
        "announcements": event_announcements(event),
        "rounds": rounds,
        "standings": standings_for_page(event_standings(event)),
        "bracket": event_bracket(event),
    }
    if detail["is_admin"]:
        context["tools"] = organizer_tools(event, rounds, entry_rows, viewer)
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
    """The visitor's own box: where they stand (from their entry: ``tournaments.standing``),
    what they can do now (``actions``: register, check-in, withdraw, each offered exactly when
    its service would take it) and, while they play, their table. A visitor who is not logged
    in is asked to log in to register only while registration is open."""
    if viewer is None:
        refusal = anyone_register_refusal(event)
        message = _closed_note(event)
        if refusal is not None and event.status == Status.REGISTRATION:
            message = _sentence(refusal)  # the window's times, or the places taken
        return {"login": refusal is None, "message": message, "actions": []}
    entry = detail["my_entry"]
    own = Entry.objects.filter(tournament=event, user=viewer).first() if entry else None
    calls = _own_calls(event, viewer, own)
    panel: dict[str, Any] = {
        "message": _message(event, entry, calls),
        "actions": [name for name, refusal in calls.items() if refusal is None],
    }
    if entry and entry["standing"] == Standing.PLAYING and event.status == Status.RUNNING:
        panel["table"] = _my_table(rounds, viewer.username)
    return panel


def _own_calls(event: Tournament, viewer: Any, entry: Entry | None) -> dict[str, EventError | None]:
    """Each of the box's calls that would change something, with its service's refusal (None:
    accepted). Registering or checking in again, and withdrawing once gone, change nothing."""
    status = entry.status if entry else None
    calls: dict[str, EventError | None] = {}
    if status != Entry.Status.REGISTERED:
        calls["register"] = register_refusal(event, viewer)
    if status != Entry.Status.CHECKED_IN:
        calls["check-in"] = check_in_refusal(event, status)
    if status in STILL_IN:
        calls["withdraw"] = withdraw_refusal(event, entry)
    return calls


def _message(
    event: Tournament, entry: EntryOutput | None, calls: dict[str, EventError | None]
) -> str:
    """Where the visitor stands (from their entry's standing); why they cannot register or
    check in, in the refusal's own words."""
    status = entry["status"] if entry else None
    if event.status == Status.REGISTRATION and status in (None, Entry.Status.WITHDRAWN):
        return _sentence(calls["register"]) if calls["register"] else _open_note(event)
    if status == Entry.Status.REGISTERED and event.status == Status.CHECK_IN:
        if calls["check-in"]:
            return _sentence(calls["check-in"])
        return "Check in to play: whoever has not checked in when the event starts is left out."
    if status == Entry.Status.REGISTERED and calls["withdraw"] is None:
        return "You are registered; check-in opens before the start."
    if status == Entry.Status.CHECKED_IN and calls["withdraw"] is None:
        return "You are checked in: your first table opens here at the start."
    if entry is None:
        return _closed_note(event)
    seeded = own_message(event, Standing(entry["standing"]), entry["standing_label"])
    if seeded is not None:
        return seeded
    reason = f" ({entry['reason']})" if entry["reason"] else ""
    return f"Your entry: {entry['standing_label'].lower()}{reason}."


def _sentence(refusal: EventError) -> str:
    return f"{refusal.message[:1].upper()}{refusal.message[1:]}."


def _open_note(event: Tournament) -> str:
    closes = event.registration_closes_at
    until = f" until {closes:%Y-%m-%d %H:%M} UTC" if closes else ""
    return f"Registration is open{until}."


def _closed_note(event: Tournament) -> str:
    """For one without an entry: whether registration is open, and if not why."""
    if event.status == Status.REGISTRATION:
        refusal = window_refusal(event, Status.REGISTRATION)
        return _sentence(refusal) if refusal else _open_note(event)
    return CLOSED_NOTES[Status(event.status)]


CLOSED_NOTES = {
    Status.DRAFT: "Registration has not opened yet.",
    Status.CHECK_IN: "Registration is closed: check-in is open to the registered players.",
    Status.RUNNING: "Registration is closed: the event is under way.",
    Status.FINISHED: "This event is finished.",
    Status.CANCELLED: "This event is cancelled.",
}


def _my_table(rounds: list[RoundOutput], username: str) -> RoundTableOutput | None:
    """The visitor's table in the latest round, if they sit at one."""
    for table in rounds[-1]["tables"] if rounds else []:
        if username in table["players"]:
            return table
    return None


def organizer_tools(
    event: Tournament, rounds: list[RoundOutput], entry_rows: list[EntryOutput], actor: Any
) -> dict[str, Any]:
    """What the organizer forms offer ``actor``, each exactly when its service would take it:
    the event's moves, the players who may be removed, the tables waiting for a result (to
    enter or decide), the rounds waiting to start (and to be re-seated)."""
    start = start_refusal(event)
    return {
        "open_registration": open_registration_refusal(event) is None,
        "open_check_in": open_check_in_refusal(event) is None,
        "close": close_window_refusal(event) is None,
        "start": start is None,
        # In check-in, why it cannot start yet (too few checked in for its format): a refusal
        # of the event's stage says no more than the buttons the stage shows.
        "start_note": _start_note(start),
        # One of the two, as the event stands: pausing a paused event changes nothing.
        "pause": pause_refusal(event) is None and event.paused_at is None,
        "resume": resume_refusal(event) is None and event.paused_at is not None,
        "cancel": event.status != Status.CANCELLED and cancel_refusal(event) is None,
        "players": _removable(event, entry_rows, actor),
        # Before the start: the order the start would seed, to reorder by hand.
        "seeding": seeding_preview(event) if seeding_refusal(event) is None else None,
        "open_tables": _open_tables(event, rounds, actor),
        "waiting_rounds": _waiting_rounds(event, rounds, actor),
        # Tables whose result a finalization hook failed to record (``tournaments.stalls``).
        "stalled": stalled_tables(event),
    }


def _start_note(refusal: EventError | None) -> str | None:
    if refusal is None or refusal.code == "wrong_status":
        return None
    return f"The event cannot start yet. {_sentence(refusal)}"


def _removable(event: Tournament, entry_rows: list[EntryOutput], actor: Any) -> list[EntryOutput]:
    """The players still in the event whom ``actor`` may withdraw or disqualify. The refusal
    turns on whether the entry is the actor's own, so it is asked once for each case."""
    may = {own: remove_refusal(event, actor, own=own) is None for own in (False, True)}
    return [
        e for e in entry_rows if e["status"] in STILL_IN and may[e["username"] == actor.username]
    ]


def _open_tables(event: Tournament, rounds: list[RoundOutput], actor: Any) -> list[dict[str, Any]]:
    """The tables of running rounds still waiting for their result, each with what ``actor``
    may do there: enter the game played face to face (``enter_result``), or decide it
    (``adjudicate``)."""
    waiting = RoundTable.objects.filter(
        round__tournament=event, round__status=Round.Status.RUNNING, places__isnull=True
    ).select_related("table", "round__tournament")
    by_id = {t.pk: t for t in waiting}
    out = []
    for row in (t for r in rounds for t in r["tables"] if t["id"] in by_id):
        table = by_id[row["id"]]
        calls = {
            "enter_result": result_entry_refusal(event, table, actor) is None,
            "adjudicate": adjudicate_refusal(table, actor) is None,
        }
        if any(calls.values()):
            out.append({**row, **calls})
    return out


def _waiting_rounds(
    event: Tournament, rounds: list[RoundOutput], actor: Any
) -> list[dict[str, Any]]:
    """The rounds waiting to start, each with what ``actor`` may do: re-seat it (``reseat``:
    not a bracket's, whose draw fixes who meets whom), start it (``start``)."""
    pending = {r.pk: r for r in event.round_set.filter(status=Round.Status.PENDING)}
    out = []
    for row in (r for r in rounds if r["id"] in pending):
        round_ = pending[row["id"]]
        calls = {
            "reseat": reseat_refusal(event, round_, actor) is None,
            "start": round_start_refusal(event, round_) is None,
        }
        if any(calls.values()):
            out.append({**row, **calls, "seating": seating_text(row["tables"])})
    return out
