"""The end of hands and games: HandResult and GameResult rows, the finalization hooks run once per
game, and the sweep that plays overdue turns and sends again finalizations left undone."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from django.db import connection
from django.test import override_settings

from accounts.models import User
from games import finalization, tasks
from games.clock_services import overdue_table_ids, table_enforce_deadline, table_pause
from games.models import (
    FinalizerFailure,
    FinalizerRun,
    GameResult,
    HandResult,
    Table,
    TableEvent,
)
from games.timers import FINALIZE_GAME, RUN_FINALIZER
from tests.accounts.factories import UserFactory
from tests.games.clocks import FakeTime, Sends, Sent, fresh
from tests.games.tables import play_greedy, play_simple, players, started_table

pytestmark = pytest.mark.django_db

PROBE = "probe"


@pytest.fixture
def probe() -> Iterator[list[int]]:
    """A registered hook ``probe`` that notes the table of every result it is run for."""
    ran: list[int] = []

    @finalization.register(PROBE)
    def note(result: GameResult) -> None:
        ran.append(result.table_id)

    yield ran
    finalization.unregister(PROBE)


def abandoned(names: tuple[str, str], now: FakeTime) -> Table:
    """A finished game: both players time out once with ``max_timeouts`` 1."""
    table = started_table(players(*names), overrides={"max_timeouts": 1})
    for _ in names:
        now.at(fresh(table).deadline)
        assert table_enforce_deadline(table.pk) is True
    return fresh(table)


def hand_rows(table: Table, hand: int) -> dict[str, tuple[int, int, int, bool, int | None]]:
    rows = HandResult.objects.filter(table=table, hand=hand)
    return {r.player: (r.melded, r.in_hand, r.net, r.went_out, r.user_id) for r in rows}


def expected_rows(table: Table, hand: dict[str, Any]) -> dict[str, tuple]:
    users = dict(table.seat_set.values_list("user__username", "user_id"))
    return {
        name: (s["melded"], s["in_hand"], s["net"], hand["went_out"] == name, users[name])
        for name, s in hand["scores"].items()
    }


# --- hand and game results ---------------------------------------------------------------------


def test_a_hand_writes_one_row_per_player_with_the_change_that_ends_it(
    now: FakeTime, sent: Sends
) -> None:
    users = players("ann", "bob")
    table = started_table(users)

    def hand_two(t: Table) -> bool:
        if t.state["hand_number"] == 1:
            assert not HandResult.objects.filter(table=t).exists()
        return t.state["hand_number"] == 2

    play_simple(table, users, until=hand_two)
    (hand,) = table.state["hands"]
    assert hand_rows(table, 1) == expected_rows(table, hand)
    assert len(hand_rows(table, 1)) == 2
    # The change that ended it carries the revealed seed; the deal of hand 2 follows it.
    ended, dealt = TableEvent.objects.filter(table=table).order_by("-version")[:2][::-1]
    assert ended.data["revealed"]["hand"] == 1 and dealt.kind == "deal"
    assert not GameResult.objects.filter(table=table).exists()


def test_a_finished_game_has_one_result_and_every_hand_its_rows(
    now: FakeTime, sent: Sends, probe: list[int], django_capture_on_commit_callbacks: Any
) -> None:
    users = players("ann", "bob")
    table = started_table(users, overrides={"target": 60})
    with django_capture_on_commit_callbacks(execute=True):
        play_greedy(table, users, until=lambda t: False)
    assert (table.status, table.deadline, table.turn_started_at) == ("finished", None, None)
    result = GameResult.objects.get(table=table)
    assert result.ended == "target" and result.hands == table.state["hands"]
    for hand in result.hands:
        assert hand_rows(table, hand["number"]) == expected_rows(table, hand)
    assert HandResult.objects.filter(table=table).count() == 2 * len(result.hands)
    assert HandResult.objects.filter(table=table, went_out=True).count() == sum(
        1 for hand in result.hands if hand["went_out"]
    )
    assert sent.named(FINALIZE_GAME) == [Sent(FINALIZE_GAME, (table.pk,), None)]


# --- finalization hooks -------------------------------------------------------------------------


def test_a_hook_runs_once_however_often_it_is_asked(
    now: FakeTime, sent: Sends, probe: list[int]
) -> None:
    table = abandoned(("ann", "bob"), now)
    assert finalization.run_hook(table.pk, PROBE) is True
    assert finalization.run_hook(table.pk, PROBE) is False
    assert tasks.run_finalizer(table.pk, PROBE) is False
    assert probe == [table.pk]
    assert list(FinalizerRun.objects.values_list("table_id", "hook")) == [(table.pk, PROBE)]


def test_a_hook_needs_a_known_name_and_a_finished_game(
    now: FakeTime, sent: Sends, probe: list[int]
) -> None:
    table = started_table(players("ann", "bob"))
    assert finalization.run_hook(table.pk, PROBE) is False  # no result yet
    assert finalization.run_hook(table.pk + 1000, PROBE) is False  # no such table
    done = abandoned(("cy", "dee"), now)
    assert finalization.run_hook(done.pk, "nobody-registered-this") is False
    assert probe == [] and not FinalizerRun.objects.exists()


def test_one_name_cannot_be_registered_for_two_hooks(probe: list[int]) -> None:
    with pytest.raises(ValueError, match=PROBE):
        finalization.register(PROBE)(lambda result: None)
    assert PROBE in finalization.hook_names()


def test_a_hook_that_raises_leaves_no_run_and_its_retry_runs(now: FakeTime, sent: Sends) -> None:
    table = abandoned(("ann", "bob"), now)
    failures = [RuntimeError("the ratings service is down")]

    @finalization.register("flaky")
    def flaky(result: GameResult) -> None:
        UserFactory(username=f"effect-{result.table_id}")  # the hook's own write
        if failures:
            raise failures.pop()

    try:
        assert tasks.run_finalizer(table.pk, "flaky") is False  # counted, not raised
        assert not FinalizerRun.objects.exists()
        assert not User.objects.filter(username__startswith="effect-").exists()
        assert FinalizerFailure.objects.get(table=table, hook="flaky").attempts == 1
        assert tasks.run_finalizer(table.pk, "flaky") is True
        assert FinalizerRun.objects.filter(table=table, hook="flaky").count() == 1
        assert not FinalizerFailure.objects.exists()  # it ran: nothing is stuck
        assert User.objects.filter(username=f"effect-{table.pk}").count() == 1
    finally:
        finalization.unregister("flaky")


def test_finalize_game_sends_one_run_per_registered_hook(
    now: FakeTime, sent: Sends, probe: list[int]
) -> None:
    finalization.register("second")(lambda result: None)
    try:
        table = abandoned(("ann", "bob"), now)
        sent.clear()
        assert tasks.finalize_game(table.pk) == len(finalization.hook_names())
        assert sent.all == [
            Sent(RUN_FINALIZER, (table.pk, n), None) for n in finalization.hook_names()
        ]
        assert {PROBE, "second"} <= {s.args[1] for s in sent.all}
        assert probe == []  # sending is not running
    finally:
        finalization.unregister("second")


@pytest.mark.django_db(transaction=True)
def test_two_workers_running_one_hook_at_once_run_it_once(
    now: FakeTime, sent: Sends, probe: list[int]
) -> None:
    table = abandoned(("ann", "bob"), now)
    barrier = threading.Barrier(2)
    outcomes: list[Any] = [None, None]

    def worker(i: int) -> None:
        try:
            barrier.wait(timeout=10)
            outcomes[i] = finalization.run_hook(table.pk, PROBE)
        except Exception as exc:  # a crash is an outcome the assertion shows
            outcomes[i] = exc
        finally:
            connection.close()

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert sorted(outcomes) == [False, True]
    assert probe == [table.pk]
    assert FinalizerRun.objects.filter(table=table, hook=PROBE).count() == 1


# --- the sweep ----------------------------------------------------------------------------------


def overdue_by(table: Table, now: FakeTime, seconds: float) -> Table:
    Table.objects.filter(pk=table.pk).update(deadline=now.now - timedelta(seconds=seconds))
    return fresh(table)


@override_settings(CLOCK_SWEEP_GRACE_SECONDS=5)
def test_the_sweep_plays_turns_overdue_past_the_grace_and_no_others(
    now: FakeTime, sent: Sends
) -> None:
    late = overdue_by(started_table(players("a1", "a2")), now, 9)
    later = overdue_by(started_table(players("b1", "b2")), now, 6)
    within = overdue_by(started_table(players("c1", "c2")), now, 4)
    paused = started_table(players("d1", "d2"))
    table_pause(table_id=paused.pk, user=UserFactory(username="ref", is_staff=True))
    paused = overdue_by(paused, now, 60)
    over = overdue_by(started_table(players("e1", "e2")), now, 60)
    Table.objects.filter(pk=over.pk).update(status=Table.Status.FINISHED)
    grace = timedelta(seconds=5)
    assert overdue_table_ids(now.now, grace=grace, limit=10) == [late.pk, later.pk]
    assert overdue_table_ids(now.now, grace=grace, limit=1) == [late.pk]

    assert tasks.sweep() == {"enforced": 2, "finalizations": 0, "expired": 0}
    timeouts = TableEvent.objects.filter(kind="timeout").order_by("table_id")
    assert [(r.table_id, r.data["late_ms"], r.data["by"]) for r in timeouts] == [
        (late.pk, 9000, "sweep"),
        (later.pk, 6000, "sweep"),
    ]
    assert [fresh(t).version for t in (within, paused, over)] == [1, 2, 1]  # 2: the pause
    assert tasks.sweep() == {
        "enforced": 0,
        "finalizations": 0,
        "expired": 0,
    }  # their new turns are not due
    now.advance(seconds=2)  # the one within the grace is now past it
    assert tasks.sweep() == {"enforced": 1, "finalizations": 0, "expired": 0}
    assert TableEvent.objects.get(table=within, kind="timeout").data["late_ms"] == 6000


@override_settings(FINALIZE_SETTLE_SECONDS=60)
def test_the_sweep_sends_again_the_hooks_not_run_once_the_game_has_settled(
    now: FakeTime, sent: Sends, probe: list[int]
) -> None:
    table = abandoned(("ann", "bob"), now)
    finished = table.finished_at
    hooks = finalization.hook_names()
    sent.clear()
    now.at(finished + timedelta(seconds=59))
    assert tasks.sweep() == {"enforced": 0, "finalizations": 0, "expired": 0}
    now.at(finished + timedelta(seconds=60))
    assert tasks.sweep() == {"enforced": 0, "finalizations": len(hooks), "expired": 0}
    assert sent.all == [Sent(RUN_FINALIZER, (table.pk, name), None) for name in hooks]
    assert tasks.run_finalizer(*sent.named(RUN_FINALIZER)[hooks.index(PROBE)].args) is True
    sent.clear()
    assert tasks.sweep()["finalizations"] == len(hooks) - 1
    assert (table.pk, PROBE) not in [s.args for s in sent.all]
    # A game finished more than a day ago is left alone, whatever has not run.
    FinalizerRun.objects.all().delete()
    now.at(finished + timedelta(days=1, seconds=1))
    assert tasks.sweep()["finalizations"] == 0
