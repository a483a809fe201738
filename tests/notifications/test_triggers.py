"""Each trigger of a notice: a round's tables opened (each seated player, with their table's
link), check-in opened (by an organizer or the schedule), the event starting within ten
minutes (beat's sweep, run twice, tells once), a rematch offered (the others, not the
offerer)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from config.celery import app as celery_app
from games import rematch
from notifications.models import Kind, Notification
from tests.games.finished import finished_table
from tests.games.tables import players
from tests.notifications.helpers import notices_of, race
from tests.tournaments.factories import FOUR, make_event, round_of, staff, started_event
from tournaments.models import Entry
from tournaments.notices import notify_starting_soon
from tournaments.organizer import round_start
from tournaments.services import event_open_check_in
from tournaments.tasks import REMIND_STARTING, events_due, remind_starting

pytestmark = pytest.mark.django_db


def kinds(username: str) -> list[str]:
    return [n.kind for n in notices_of(username)]


def test_each_seated_player_hears_their_table_is_ready() -> None:
    director = staff()
    event = started_event(director, FOUR, name="Spring cup")
    tables = list(round_of(event).tables.select_related("table").order_by("index"))
    assert len(tables) == 2
    names = dict(Entry.objects.filter(tournament=event).values_list("pk", "user__username"))
    for table in tables:
        for entry_id in table.players:
            ready = [n for n in notices_of(names[entry_id]) if n.kind == Kind.TABLE_READY]
            assert len(ready) == 1
            assert ready[0].link == f"/tables/{table.table_id}/"
            assert ready[0].text == (
                f"Spring cup, {round_of(event).name}: your table is ready (table {table.table_id})."
            )
    assert not Notification.objects.filter(user=director).exists()


def test_a_round_started_by_its_organizer_tells_its_players_then() -> None:
    director = staff()
    event = started_event(director, FOUR, auto_advance=False)
    assert not Notification.objects.filter(kind=Kind.TABLE_READY).exists()
    first = round_of(event)
    round_start(event_id=event.pk, round_id=first.pk, actor=director)
    assert Notification.objects.filter(kind=Kind.TABLE_READY).count() == 4


def test_check_in_opened_by_an_organizer_tells_every_entrant_once() -> None:
    director = staff()
    event = make_event(director, status="registration", players=["ann", "bob"], name="Cup")
    assert kinds("ann") == []
    event_open_check_in(event_id=event.pk, actor=director)
    event_open_check_in(event_id=event.pk, actor=director)  # already open: a no-op
    for name in ("ann", "bob"):
        (notice,) = notices_of(name)
        assert notice.kind == Kind.CHECK_IN_OPEN
        assert notice.link == f"/events/{event.slug}/"
        assert notice.text == "Check-in has opened for Cup: check in before it starts."
    assert not Notification.objects.filter(user=director).exists()


def test_check_in_opened_by_the_schedule_tells_entrants() -> None:
    director = staff()
    now = timezone.now()
    make_event(
        director,
        status="registration",
        players=["ann"],
        check_in_opens_at=now - timedelta(minutes=1),
        starts_at=now + timedelta(hours=1),
    )
    assert events_due()["check_in"] == 1
    assert kinds("ann") == [Kind.CHECK_IN_OPEN]


@pytest.mark.django_db(transaction=True)
def test_the_ten_minute_sweep_tells_each_entrant_once() -> None:
    """Beat's task through Celery's own call, twice (its signals tidy the connection as a
    worker's do, so the data is committed first)."""
    director = staff()
    now = timezone.now()
    soon = make_event(
        director,
        status="check_in",
        players=["ann", "bob"],
        name="Soon",
        starts_at=now + timedelta(minutes=8),
    )
    make_event(
        director,
        status="check_in",
        players=["cid"],
        name="Later",
        starts_at=now + timedelta(minutes=30),
    )
    assert remind_starting.apply().get() == 2
    assert remind_starting.apply().get() == 0  # run twice: told once
    ann = [n for n in notices_of("ann") if n.kind == Kind.STARTS_SOON]
    assert len(ann) == 1 and ann[0].link == f"/events/{soon.slug}/"
    assert ann[0].text.startswith("Soon starts in ")
    assert not [n for n in notices_of("cid") if n.kind == Kind.STARTS_SOON]


@pytest.mark.django_db(transaction=True)
def test_two_sweeps_at_once_tell_each_entrant_once() -> None:
    director = staff()
    now = timezone.now()
    make_event(director, status="check_in", players=FOUR, starts_at=now + timedelta(minutes=5))
    told = race([lambda: notify_starting_soon(now, 10), lambda: notify_starting_soon(now, 10)])
    assert all(isinstance(n, int) for n in told) and sum(told) == 4, told  # however they split
    assert Notification.objects.filter(kind=Kind.STARTS_SOON).count() == 4


def test_the_sweeps_task_is_registered_under_its_beat_name(settings: Any) -> None:
    entry = settings.CELERY_BEAT_SCHEDULE["events-starting-soon"]
    assert entry["task"] == REMIND_STARTING
    assert celery_app.tasks[entry["task"]].name == REMIND_STARTING


def test_the_sweep_reminds_an_entrant_who_has_not_checked_in(settings: Any) -> None:
    director = staff()
    now = timezone.now()
    event = make_event(
        director, status="registration", players=["ann"], starts_at=now + timedelta(minutes=5)
    )
    event_open_check_in(event_id=event.pk, actor=director)  # ann has not checked in
    remind_starting()
    (notice,) = [n for n in notices_of("ann") if n.kind == Kind.STARTS_SOON]
    assert notice.text.endswith("Check in now to play.")


def test_a_rematch_offer_tells_the_others_not_the_offerer() -> None:
    ann, bob, cid = players("ann", "bob", "cid")
    table = finished_table([ann, bob, cid])
    rematch.table_rematch(table_id=table.pk, user=bob, accept=True)
    rematch.table_rematch(table_id=table.pk, user=cid, accept=True)  # accepting, not offering
    assert kinds("bob") == []
    for name in ("ann", "cid"):
        (notice,) = notices_of(name)
        assert notice.kind == Kind.REMATCH_OFFER
        assert notice.link == f"/tables/{table.pk}/"
        assert notice.text == f"bob offers you a rematch of table {table.pk}."


def test_a_first_answer_that_declines_offers_nothing() -> None:
    ann, bob = players("ann", "bob")
    table = finished_table([ann, bob])
    rematch.table_rematch(table_id=table.pk, user=ann, accept=False)
    assert not Notification.objects.exists()
