"""Pausing a table (staff or an event's organizers): every clock stands still, nothing is played
or accepted, and on resume the turn's start and deadline move on by the length of the pause."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest

from accounts.models import User
from games import clock_services, services, tasks
from games.clock_services import can_manage, table_enforce_deadline, table_pause, table_resume
from games.errors import TableError
from games.models import Table
from games.push import state_frame
from games.selectors import table_log, table_mismatch, table_payload, table_seats
from games.timers import ENFORCE_TURN
from tests.accounts.factories import UserFactory
from tests.games.clocks import (
    DRAW,
    T0,
    FakeTime,
    Sends,
    Sent,
    fresh,
    play_turn,
)
from tests.games.tables import act, players, started_table, to_move

pytestmark = pytest.mark.django_db

TURN, BANK = 20, 30  # seconds


def clocked(users: list[User]) -> Table:
    return started_table(users, overrides={"turn_seconds": TURN, "time_bank_seconds": BANK})


def refused(code: str, call: Callable[..., Any], **kwargs: Any) -> TableError:
    with pytest.raises(TableError) as info:
        call(**kwargs)
    assert info.value.code == code, info.value
    return info.value


@pytest.fixture
def referee() -> User:
    return UserFactory(username="referee", is_staff=True)


def test_a_pause_freezes_the_clock_and_a_resume_moves_it_on_by_the_pause(
    now: FakeTime, sent: Sends, referee: User, django_capture_on_commit_callbacks: Any
) -> None:
    users = players("ann", "bob")
    table = clocked(users)
    mover, old = to_move(table, users), table.deadline
    now.advance(seconds=15)
    table_pause(table_id=table.pk, user=referee)
    table.refresh_from_db()
    assert (table.paused_at, table.paused_by) == (T0 + timedelta(seconds=15), referee)
    for answer in (table_payload(table, "ann"), state_frame(table, table_seats(table), None)):
        assert answer["deadline"] is None
        assert answer["clock"]["paused"] is True
        assert answer["clock"]["remaining"] == TURN + BANK - 15
    now.advance(seconds=100)  # long past the old deadline
    with django_capture_on_commit_callbacks(execute=True):
        assert table_enforce_deadline(table.pk, deadline=old) is False
        assert table_enforce_deadline(table.pk) is False
        assert tasks.sweep()["enforced"] == 0
    assert sent.all == []
    assert refused("paused", act, table=table, user=mover, action=DRAW).status == 409
    assert fresh(table).version == 2  # the pause, logged

    with django_capture_on_commit_callbacks(execute=True):
        table_resume(table_id=table.pk, user=referee)
    table.refresh_from_db()
    shifted = timedelta(seconds=100)
    assert table.paused_at is None
    assert (table.turn_started_at, table.deadline) == (T0 + shifted, old + shifted)
    assert table_payload(table, None)["deadline"] == "2030-01-01T12:02:30Z"
    assert table_payload(table, None)["clock"]["remaining"] is None
    assert table.version == 3  # the resume, logged too
    assert sent.all == [
        Sent(ENFORCE_TURN, (table.pk, 3, table.deadline.isoformat()), table.deadline)
    ]
    assert tasks.enforce_turn(table.pk, 1, old.isoformat()) is False  # the old timer is stale
    # The pause is not charged: 15 s before and 10 s after it is 5 s past the turn clock.
    now.advance(seconds=10)
    play_turn(table, users)
    assert table.banks[mover.username] == (BANK - 5) * 1000


def test_pausing_twice_keeps_the_first_pause_and_resuming_a_running_table_does_nothing(
    now: FakeTime, sent: Sends, referee: User, django_capture_on_commit_callbacks: Any
) -> None:
    users = players("ann", "bob")
    table = clocked(users)
    other = UserFactory(username="other_ref", is_staff=True)
    with django_capture_on_commit_callbacks(execute=True):
        table_resume(table_id=table.pk, user=referee)
    assert sent.all == [] and fresh(table).deadline == T0 + timedelta(seconds=TURN + BANK)
    table_pause(table_id=table.pk, user=referee)
    now.advance(seconds=30)
    table_pause(table_id=table.pk, user=other)
    table.refresh_from_db()
    assert (table.paused_at, table.paused_by) == (T0, referee)
    now.advance(seconds=30)
    table_resume(table_id=table.pk, user=other)
    assert fresh(table).deadline == T0 + timedelta(seconds=60 + TURN + BANK)


def test_only_staff_or_a_registered_manager_pauses(
    monkeypatch: pytest.MonkeyPatch, now: FakeTime, sent: Sends
) -> None:
    users = players("ann", "bob")
    (max_,) = players("max")
    table = clocked(users)
    for call in (table_pause, table_resume):
        assert refused("forbidden", call, table_id=table.pk, user=users[0]).status == 403
    assert fresh(table).paused_at is None
    monkeypatch.setattr(clock_services, "table_managers", [lambda user, t: user == max_])
    assert can_manage(max_, table) and not can_manage(users[0], table)
    table_pause(table_id=table.pk, user=max_)
    assert fresh(table).paused_at == T0
    refused("forbidden", table_resume, table_id=table.pk, user=users[0])


def test_nobody_pauses_a_table_they_play_at_but_with_every_table(
    monkeypatch: pytest.MonkeyPatch, now: FakeTime, sent: Sends
) -> None:
    """A manager (staff, an organizer) seated at the table does not stop its clocks: the
    rival's turn would wait for them. A pause of every table at once (an event's) does."""
    ann, bob = players("ann", "bob")
    ann.is_staff = True
    ann.save(update_fields=["is_staff"])
    monkeypatch.setattr(clock_services, "table_managers", [lambda user, t: True])
    table = clocked([ann, bob])
    assert not can_manage(ann, table) and not can_manage(bob, table)
    for user in (ann, bob):
        error = refused("forbidden", table_pause, table_id=table.pk, user=user)
        assert "you play at this table" in error.message
    assert fresh(table).paused_at is None and fresh(table).version == table.version
    table_pause(table_id=table.pk, user=ann, every_table=True)
    assert fresh(table).paused_at == T0
    refused("forbidden", table_resume, table_id=table.pk, user=bob)
    table_resume(table_id=table.pk, user=ann, every_table=True)
    assert fresh(table).paused_at is None


def test_only_a_game_in_play_is_paused(referee: User) -> None:
    (ann,) = players("ann")
    table = services.table_create(creator=ann, ruleset="standard", seats=2)
    refused("wrong_phase", table_pause, table_id=table.pk, user=referee)
    refused("wrong_phase", table_resume, table_id=table.pk, user=referee)
    refused("not_found", table_pause, table_id=table.pk + 1000, user=referee)


def test_pause_and_resume_are_logged_as_changes_of_their_own(now: FakeTime, sent: Sends) -> None:
    """Each is a new version (so clients order it among the game's changes) and a log row
    naming the organizer; the game itself, and so its rebuild, is untouched."""
    ann, bob = players("ann", "bob")
    referee = UserFactory(username="referee", is_staff=True)
    table = clocked([ann, bob])
    game = fresh(table).state
    table_pause(table_id=table.pk, user=referee)
    now.advance(seconds=5)
    table_resume(table_id=table.pk, user=referee)
    table = fresh(table)
    assert (table.version, table.state) == (3, game)
    log = table_log(table)
    assert [(e["version"], e["kind"], e["actor"], e["player"]) for e in log[1:]] == [
        (2, "pause", "referee", None),
        (3, "resume", "referee", None),
    ]
    assert table_mismatch(table) is None
