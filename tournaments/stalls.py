"""A table whose result cannot be recorded: its finalization hook (the event's, or the
ratings') kept failing and was given up (``games.finalization``). The organizers are told (a
notice, the audit log, the event page's tools), and retry it once they have fixed the cause.

Without this an event stalls in silence: the round never ends while the sweep sends the same
failing hook again every two seconds.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction

from accounts.models import User
from config.errors import refuse
from games import finalization
from games.models import FinalizerFailure
from notifications.models import Kind
from notifications.services import notify
from tournaments.access import event_organizers, require_admin
from tournaments.audit import audit
from tournaments.errors import EventError, wrong_status
from tournaments.locks import lock_event
from tournaments.models import AuditEntry, RoundTable, Tournament
from tournaments.selectors import round_table_get

Action = AuditEntry.Action

#: A notice's text is at most 300 characters (``notifications.Notification``).
_NOTICE_LENGTH = 300


def tell_organizers(failure: FinalizerFailure) -> None:
    """The ``on_given_up`` listener: a hook given up for an event's table is audited and told
    to each of the event's organizers, with a link to the event page (where they retry it).
    Runs in the transaction that records the failure."""
    table = (
        RoundTable.objects.filter(table_id=failure.table_id)
        .select_related("round__tournament")
        .first()
    )
    if table is None:
        return  # not an event's game: the log and the admin show it
    event = table.round.tournament
    where = f"{table.round.name}, table {table.key or table.index + 1}"
    text = (
        f"{event.name}, {where}: its result could not be recorded "
        f"({failure.hook}, {failure.attempts} attempts: {failure.error})"
    )
    then = ". Fix it, then retry it on the event page."
    text = text[: _NOTICE_LENGTH - len(then)] + then
    key = f"stalled:{failure.table_id}:{failure.hook}:{failure.pk}"
    link = event.get_absolute_url()
    for user in event_organizers(event):
        notify(user=user, kind=Kind.EVENT_STALLED, text=text, link=link, key=key)
    details = {
        "table": table.pk,
        "game": failure.table_id,
        "hook": failure.hook,
        "attempts": failure.attempts,
        "error": failure.error,
    }
    audit(event, None, Action.STALLED, details)


def stalled_tables(event: Tournament) -> list[dict[str, Any]]:
    """The event's tables whose result a hook failed to record: each with the hook, the
    attempts, the last reason, and whether it is given up (``retry``: the organizers may retry
    it now) or will be tried again by itself (``retry_at``)."""
    failures = FinalizerFailure.objects.filter(
        table__tournament_table__round__tournament=event
    ).select_related("table__tournament_table__round")
    rows = []
    for failure in failures.order_by("table_id", "hook"):
        table = failure.table.tournament_table
        rows.append(
            {
                "id": table.pk,
                "key": table.key or str(table.index + 1),
                "round": table.round.name,
                "game": failure.table_id,
                "hook": failure.hook,
                "attempts": failure.attempts,
                "error": failure.error,
                "retry": failure.given_up,
                "retry_at": failure.retry_at,
            }
        )
    return rows


def retry_refusal(table: RoundTable) -> EventError | None:
    """Why the organizers may not retry ``table``'s result: nothing about it was given up."""
    if (
        table.table_id is None
        or not FinalizerFailure.objects.filter(
            table_id=table.table_id, retry_at__isnull=True
        ).exists()
    ):
        return wrong_status(f"the result of {table} is not stuck: there is nothing to retry")
    return None


def round_table_retry(*, event_id: int, round_table_id: int, actor: User) -> RoundTable:
    """Send again the hooks given up for ``round_table_id``'s game, once the organizers have
    fixed what made them fail (a rule set, say); they run after commit, as after a game's end,
    and a new failure counts from one again.

    :raises EventError: ``forbidden``, ``not_found``, ``wrong_status`` (nothing is stuck).
    """
    with transaction.atomic():
        table = round_table_get(event_id, round_table_id)
        require_admin(actor, table.round.tournament)
        refuse(retry_refusal(table))
        assert table.table_id is not None  # retry_refusal: it has a game
        # The failures' rows before the event's: the order of a hook that fails, whose
        # listener writes the event's audit log (``tell_organizers``).
        hooks = finalization.retry(table.table_id)
        if not hooks:  # another organizer's retry came first
            raise wrong_status(f"the result of {table} is being recorded again already")
        event = lock_event(event_id)
        audit(event, actor, Action.RETRY, {"table": table.pk, "hooks": hooks})
    return table
