"""Live updates of an event's page: after a change commits, everyone watching the event gets a
small ``event`` frame naming what changed, and re-reads what they show (the event's consumer
answers with the fresh event). One group per event; nothing hidden is ever in an event's data.
"""

from __future__ import annotations

from django.db import transaction

from config.push import group_send
from tournaments.models import RoundTable


def event_group(event_id: int) -> str:
    return f"event-{event_id}"


def on_commit_event(event_id: int, what: str) -> None:
    """After commit, tell the event's watchers that ``what`` changed (``entries``, ``round``,
    ``result``, ``status``, ``announcement``)."""

    def send() -> None:
        # Plain text on the wire (``what`` may be an audit action, a str enum).
        group_send(event_group(event_id), {"type": "event.changed", "what": str(what)})

    transaction.on_commit(send, robust=True)


def event_of_table_rated(table_id: int) -> None:
    """A rated game of an event's table moved its players' ratings (``ratings.services``
    calls this after commit): the event's watchers re-read, and its players' list shows them."""
    event_id = (
        RoundTable.objects.filter(table_id=table_id)
        .values_list("round__tournament_id", flat=True)
        .first()
    )
    if event_id is not None:
        group_send(event_group(event_id), {"type": "event.changed", "what": "ratings"})
