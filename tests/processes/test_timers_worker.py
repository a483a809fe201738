"""The turn clock with a real Celery worker: separate ``celery worker`` / ``celery beat``
processes on the Redis broker where one is configured (CI), the in-process worker of ``make
run`` otherwise. Turns are one or two seconds; every wait polls for an outcome and fails only
after a generous limit, so a slow machine makes a test slower, never wrong.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from datetime import datetime, timedelta
from typing import Any

import pytest
from channels.testing import WebsocketCommunicator
from django.utils import timezone

from accounts.models import User
from config import push as config_push
from config.asgi import application
from games import clock_services, finalization
from games.engine.cards import format_card
from games.engine.engine import apply
from games.engine.legal import legal_actions
from games.engine.state import GameState
from games.engine.timeout import timeout_action
from games.models import FinalizerRun, GameResult, HandResult, Table, TableEvent
from games.timers import ENFORCE_TURN, FINALIZE_GAME, RUN_FINALIZER, send
from tests.accounts.factories import UserFactory
from tests.games.tables import act, players, started_table, state_of, to_move
from tests.games.workers import Stack, make_tmp, wait_for

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def stack() -> Iterator[Stack]:
    running = Stack(make_tmp())
    running.purge()  # timers other tests left on this run's queue
    yield running
    running.close()


def timeouts(table: Table, **data: Any) -> list[TableEvent]:
    rows = TableEvent.objects.filter(table=table, kind="timeout").order_by("version")
    return [r for r in rows if all(r.data.get(k) == v for k, v in data.items())]


def timed(table: Table) -> list[TableEvent]:
    """Timeouts played when a deadline passed (not the instant turns of absent players)."""
    return [r for r in timeouts(table) if not r.data.get("absent")]


def fresh(table: Table) -> Table:
    table.refresh_from_db()
    return table


def test_a_one_second_turn_is_played_when_it_times_out(stack: Stack) -> None:
    stack.start()
    ann, bob = players("ann", "bob")
    table = started_table([ann, bob], overrides={"turn_seconds": 1})
    before, deadline = state_of(table), fresh(table).deadline
    planned = [a.to_dict() for a in timeout_action(before)]

    (row,) = wait_for(lambda: timed(table), what="ann's turn to time out")
    assert (row.player, row.actor_id, row.data["by"]) == ("ann", None, "timer")
    assert datetime.fromisoformat(row.data["deadline"]) == deadline
    assert row.data["late_ms"] >= 0 and row.created_at >= deadline
    played = [e for e in row.events if e["type"] in ("drew", "discarded")]
    assert [e["type"] for e in played] == ["drew", "discarded"]
    assert [a["type"] for a in planned] == ["draw", "discard"]
    assert played[1]["card"] == planned[1]["card"]
    after = state_of(table)
    assert (after.players[0].timeouts, after.names[after.turn or 0]) == (1, "bob")
    assert fresh(table).deadline > deadline


@pytest.mark.asyncio
async def test_the_timeout_is_pushed_to_the_players_socket(stack: Stack) -> None:
    from channels.db import database_sync_to_async

    config_push.set_server_loop(asyncio.get_running_loop())
    try:
        stack.start()
        table, token = await database_sync_to_async(_table_with_token)()
        socket = WebsocketCommunicator(application, f"/ws/tables/{table.pk}/?token={token}")
        connected, _ = await socket.connect()
        assert connected
        first = await socket.receive_json_from(timeout=10)
        frame = await socket.receive_json_from(timeout=30)
        while frame["version"] == first["version"]:  # a "connected" flag change
            frame = await socket.receive_json_from(timeout=30)
        mine = frame["view"]["players"][0]
        assert (mine["name"], mine["timeouts"], frame["view"]["turn"]) == ("ann", 1, "bob")
        assert frame["deadline"] > first["deadline"]
        await socket.disconnect()
    finally:
        config_push.set_server_loop(None)
        await database_sync_to_async(stack.stop)()


def _table_with_token() -> tuple[Table, str]:
    from rest_framework.authtoken.models import Token

    ann, bob = players("ann", "bob")
    table = started_table([ann, bob], overrides={"turn_seconds": 1})
    return table, Token.objects.get_or_create(user=ann)[0].key


def _play_turn(table: Table, user: User) -> None:
    act(table, user, {"type": "draw", "source": "stock"})
    state = state_of(table)
    hand = state.players[state.seat_of(user.username) or 0].hand
    act(table, user, {"type": "discard", "card": str(hand[-1])})


def test_three_timeouts_make_a_player_absent_and_their_turns_instant(stack: Stack) -> None:
    stack.start()
    ann, bob = players("ann", "bob")
    table = started_table([ann, bob], overrides={"turn_seconds": 2})
    for n in (1, 2, 3):
        wait_for(lambda n=n: len(timed(table)) == n, what=f"ann's timeout {n}")
        assert to_move(table, [ann, bob]) == bob
        assert state_of(table).players[0].absent is (n == 3)
        _play_turn(table, bob)
    # Bob's last discard started ann's turn, which was played in the same change: bob is to
    # move again at once, with no timer in between.
    assert to_move(table, [ann, bob]) == bob
    instant = timeouts(table, absent=True)
    assert [r.player for r in instant] == ["ann"]
    bob_discard = TableEvent.objects.filter(table=table, kind="action", player="bob").last()
    assert bob_discard is not None and instant[0].version == bob_discard.version + 1
    _play_turn(table, bob)
    assert [r.player for r in timeouts(table, absent=True)] == ["ann", "ann"]
    assert len(timed(table)) == 3


def test_an_action_in_time_leaves_the_timer_nothing_to_do(stack: Stack) -> None:
    stack.start()
    ann, bob = players("ann", "bob")
    table = started_table([ann, bob], overrides={"turn_seconds": 2})
    _play_turn(table, ann)
    wait_for(lambda: timed(table), what="bob's turn to time out")
    # Ann's timer fired at her deadline, before bob's, and found the turn over.
    wait_for(lambda: stack.done(ENFORCE_TURN) >= 2, what="both timers to run")
    assert [r.player for r in timeouts(table)] == ["bob"]
    assert state_of(table).players[0].timeouts == 0


def test_a_lost_timer_is_enforced_by_the_sweep_when_worker_and_beat_return(
    stack: Stack,
) -> None:
    ann, bob = players("ann", "bob")
    table = started_table([ann, bob], overrides={"turn_seconds": 1})
    deadline = fresh(table).deadline
    stack.purge()  # the timer is lost: no worker ever sees it
    wait_for(lambda: timezone.now() > deadline + timedelta(seconds=1), what="the deadline")
    assert timeouts(table) == []
    stack.start(beat=True, CLOCK_SWEEP_SECONDS="1", CLOCK_SWEEP_GRACE_SECONDS="0.5")
    (row, *_) = wait_for(lambda: timed(table), what="the sweep to play the turn")
    assert (row.player, row.data["by"]) == ("ann", "sweep")
    assert datetime.fromisoformat(row.data["deadline"]) == deadline
    assert row.data["late_ms"] >= 1000


def test_timer_and_sweep_firing_together_act_once(stack: Stack) -> None:
    stack.start(concurrency=4, CLOCK_SWEEP_GRACE_SECONDS="0")
    tables = [
        started_table(players(f"a{i}", f"b{i}"), overrides={"turn_seconds": 2}) for i in range(4)
    ]
    deadline = max(fresh(t).deadline for t in tables)
    for table in tables:  # each turn's timer delivered twice more, beside its own
        t = fresh(table)
        for _ in range(2):
            send(ENFORCE_TURN, (t.pk, t.version, t.deadline.isoformat()), eta=t.deadline)
    for _ in range(3):
        send("games.tasks.sweep", (), eta=deadline)
    wait_for(lambda: stack.done("games.tasks.sweep") == 3, what="the sweeps")
    wait_for(lambda: stack.done(ENFORCE_TURN) >= 12, what="the timers")
    for table in tables:
        first = timed(table)[0]
        assert first.player.startswith("a")
        same_turn = [r for r in timed(table) if r.data["deadline"] == first.data["deadline"]]
        assert len(same_turn) == 1, table


def test_the_time_bank_is_drawn_on_then_runs_out(stack: Stack) -> None:
    stack.start()
    ann, bob = players("ann", "bob")
    table = started_table([ann, bob], overrides={"turn_seconds": 1, "time_bank_seconds": 4})
    t = fresh(table)
    assert t.deadline - t.turn_started_at == timedelta(seconds=5)
    # Ann plays 1.5 s into her turn: half a second of her bank is spent.
    wait_for(lambda: timezone.now() > t.turn_started_at + timedelta(seconds=1.5), what="1.5 s")
    _play_turn(table, ann)
    banks = fresh(table).banks
    assert 0 < banks["ann"] <= 3500 and banks["bob"] == 4000
    assert timed(table) == []
    # Bob lets his whole turn and bank run out; his next deadline has no bank left.
    (row,) = wait_for(lambda: timed(table), what="bob's timeout")
    assert row.player == "bob" and row.data["late_ms"] >= 0
    _play_turn(table, ann)
    t = fresh(table)
    assert t.banks["bob"] == 0
    assert t.deadline - t.turn_started_at == timedelta(seconds=1)


def test_pause_freezes_the_clock_and_resume_restores_it(stack: Stack) -> None:
    stack.start()
    ann, bob = players("ann", "bob")
    staff = UserFactory(username="td", is_staff=True)
    table = started_table([ann, bob], overrides={"turn_seconds": 2})
    clock_services.table_pause(table_id=table.pk, user=staff)
    paused = fresh(table)
    left = paused.deadline - paused.paused_at
    wait_for(lambda: timezone.now() > paused.deadline + timedelta(seconds=1), what="old deadline")
    wait_for(lambda: stack.done(ENFORCE_TURN) >= 1, what="the timer to fire")
    assert timeouts(table) == []
    resumed_at = timezone.now()
    clock_services.table_resume(table_id=table.pk, user=staff)
    t = fresh(table)
    assert t.paused_at is None and t.deadline >= resumed_at + left
    (row,) = wait_for(lambda: timed(table), what="the resumed turn to time out")
    assert row.player == "ann"
    assert datetime.fromisoformat(row.data["deadline"]) == t.deadline


def _abandoned(stack: Stack) -> Table:
    ann, bob = players("ann", "bob")
    table = started_table([ann, bob], overrides={"turn_seconds": 1, "max_timeouts": 1})
    wait_for(lambda: fresh(table).status == Table.Status.FINISHED, what="the game to end")
    return table


def test_a_table_where_everyone_is_absent_ends_as_abandoned(stack: Stack) -> None:
    stack.start()
    table = _abandoned(stack)
    assert [r.player for r in timed(table)] == ["ann", "bob"]
    result = GameResult.objects.get(table=table)
    assert result.ended == "abandoned"
    assert fresh(table).deadline is None
    assert HandResult.objects.filter(table=table).count() == 0  # no hand was finished
    wait_for(lambda: stack.hook_runs() == [str(table.pk)], what="the finalization hook")


def test_finalization_runs_once_when_its_tasks_are_delivered_twice(stack: Stack) -> None:
    stack.start(concurrency=4)
    hooks = len(finalization.hook_names())  # the test's hook and the apps' (ratings)
    table = _abandoned(stack)
    wait_for(lambda: stack.done(RUN_FINALIZER) == hooks, what="the first finalization")
    for _ in range(2):
        send(FINALIZE_GAME, (table.pk,))
        send(RUN_FINALIZER, (table.pk, "test-log"))
    wait_for(lambda: stack.done(RUN_FINALIZER) == 3 * hooks + 2, what="every delivery to run")
    assert stack.hook_runs() == [str(table.pk)]
    assert FinalizerRun.objects.filter(table=table).count() == hooks
    assert GameResult.objects.filter(table=table).count() == 1


def _goes_out_at_once(state: GameState) -> bool:
    """Ann, first to move, can draw and meld every card she holds but one, then discard it."""
    drawn = apply(state, "ann", {"type": "draw", "source": "stock"}).state
    hand = len(drawn.players[0].hand)
    return any(
        a.to_dict()["type"] == "meld" and len(a.to_dict()["cards"]) == hand - 1
        for a in legal_actions(drawn, "ann")
    )


def test_the_first_turn_after_a_break_times_out_at_break_turn_clock_and_bank(
    stack: Stack,
) -> None:
    stack.start()
    ann, bob = players("ann", "bob")
    # Three cards each, and a deal in which ann goes out on her first turn: hand 1 ends in
    # three quick actions, long before any clock could run out.
    table = started_table(
        [ann, bob],
        overrides={"turn_seconds": 1, "time_bank_seconds": 1, "hand_size_two": 3},
        wanted=_goes_out_at_once,
    )
    Table.objects.filter(pk=table.pk).update(between_hands_seconds=2)
    act(table, ann, {"type": "draw", "source": "stock"})
    meld = next(
        a.to_dict() for a in legal_actions(state_of(table), "ann") if a.to_dict()["type"] == "meld"
    )
    act(table, ann, meld)
    (last,) = state_of(table).players[0].hand
    act(table, ann, {"type": "discard", "card": format_card(last)})
    t = fresh(table)
    assert state_of(table).hand_number == 2 and t.break_ends_at is not None
    # Bob moves first in hand 2; his clock starts when the break ends.
    assert t.turn_started_at == t.break_ends_at
    assert t.deadline == t.break_ends_at + timedelta(seconds=2)  # turn clock + bank
    (row,) = wait_for(lambda: timed(table), what="bob's first turn of hand 2 to time out")
    assert (row.player, row.data["by"]) == ("bob", "timer")
    assert datetime.fromisoformat(row.data["deadline"]) == t.deadline
    assert row.created_at >= t.break_ends_at + timedelta(seconds=2)
