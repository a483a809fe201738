"""The events' own schedule (``tournaments.tasks``): registration, check-in and the start
happen at their times without an organizer; an event that cannot start is cancelled."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.conf import settings
from django.utils import timezone

from tests.accounts.factories import UserFactory
from tournaments.entries import entry_check_in, entry_register
from tournaments.models import AuditEntry, Tournament
from tournaments.services import event_create
from tournaments.tasks import RUN_SCHEDULE, events_due, run_schedule

pytestmark = pytest.mark.django_db

PAST = timedelta(minutes=1)


def scheduled(**times: object) -> Tournament:
    director = UserFactory(is_staff=True)
    return event_create(
        created_by=director, name="Timed", format="swiss", overrides={"target": 50}, **times
    )  # type: ignore[arg-type]


def test_the_schedule_runs_on_beat() -> None:
    assert RUN_SCHEDULE in {entry["task"] for entry in settings.CELERY_BEAT_SCHEDULE.values()}


def test_each_step_happens_when_its_time_comes() -> None:
    now = timezone.now()
    event = scheduled(
        registration_opens_at=now - PAST,
        check_in_opens_at=now + timedelta(hours=1),
        starts_at=now + timedelta(hours=2),
    )
    assert events_due()["registration"] == 1
    event.refresh_from_db()
    assert event.status == "registration"
    players = [UserFactory() for _ in range(4)]
    for user in players:
        entry_register(event_id=event.pk, user=user)
    assert events_due() == {"registration": 0, "check_in": 0, "started": 0, "cancelled": 0}
    Tournament.objects.filter(pk=event.pk).update(check_in_opens_at=now - PAST)
    events_due()
    for user in players:
        entry_check_in(event_id=event.pk, user=user)
    Tournament.objects.filter(pk=event.pk).update(starts_at=now - PAST)
    assert run_schedule()["started"] == 1
    event.refresh_from_db()
    assert event.status == "running" and event.round_set.count() == 1
    steps = list(AuditEntry.objects.filter(tournament=event).values_list("action", "actor"))
    assert ("start", None) in steps and ("check_in", None) in steps


def test_an_event_nobody_checked_in_to_is_cancelled_at_its_start() -> None:
    now = timezone.now()
    event = scheduled(starts_at=now - PAST)
    Tournament.objects.filter(pk=event.pk).update(status="check_in")
    assert events_due()["cancelled"] == 1
    event.refresh_from_db()
    assert event.status == "cancelled"
    reason = AuditEntry.objects.get(tournament=event, action="cancelled").details["reason"]
    assert reason
