"""Where an event and each of its players stand, in words: the one source of the event page's
status line, of each player's status in the players' list, of the visitor's own box, and of the
API's ``status_text`` and ``standing`` fields.

An entry's stored status says how the player entered and whether they left (registered, checked
in, playing, withdrawn, disqualified, did not check in); it stays ``playing`` for everyone seeded
until the end. How a player seeded into the event stands is read with the event's state and its
standings: still playing, knocked out (an elimination format's standings mark them out), or,
once the event is over, the winner or their final place.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from tournaments.format_inputs import entrants_of, gone_of, played_so_far, settings_of
from tournaments.formats import FormatError, get_format
from tournaments.models import Entry, Round, Tournament

Status = Tournament.Status


class Standing(StrEnum):
    """How a player stands in an event (the API's ``standing``)."""

    REGISTERED = "registered"
    CHECKED_IN = "checked_in"
    NO_SHOW = "no_show"
    PLAYING = "playing"
    KNOCKED_OUT = "knocked_out"
    WITHDRAWN = "withdrawn"
    DISQUALIFIED = "disqualified"
    WINNER = "winner"
    PLACE = "place"  # a final place, below the winner
    CANCELLED = "cancelled"  # seeded into an event that was then called off


#: The entry statuses whose words are the standing's, whatever the event's state.
_AS_ENTERED = {
    Entry.Status.REGISTERED: Standing.REGISTERED,
    Entry.Status.CHECKED_IN: Standing.CHECKED_IN,
    Entry.Status.NO_SHOW: Standing.NO_SHOW,
    Entry.Status.WITHDRAWN: Standing.WITHDRAWN,
    Entry.Status.DISQUALIFIED: Standing.DISQUALIFIED,
}
LABELS = {
    Standing.REGISTERED: "Registered",
    Standing.CHECKED_IN: "Checked in",
    Standing.NO_SHOW: "Did not check in",
    Standing.PLAYING: "Playing",
    Standing.KNOCKED_OUT: "Knocked out",
    Standing.WITHDRAWN: "Withdrawn",
    Standing.DISQUALIFIED: "Disqualified",
    Standing.WINNER: "Winner",
    Standing.CANCELLED: "Event cancelled",
}


@dataclass(frozen=True)
class EntryStanding:
    standing: Standing
    label: str  # "Knocked out", "2nd place"
    rank: int | None = None


def ordinal(n: int) -> str:
    """>>> [ordinal(n) for n in (1, 2, 3, 4, 11, 12, 13, 21, 22)]
    ['1st', '2nd', '3rd', '4th', '11th', '12th', '13th', '21st', '22nd']
    """
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def standings_by_entry(event: Tournament) -> dict[int, dict[str, Any]]:
    """The event's standings rows by entry id: those stored as of its last finished round and,
    while a bracket runs, who is out already: a player who lost a match of the running round is
    knocked out at once, not when the round's last table is in (the bracket shows it then)."""
    rows = {row["entry"]: row for row in event.standings}
    if event.status != Status.RUNNING or not _is_bracket(event.format):
        return rows
    try:
        live = get_format(event.format).standings(
            entrants_of(event), played_so_far(event), settings_of(event), gone=gone_of(event)
        )
    except FormatError:
        return rows  # a history the format refuses: the stored standings stand
    for line in live:
        if line.eliminated:
            row = rows.get(line.entrant, {"entry": line.entrant, "rank": line.rank})
            rows[line.entrant] = {**row, "eliminated": True}
    return rows


def _is_bracket(slug: str) -> bool:
    try:
        return hasattr(get_format(slug), "bracket")
    except FormatError:
        return False


def entry_standing(
    event: Tournament, entry: Entry, rows: dict[int, dict[str, Any]]
) -> EntryStanding:
    """How ``entry`` stands in ``event``; ``rows`` is ``standings_by_entry(event)``."""
    if entry.status in _AS_ENTERED:
        found = _AS_ENTERED[Entry.Status(entry.status)]
        return EntryStanding(found, LABELS[found])
    row = rows.get(entry.pk)
    if event.status == Status.FINISHED:
        if event.champion_id is not None and event.champion_id == entry.user_id:
            return EntryStanding(Standing.WINNER, LABELS[Standing.WINNER], 1)
        if row is not None:
            return EntryStanding(Standing.PLACE, f"{ordinal(row['rank'])} place", row["rank"])
    if event.status == Status.CANCELLED:
        return EntryStanding(Standing.CANCELLED, LABELS[Standing.CANCELLED])
    if event.status == Status.RUNNING and row is not None and row["eliminated"]:
        return EntryStanding(Standing.KNOCKED_OUT, LABELS[Standing.KNOCKED_OUT], row["rank"])
    return EntryStanding(Standing.PLAYING, LABELS[Standing.PLAYING])


def is_knocked_out(event: Tournament, entry: Entry) -> bool:
    """Whether a player still entered is out of a running event's play (knocked out)."""
    found = entry_standing(event, entry, standings_by_entry(event))
    return found.standing == Standing.KNOCKED_OUT


def event_status_text(
    event: Tournament,
    latest: Round | None,
    counts: dict[str, int],
    knocked_out: int,
) -> str:
    """The event page's status line: the event's state, its round's, and its players'.

    ``counts`` are the entries by stored status, ``knocked_out`` how many of those ``playing``
    are out of a running event."""
    label = event.get_status_display()
    if event.status == Status.DRAFT:
        return f"{label} · registration has not opened"
    if event.status in (Status.REGISTRATION, Status.CHECK_IN):
        return f"{label} · {_entered_text(event, counts)}"
    left = counts.get(Entry.Status.WITHDRAWN, 0) + counts.get(Entry.Status.DISQUALIFIED, 0)
    seeded = counts.get(Entry.Status.PLAYING, 0) + left
    if event.status == Status.FINISHED:
        champion = f" · won by {event.champion.username}" if event.champion else ""
        return f"{label}{champion} · {_players(seeded)}"
    if event.status == Status.CANCELLED:
        return label
    playing = counts.get(Entry.Status.PLAYING, 0) - knocked_out
    parts = [f"{label}{' (paused)' if event.paused_at else ''}"]
    if latest is not None:
        parts.append(f"{latest.name}: {latest.get_status_display().lower()}")
    out = [f"{playing} playing"]
    if knocked_out:
        out.append(f"{knocked_out} knocked out")
    if left:
        out.append(f"{left} left")
    return " · ".join([*parts, ", ".join(out)])


def _entered_text(event: Tournament, counts: dict[str, int]) -> str:
    checked_in = counts.get(Entry.Status.CHECKED_IN, 0)
    registered = counts.get(Entry.Status.REGISTERED, 0) + checked_in
    places = f" of {event.max_players} places" if event.max_players else ""
    text = f"{registered} registered{places}"
    if event.status == Status.CHECK_IN:
        text += f", {checked_in} checked in"
    return text


def _players(n: int) -> str:
    return f"{n} player{'s' if n != 1 else ''}"


def own_message(event: Tournament, standing: Standing, label: str) -> str | None:
    """The visitor's own box, for a player seeded into the event (None: another case)."""
    if standing == Standing.PLAYING and event.status == Status.RUNNING:
        return "You are playing."
    if standing == Standing.KNOCKED_OUT:
        return "You are knocked out: the event goes on without you."
    if standing == Standing.WINNER:
        return "You won the event."
    if standing == Standing.PLACE:
        return f"You finished in {label}."
    if standing == Standing.CANCELLED:
        return "The event was cancelled."
    return None
