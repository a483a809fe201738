"""The turn clock (games.clock, games.clock_services): deadlines and their answers, time banks,
and overdue turns played once, driven through the services with a clock the test moves. No
Celery worker: the tasks sent are recorded, and the task functions are called directly.

Absent players, pauses and the end of games have their own files (test_clock_*.py)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from prometheus_client import REGISTRY

from accounts.models import User
from games import services, tasks
from games.clock_services import table_enforce_deadline
from games.engine.engine import apply
from games.engine.timeout import timeout_action
from games.errors import TableError
from games.models import Table, TableEvent
from games.push import state_frame
from games.selectors import table_payload, table_seats
from games.timers import ENFORCE_TURN
from tests.games.clocks import (
    DRAW,
    T0,
    FakeTime,
    Sends,
    Sent,
    discard_any,
    fresh,
    play_turn,
)
from tests.games.tables import act, players, started_table, state_of, to_move

pytestmark = pytest.mark.django_db

TURN, BANK = 20, 30  # seconds: the clock of most tables here


def clocked(users: list[User], **overrides: Any) -> Table:
    """A started table whose turns have TURN seconds and each player a BANK of seconds."""
    rules = {"turn_seconds": TURN, "time_bank_seconds": BANK, **overrides}
    return started_table(users, overrides=rules)


def refused(code: str, call: Callable[..., Any], **kwargs: Any) -> TableError:
    with pytest.raises(TableError) as info:
        call(**kwargs)
    assert info.value.code == code, info.value
    return info.value


def events_after(table: Table, version: int) -> list[TableEvent]:
    return list(TableEvent.objects.filter(table=table, version__gt=version).order_by("version"))


# --- the deadline and its answers ------------------------------------------------------------


def test_the_deadline_is_the_turn_start_plus_the_turn_clock_plus_the_movers_bank(
    now: FakeTime, sent: Sends
) -> None:
    users = players("ann", "bob")
    table = clocked(users)
    first = to_move(table, users)
    assert table.turn_started_at == T0
    assert table.deadline == T0 + timedelta(seconds=TURN + BANK)
    seats = table_seats(table)
    for answer in (
        table_payload(table, "ann"),
        table_payload(table, None),
        state_frame(table, seats, "bob"),
        state_frame(table, seats, None),
    ):
        assert answer["deadline"] == "2030-01-01T12:00:50Z"
        assert answer["clock"] == {
            "turn_seconds": TURN,
            "time_bank_seconds": BANK,
            "turn_started": "2030-01-01T12:00:00Z",
            "turn_ends": "2030-01-01T12:00:20Z",
            "banks": {"ann": 30.0, "bob": 30.0},
            "paused": False,
            "remaining": None,
            "between_hands_seconds": 8,
            "break_ends": None,
        }
    # The first mover overruns the turn clock by 1.234 s: the second's deadline uses the
    # second's own (whole) bank, and the first's next deadline what is left of theirs.
    now.advance(seconds=TURN, milliseconds=1234)
    play_turn(table, users)
    assert table.deadline == now.now + timedelta(seconds=TURN + BANK)
    assert table_payload(table, None)["deadline"] == "2030-01-01T12:01:11.234000Z"
    now.advance(seconds=1)
    play_turn(table, users)
    assert to_move(table, users) == first
    assert table.deadline == now.now + timedelta(seconds=TURN, milliseconds=BANK * 1000 - 1234)
    assert table_payload(table, None)["deadline"] == "2030-01-01T12:01:11Z"


def test_nobody_to_move_means_no_deadline_and_a_waiting_table_has_none() -> None:
    (ann,) = players("ann")
    table = services.table_create(creator=ann, ruleset="standard", seats=2)
    payload = table_payload(table, "ann")
    assert payload["deadline"] is None
    assert payload["clock"]["turn_started"] is None and payload["clock"]["turn_ends"] is None
    assert payload["clock"]["banks"] == {}


def test_the_turn_clock_defaults_to_sixty_seconds_and_no_bank() -> None:
    (ann,) = players("ann")
    table = services.table_create(creator=ann, ruleset="standard", seats=2)
    assert (table.turn_seconds, table.time_bank_seconds) == (60, 0)
    payload = table_payload(table, None)
    assert (payload["turn_seconds"], payload["time_bank_seconds"]) == (60, 0)


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("turn_seconds", 1),
        ("turn_seconds", 3600),
        ("time_bank_seconds", 0),
        ("time_bank_seconds", 3600),
    ],
)
def test_the_clock_bounds_are_accepted(field: str, value: int) -> None:
    (ann,) = players("ann")
    table = services.table_create(creator=ann, ruleset="standard", seats=2, **{field: value})
    assert getattr(table, field) == value
    assert table_payload(table, None)["clock"][field] == value


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("turn_seconds", 0),
        ("turn_seconds", 3601),
        ("turn_seconds", True),
        ("turn_seconds", 1.5),
        ("time_bank_seconds", -1),
        ("time_bank_seconds", 3601),
        ("time_bank_seconds", "30"),
    ],
)
def test_a_clock_out_of_bounds_is_a_bad_request_naming_the_field(field: str, value: Any) -> None:
    (ann,) = players("ann")
    error = refused(
        "bad_request",
        services.table_create,
        creator=ann,
        ruleset="standard",
        seats=2,
        **{field: value},
    )
    assert error.message.startswith(f"{field}:"), error.message
    assert not Table.objects.exists()


# --- the banks -------------------------------------------------------------------------------


def test_a_turn_within_the_turn_clock_leaves_the_bank_untouched(now: FakeTime, sent: Sends) -> None:
    users = players("ann", "bob")
    table = clocked(users)
    first = to_move(table, users)
    now.advance(seconds=TURN)  # to the last millisecond of the turn clock
    assert play_turn(table, users) == first
    assert table.banks == {"ann": BANK * 1000, "bob": BANK * 1000}


def test_an_overrun_of_n_ms_is_taken_from_the_movers_bank_only(now: FakeTime, sent: Sends) -> None:
    users = players("ann", "bob")
    table = clocked(users)
    first, second = to_move(table, users), next(u for u in users if u != to_move(table, users))
    act(table, first, DRAW)
    now.advance(seconds=TURN, milliseconds=7)
    deadline = fresh(table).deadline
    discard_any(table, first)
    table.refresh_from_db()
    assert table.banks == {first.username: BANK * 1000 - 7, second.username: BANK * 1000}
    assert table.deadline != deadline
    assert table_payload(table, None)["clock"]["banks"][first.username] == BANK - 0.007


def test_a_draw_does_not_end_the_turn_so_its_deadline_and_timer_stay(
    now: FakeTime, sent: Sends, django_capture_on_commit_callbacks: Any
) -> None:
    users = players("ann", "bob")
    table = clocked(users)
    deadline = table.deadline
    now.advance(seconds=5)
    with django_capture_on_commit_callbacks(execute=True):
        act(table, to_move(table, users), DRAW)
    assert fresh(table).deadline == deadline and table.turn_started_at == T0
    assert sent.named(ENFORCE_TURN) == []


def lateness(by: str) -> tuple[float, float]:
    labels = {"by": by}
    count = REGISTRY.get_sample_value("rummy_turn_timer_lateness_seconds_count", labels) or 0
    total = REGISTRY.get_sample_value("rummy_turn_timer_lateness_seconds_sum", labels) or 0
    return count, total


def test_a_turn_played_by_the_clock_records_how_late_it_was(now: FakeTime, sent: Sends) -> None:
    table = clocked(players("ann", "bob"))
    count, total = lateness("sweep")
    now.at(table.deadline + timedelta(milliseconds=1500))
    assert table_enforce_deadline(table.pk, by="sweep") is True
    assert lateness("sweep") == (count + 1, pytest.approx(total + 1.5))


def test_a_timeout_spends_the_whole_bank_and_the_next_deadline_has_none(
    now: FakeTime, sent: Sends
) -> None:
    users = players("ann", "bob")
    table = clocked(users)
    first = to_move(table, users)
    now.at(table.deadline + timedelta(milliseconds=500))
    assert table_enforce_deadline(table.pk) is True
    table.refresh_from_db()
    assert table.banks[first.username] == 0
    assert table.banks[to_move(table, users).username] == BANK * 1000
    play_turn(table, users)
    assert to_move(table, users) == first
    assert table.deadline == now.now + timedelta(seconds=TURN)
    assert table_payload(table, None)["clock"]["banks"][first.username] == 0


def test_the_banks_belong_to_the_game_not_the_hand(now: FakeTime, sent: Sends) -> None:
    users = players("ann", "bob")
    table = clocked(users)
    first = to_move(table, users)
    now.advance(seconds=TURN + 3)
    play_turn(table, users)
    left = {first.username: (BANK - 3) * 1000}
    while table.state["hand_number"] == 1:
        play_turn(table, users)  # the time stands still: these turns cost nothing
    assert table.banks == {u.username: left.get(u.username, BANK * 1000) for u in users}
    mover = to_move(table, users)
    bank = timedelta(milliseconds=table.banks[mover.username])
    pause = timedelta(seconds=table.between_hands_seconds)  # the break between hands
    assert table.deadline == now.now + pause + timedelta(seconds=TURN) + bank


# --- table_enforce_deadline --------------------------------------------------------------------


def test_a_turn_not_yet_due_is_left_alone(now: FakeTime, sent: Sends) -> None:
    users = players("ann", "bob")
    table = clocked(users)
    now.at(table.deadline - timedelta(milliseconds=1))
    assert table_enforce_deadline(table.pk) is False
    assert table_enforce_deadline(table.pk, deadline=table.deadline) is False
    assert fresh(table).version == 1 and events_after(table, 1) == []


def test_a_due_turn_is_played_as_the_engine_times_it_out_and_logged(
    now: FakeTime, sent: Sends, django_capture_on_commit_callbacks: Any
) -> None:
    users = players("ann", "bob")
    table = clocked(users)
    mover = to_move(table, users)
    before = state_of(table)
    deadline = table.deadline
    expected = timeout_action(before)
    assert [a.to_dict()["type"] for a in expected] == ["draw", "discard"]
    now.at(deadline + timedelta(milliseconds=1500))
    with django_capture_on_commit_callbacks(execute=True):
        assert table_enforce_deadline(table.pk, deadline=deadline) is True
    after = state_of(table)
    played = before
    for action in expected:
        played = apply(played, mover.username, action).state
    seat = before.turn
    assert after.players[seat].hand == played.players[seat].hand
    assert (after.stock, after.discard, after.turn) == (played.stock, played.discard, played.turn)
    assert after.players[seat].timeouts == 1 and not after.players[seat].absent
    (row,) = events_after(table, 1)
    assert (row.kind, row.player, row.actor, row.action) == ("timeout", mover.username, None, None)
    assert row.data == {"deadline": "2030-01-01T12:00:50Z", "late_ms": 1500, "by": "timer"}
    assert row.events[-1] == {
        "type": "timeout",
        "player": mover.username,
        "timeouts": 1,
        "absent": False,
    }
    # The next mover's turn starts now, and its timer is sent once the change commits.
    assert table.deadline == now.now + timedelta(seconds=TURN + BANK)
    assert sent.named(ENFORCE_TURN) == [
        Sent(ENFORCE_TURN, (table.pk, table.version, table.deadline.isoformat()), table.deadline)
    ]


def test_the_timer_sent_at_the_start_plays_the_turn_once(
    now: FakeTime, sent: Sends, django_capture_on_commit_callbacks: Any
) -> None:
    users = players("ann", "bob")
    with django_capture_on_commit_callbacks(execute=True):
        table = clocked(users)
    (timer,) = sent.named(ENFORCE_TURN)
    assert timer.args == (table.pk, 1, "2030-01-01T12:00:50+00:00") and timer.eta == table.deadline
    now.at(timer.eta)  # due at the deadline itself
    assert tasks.enforce_turn(*timer.args) is True
    assert tasks.enforce_turn(*timer.args) is False  # delivered twice: the turn is played once
    (row,) = events_after(table, 1)
    assert row.data["late_ms"] == 0
    assert table_enforce_deadline(table.pk, deadline=timer.eta) is False
    assert TableEvent.objects.filter(table=table, kind="timeout").count() == 1


def test_a_stale_timer_does_nothing_once_the_turn_has_ended(now: FakeTime, sent: Sends) -> None:
    users = players("ann", "bob")
    table = clocked(users)
    old = table.deadline
    now.advance(seconds=5)
    play_turn(table, users)
    now.at(old + timedelta(seconds=1))  # past the old deadline, not the new one
    assert table_enforce_deadline(table.pk, deadline=old) is False
    assert table_enforce_deadline(table.pk) is False
    now.at(fresh(table).deadline + timedelta(seconds=1))
    assert table_enforce_deadline(table.pk, deadline=old) is False  # still not its deadline
    assert not TableEvent.objects.filter(table=table, kind="timeout").exists()


def test_an_early_timer_sets_itself_again_and_plays_nothing(
    now: FakeTime, sent: Sends, django_capture_on_commit_callbacks: Any
) -> None:
    users = players("ann", "bob")
    table = clocked(users)
    deadline = table.deadline
    now.at(deadline - timedelta(seconds=2))  # this worker's clock is behind the setter's
    with django_capture_on_commit_callbacks(execute=True):
        assert table_enforce_deadline(table.pk, deadline=deadline) is False
    assert sent.all == [Sent(ENFORCE_TURN, (table.pk, 1, deadline.isoformat()), deadline)]
    assert fresh(table).version == 1
    sent.clear()
    with django_capture_on_commit_callbacks(execute=True):
        assert table_enforce_deadline(table.pk) is False  # the sweep's call: nothing to set
    assert sent.all == []


def test_a_deleted_table_has_nothing_to_enforce(now: FakeTime, sent: Sends) -> None:
    users = players("ann", "bob")
    table = clocked(users)
    pk, deadline = table.pk, table.deadline
    table.delete()
    now.at(deadline + timedelta(seconds=1))
    assert table_enforce_deadline(pk, deadline=deadline) is False
