"""Entering an event: registration (with its conditions), withdrawal and check-in.

Each service takes the event's row lock, so two last players racing for the last place, or a
check-in racing the start, are settled by the database. Their preconditions are the checks of
``tournaments.refusals``, which the event page asks too.
"""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from accounts.models import User
from config.errors import refuse
from tournaments.departures import leave_event
from tournaments.locks import lock_event
from tournaments.models import Entry, Tournament
from tournaments.push import on_commit_event
from tournaments.refusals import (
    STILL_IN,
    check_in_refusal,
    register_refusal,
    withdraw_refusal,
)

Status = Tournament.Status


def entry_register(*, event_id: int, user: User) -> Entry:
    """Enter ``user``, if registration is open and they meet the event's conditions. Entering
    again after withdrawing is allowed while registration is open; entering twice is a no-op.

    :raises EventError: ``wrong_status`` (409) outside registration, ``not_eligible`` (403) with
        the condition not met, ``event_full`` (409).
    """
    with transaction.atomic():
        event = lock_event(event_id)
        entry = Entry.objects.filter(tournament=event, user=user).first()
        if entry is not None and entry.status == Entry.Status.REGISTERED:
            return entry
        refuse(register_refusal(event, user))
        on_commit_event(event.pk, "entries")
        if entry is None:
            return Entry.objects.create(tournament=event, user=user)
        entry.status = Entry.Status.REGISTERED
        entry.left_at = None
        entry.save(update_fields=["status", "left_at"])
        return entry


def entry_check_in(*, event_id: int, user: User) -> Entry:
    """Confirm a registered player will play. Checking in twice is a no-op.

    :raises EventError: ``not_registered`` (400), ``wrong_status`` (409) outside check-in.
    """
    with transaction.atomic():
        event = lock_event(event_id)
        entry = Entry.objects.filter(tournament=event, user=user).first()
        if entry is not None and entry.status == Entry.Status.CHECKED_IN:
            return entry
        refuse(check_in_refusal(event, entry.status if entry else None))
        assert entry is not None  # check_in_refusal refuses one who never entered
        entry.status = Entry.Status.CHECKED_IN
        entry.checked_in_at = timezone.now()
        entry.save(update_fields=["status", "checked_in_at"])
        on_commit_event(event.pk, "entries")
        return entry


def entry_withdraw(*, event_id: int, user: User) -> Entry:
    """Leave an event. Before it starts the place is freed; once it runs, the player's current
    table plays on with them absent and they are left out of later rounds. Withdrawing once
    gone (withdrawn, disqualified, no-show) is a no-op.

    :raises EventError: ``not_registered`` (400), ``wrong_status`` (409) once it is over.
    """
    with transaction.atomic():
        event = lock_event(event_id)
        entry = Entry.objects.filter(tournament=event, user=user).first()
        if entry is not None and entry.status not in STILL_IN:
            return entry
        refuse(withdraw_refusal(event, entry))
        assert entry is not None  # withdraw_refusal refuses one who never entered
        if event.status == Status.RUNNING:
            leave_event(event, entry, Entry.Status.WITHDRAWN, actor=user, reason="withdrew")
            return entry
        entry.status = Entry.Status.WITHDRAWN
        entry.left_at = timezone.now()
        entry.save(update_fields=["status", "left_at"])
        on_commit_event(event.pk, "entries")
        return entry
