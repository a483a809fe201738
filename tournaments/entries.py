"""Entering an event: registration (with its conditions), withdrawal and check-in.

Each service takes the event's row lock, so two last players racing for the last place, or a
check-in racing the start, are settled by the database.
"""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from accounts.models import ClubMembership, User
from tournaments.access import event_pool, rating_and_games
from tournaments.departures import leave_event
from tournaments.errors import EventError, not_eligible, wrong_status
from tournaments.locks import lock_event
from tournaments.models import Entry, Tournament
from tournaments.push import on_commit_event

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
        _check_window(event, Status.REGISTRATION, "registration")
        check_conditions(event, user)
        taken = event.entries.filter(status=Entry.Status.REGISTERED).count()
        if event.max_players is not None and taken >= event.max_players:
            raise EventError("event_full", f"all {event.max_players} places are taken", 409)
        on_commit_event(event.pk, "entries")
        if entry is None:
            return Entry.objects.create(tournament=event, user=user)
        entry.status = Entry.Status.REGISTERED
        entry.left_at = None
        entry.save(update_fields=["status", "left_at"])
        return entry


def check_conditions(event: Tournament, user: User) -> None:
    """:raises EventError: ``not_eligible`` naming the first condition ``user`` does not meet."""
    if (
        event.members_only
        and not ClubMembership.objects.filter(club=event.club, user=user).exists()
    ):
        raise not_eligible(f"only members of {event.club} may enter")
    rating, games = rating_and_games(event_pool(event), user)
    if event.min_rating is not None and rating < event.min_rating:
        raise not_eligible(f"entry needs a rating of at least {event.min_rating:.0f}")
    if event.max_rating is not None and rating > event.max_rating:
        raise not_eligible(f"entry needs a rating of at most {event.max_rating:.0f}")
    if games < event.min_rated_games:
        raise not_eligible(f"entry needs at least {event.min_rated_games} rated games")


def _check_window(event: Tournament, status: Tournament.Status, what: str) -> None:
    if event.status != status:
        raise wrong_status(f"{what} is not open (the event is {event.get_status_display()})")
    now = timezone.now()
    opens, closes = (
        (event.registration_opens_at, event.registration_closes_at)
        if status == Status.REGISTRATION
        else (event.check_in_opens_at, event.check_in_closes_at)
    )
    if opens is not None and now < opens:
        raise wrong_status(f"{what} opens at {opens:%Y-%m-%d %H:%M} UTC")
    if closes is not None and now >= closes:
        raise wrong_status(f"{what} closed at {closes:%Y-%m-%d %H:%M} UTC")


def entry_check_in(*, event_id: int, user: User) -> Entry:
    """Confirm a registered player will play. Checking in twice is a no-op.

    :raises EventError: ``not_registered`` (400), ``wrong_status`` (409) outside check-in.
    """
    with transaction.atomic():
        event = lock_event(event_id)
        entry = _own_entry(event, user)
        if entry.status == Entry.Status.CHECKED_IN:
            return entry
        if entry.status != Entry.Status.REGISTERED:
            raise EventError("not_registered", "you are not registered for this event")
        _check_window(event, Status.CHECK_IN, "check-in")
        entry.status = Entry.Status.CHECKED_IN
        entry.checked_in_at = timezone.now()
        entry.save(update_fields=["status", "checked_in_at"])
        on_commit_event(event.pk, "entries")
        return entry


def _own_entry(event: Tournament, user: User) -> Entry:
    entry = Entry.objects.filter(tournament=event, user=user).first()
    if entry is None:
        raise EventError("not_registered", "you are not registered for this event")
    return entry


def entry_withdraw(*, event_id: int, user: User) -> Entry:
    """Leave an event. Before it starts the place is freed; once it runs, the player's current
    table plays on with them absent and they are left out of later rounds.

    :raises EventError: ``not_registered`` (400), ``wrong_status`` (409) once it is over.
    """
    with transaction.atomic():
        event = lock_event(event_id)
        entry = _own_entry(event, user)
        if not entry.active and entry.status != Entry.Status.REGISTERED:
            return entry
        if event.status in (Status.FINISHED, Status.CANCELLED):
            raise wrong_status("the event is over")
        if event.status == Status.RUNNING:
            leave_event(event, entry, Entry.Status.WITHDRAWN, actor=user, reason="withdrew")
            return entry
        entry.status = Entry.Status.WITHDRAWN
        entry.left_at = timezone.now()
        entry.save(update_fields=["status", "left_at"])
        on_commit_event(event.pk, "entries")
        return entry
