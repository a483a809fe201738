"""The events' own schedule: a beat task that opens registration and check-in, and starts each
event, when their times come (organizers can always do each step by hand earlier)."""

from __future__ import annotations

import logging

from celery import shared_task
from django.conf import settings
from django.db import InterfaceError, OperationalError
from django.utils import timezone

from config.errors import ServiceError
from tournaments.models import Tournament
from tournaments.notices import notify_starting_soon
from tournaments.services import (
    event_cancel,
    event_open_check_in,
    event_open_registration,
    event_start,
)

logger = logging.getLogger(__name__)

RUN_SCHEDULE = "tournaments.tasks.run_schedule"
REMIND_STARTING = "tournaments.tasks.remind_starting"


@shared_task(name=RUN_SCHEDULE, autoretry_for=(OperationalError, InterfaceError), max_retries=3)
def run_schedule() -> dict[str, int]:
    return events_due()


@shared_task(name=REMIND_STARTING, autoretry_for=(OperationalError, InterfaceError), max_retries=3)
def remind_starting() -> int:
    """Beat's sweep: entrants of events starting within ``EVENT_REMINDER_MINUTES`` are told,
    once each (the notice's key makes an overlapping sweep a no-op)."""
    return notify_starting_soon(timezone.now(), settings.EVENT_REMINDER_MINUTES)


def events_due() -> dict[str, int]:
    """Move on every event whose time has come: draft to registration at
    ``registration_opens_at``, registration to check-in at ``check_in_opens_at``, check-in to
    running at ``starts_at``. An event that cannot start (too few players checked in for its
    format) is cancelled, with the reason in its audit log."""
    now = timezone.now()
    moved = {"registration": 0, "check_in": 0, "started": 0, "cancelled": 0}
    for event in Tournament.objects.filter(status="draft", registration_opens_at__lte=now):
        event_open_registration(event_id=event.pk, actor=None)
        moved["registration"] += 1
    for event in Tournament.objects.filter(status="registration", check_in_opens_at__lte=now):
        event_open_check_in(event_id=event.pk, actor=None)
        moved["check_in"] += 1
    for event in Tournament.objects.filter(status="check_in", starts_at__lte=now):
        try:
            event_start(event_id=event.pk, actor=None)
            moved["started"] += 1
        except ServiceError as exc:
            logger.warning("event %s cannot start: %s", event.slug, exc.message)
            event_cancel(event_id=event.pk, actor=None, reason=exc.message)
            moved["cancelled"] += 1
    return moved
