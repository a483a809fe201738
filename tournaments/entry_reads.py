"""Reads of an event's entries, for the pages and the API: each entry with how it stands
(``tournaments.standing``) and its player's current rating in the event's pool, and the status
line counted from them. Apart from ``selectors`` to keep each module small."""

from __future__ import annotations

from typing import Any

from ratings.selectors import ratings_in
from tournaments.access import event_pool
from tournaments.models import Entry, Round, Tournament
from tournaments.payloads import EntryOutput
from tournaments.standing import entry_standing, event_status_text, standings_by_entry

Status = Tournament.Status


def my_entry(
    event: Tournament, viewer: Any, rows: dict[int, dict[str, Any]] | None = None
) -> EntryOutput | None:
    if viewer is None or not viewer.is_authenticated:
        return None
    entry = event.entries.filter(user=viewer).select_related("user").first()
    return entry_row(event, entry, rows) if entry else None


def entry_row(
    event: Tournament,
    entry: Entry,
    rows: dict[int, dict[str, Any]] | None = None,
    ratings: dict[int, float] | None = None,
) -> EntryOutput:
    """One entry (``entry.user`` read with it). ``rows`` (``standing.standings_by_entry``)
    and ``ratings`` (current, by user id) are given when listing many, read here otherwise."""
    found = entry_standing(event, entry, standings_by_entry(event) if rows is None else rows)
    if ratings is None:
        ratings = ratings_in(event_pool(event), [entry.user_id])
    return {
        "id": entry.pk,
        "username": entry.user.username,
        "status": entry.status,
        "status_label": entry.get_status_display(),
        "standing": found.standing,
        "standing_label": found.label,
        "seed": entry.seed,
        "rating": entry.rating,
        "rating_now": round(ratings[entry.user_id]),
        "reason": entry.reason,
        "registered_at": entry.registered_at,
        "checked_in_at": entry.checked_in_at,
    }


def event_entries(event: Tournament) -> list[EntryOutput]:
    """Every entry: seeded ones by seed, then the rest in the order they registered; each with
    how it stands and its player's current rating in the event's pool."""
    entries = list(event.entries.select_related("user").order_by("seed", "registered_at", "pk"))
    rows = standings_by_entry(event)
    ratings = ratings_in(event_pool(event), [e.user_id for e in entries])
    return [entry_row(event, e, rows, ratings) for e in entries]


def event_status_line(
    event: Tournament, latest: Round | None, counts: dict[str, int], rows: dict[int, Any]
) -> str:
    """``standing.event_status_text`` with the players knocked out counted from ``rows``
    (``standing.standings_by_entry``)."""
    out = 0
    if event.status == Status.RUNNING and counts.get(Entry.Status.PLAYING):
        playing = event.entries.filter(status=Entry.Status.PLAYING, pk__in=list(rows))
        out = sum(1 for pk in playing.values_list("pk", flat=True) if rows[pk]["eliminated"])
    return event_status_text(event, latest, counts, out)
