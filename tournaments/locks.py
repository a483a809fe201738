"""The event's row lock, which every write to an event holds.

Lock order, everywhere in this app: a game table's row before the event's row (the finalization
hook arrives holding its table's lock). So no service here touches a live table while it holds
the event's lock; those that must (pause, withdraw, disqualify) do the table part in its own
transaction, after the event's part commits.

A round table's verdict is written under the event's lock, and only after reading the table
again under it: its game's result (the finalization hook), a face-to-face entry (which gives the
table its game), an adjudication (which locks the table's game first when there is one) and a
table left with one player at a round's start. Once a round table has a game, that game alone
decides it (``refusals.adjudicate_refusal``, ``refusals.result_entry_refusal``).
"""

from __future__ import annotations

from tournaments.errors import EventError
from tournaments.models import Tournament


def lock_event(event_id: int) -> Tournament:
    """The event, locked until the transaction ends. Call inside ``transaction.atomic``.

    :raises EventError: ``not_found`` (404).
    """
    found = (
        Tournament.objects.select_for_update(of=("self",))
        .select_related("club", "ruleset")
        .filter(pk=event_id)
        .first()
    )
    if found is None:
        raise EventError("not_found", f"no event {event_id}", 404)
    return found
