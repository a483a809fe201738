"""What an event tells its players through ``notifications``: their table is ready, check-in
has opened, the event starts in ten minutes. Each notice has a key naming the event (or the
table) and what happened, so a step that runs twice, or two sweeps that overlap, tell each
player once. Only names and links go into a notice: never anything of a game in play.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta

from django.urls import reverse

from accounts.models import User
from notifications.models import Kind
from notifications.services import notify
from tournaments.models import Entry, Round, RoundTable, Tournament

#: Entries that still expect to play when check-in opens or the start is near.
EXPECTED = (Entry.Status.REGISTERED, Entry.Status.CHECKED_IN)


def notify_table_ready(
    event: Tournament, round_: Round, table: RoundTable, players: Sequence[User]
) -> None:
    """Tell each player seated at ``table`` (its game just opened) where to go."""
    assert table.table_id is not None
    link = reverse("games:table", args=[table.table_id])
    text = f"{event.name}, {round_.name}: your table is ready (table {table.table_id})."
    for user in players:
        notify(
            user=user, kind=Kind.TABLE_READY, text=text, link=link, key=f"table:{table.table_id}"
        )


def notify_check_in_open(event: Tournament) -> None:
    """Tell every entrant that check-in has opened. Call in the transaction that opened it."""
    text = f"Check-in has opened for {event.name}: check in before it starts."
    link = event.get_absolute_url()
    for entry in event.entries.filter(status__in=EXPECTED).select_related("user"):
        notify(
            user=entry.user,
            kind=Kind.CHECK_IN_OPEN,
            text=text,
            link=link,
            key=f"check-in:{event.pk}",
        )


def notify_starting_soon(now: datetime, minutes: int) -> int:
    """The sweep: tell the entrants of every event that starts within ``minutes`` of ``now``
    (and has not started) that it is near, once per entrant and event; how many were told."""
    events = Tournament.objects.filter(
        status__in=(Tournament.Status.REGISTRATION, Tournament.Status.CHECK_IN),
        starts_at__gt=now,
        starts_at__lte=now + timedelta(minutes=minutes),
    )
    told = 0
    for event in events:
        assert event.starts_at is not None
        left = max(1, round((event.starts_at - now).total_seconds() / 60))
        # Those told already are left out here, so the sweeps after the first cost one query
        # per event; ``notify``'s key still settles two sweeps that overlap.
        untold = (
            event.entries.filter(status__in=EXPECTED)
            .exclude(user__notifications__key=_starts_key(event))
            .select_related("user")
        )
        for entry in untold:
            told += _tell_starting(event, entry, left)
    return told


def _starts_key(event: Tournament) -> str:
    return f"starts:{event.pk}"


def _tell_starting(event: Tournament, entry: Entry, minutes: int) -> int:
    text = f"{event.name} starts in {minutes} minute{'s' if minutes != 1 else ''}."
    if entry.status == Entry.Status.REGISTERED and event.status == Tournament.Status.CHECK_IN:
        text += " Check in now to play."
    made = notify(
        user=entry.user,
        kind=Kind.STARTS_SOON,
        text=text,
        link=event.get_absolute_url(),
        key=_starts_key(event),
    )
    return made is not None
