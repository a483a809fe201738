"""Absent players (RULES.md, "Playing online"): ``max_timeouts`` consecutive timeouts make a player
absent, their turns are then played at once inside the change that started them, ``table_back``
brings them back, and a table where everyone is absent is abandoned."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from accounts.models import User
from games.clock_services import table_back, table_enforce_deadline
from games.engine.legal import legal_actions
from games.errors import TableError
from games.models import GameResult, HandResult, Table, TableEvent
from games.selectors import table_mismatch, table_payload, table_rebuild
from games.services import table_apply_action
from games.timers import ENFORCE_TURN, FINALIZE_GAME
from tests.accounts.factories import UserFactory
from tests.games.clocks import (
    DRAW,
    FakeTime,
    Sends,
    Sent,
    discard_any,
    fresh,
    play_turn,
)
from tests.games.tables import act, players, started_table, state_of, to_move

pytestmark = pytest.mark.django_db

TURN = 20


def time_out(table: Table, now: FakeTime) -> None:
    """The turn of the player to move runs out, and its timer plays it."""
    deadline = fresh(table).deadline
    assert deadline is not None
    now.at(deadline)
    assert table_enforce_deadline(table.pk, deadline=deadline) is True
    table.refresh_from_db()


def player(table: Table, user: User) -> Any:
    state = state_of(table)
    return state.players[state.seat_of(user.username)]


def rows_from(table: Table, version: int) -> list[TableEvent]:
    return list(TableEvent.objects.filter(table=table, version__gt=version).order_by("version"))


def test_max_timeouts_in_a_row_make_a_player_absent(now: FakeTime, sent: Sends) -> None:
    users = players("ann", "bob")
    table = started_table(users, overrides={"max_timeouts": 2, "turn_seconds": TURN})
    slow = to_move(table, users)
    time_out(table, now)
    assert (player(table, slow).timeouts, player(table, slow).absent) == (1, False)
    now.advance(seconds=1)
    play_turn(table, users)
    time_out(table, now)
    assert (player(table, slow).timeouts, player(table, slow).absent) == (2, True)
    assert table_payload(table, None)["view"]["players"][state_of(table).seat_of(slow.username)][
        "absent"
    ]


def test_any_action_of_the_player_resets_their_timeouts(now: FakeTime, sent: Sends) -> None:
    users = players("ann", "bob")
    table = started_table(users, overrides={"turn_seconds": TURN})
    slow = to_move(table, users)
    time_out(table, now)
    play_turn(table, users)
    assert player(table, slow).timeouts == 1
    act(table, slow, DRAW)
    assert player(table, slow).timeouts == 0
    time_out(table, now)  # the rest of that turn: one timeout again, not two
    assert player(table, slow).timeouts == 1


def test_absent_players_turns_are_played_at_once_inside_the_change_that_started_them(
    now: FakeTime, sent: Sends, django_capture_on_commit_callbacks: Any
) -> None:
    users = players("ann", "bob", "cy")
    table = started_table(users, overrides={"max_timeouts": 1, "turn_seconds": TURN})
    first = to_move(table, users)
    time_out(table, now)
    second = to_move(table, users)
    time_out(table, now)
    present = to_move(table, users)
    assert {first, second, present} == set(users)
    assert player(table, first).absent and player(table, second).absent
    now.advance(seconds=3)
    act(table, present, DRAW)
    version = fresh(table).version
    sent.clear()
    with django_capture_on_commit_callbacks(execute=True):
        discard_any(table, present)
    table.refresh_from_db()
    discard, *played = rows_from(table, version)
    assert (discard.kind, discard.player) == ("action", present.username)
    assert [(r.kind, r.player, r.actor, r.data) for r in played] == [
        ("timeout", first.username, None, {"absent": True}),
        ("timeout", second.username, None, {"absent": True}),
    ]
    assert table.version == version + 3
    assert to_move(table, users) == present
    assert (player(table, first).timeouts, player(table, second).timeouts) == (2, 2)
    # One change, one timer: the present player's new turn, which starts now.
    assert table.deadline == now.now + timedelta(seconds=TURN)
    assert sent.named(ENFORCE_TURN) == [
        Sent(ENFORCE_TURN, (table.pk, table.version, table.deadline.isoformat()), table.deadline)
    ]
    assert table_mismatch(table) is None


def test_back_clears_absence_is_logged_and_replays(now: FakeTime, sent: Sends) -> None:
    users = players("ann", "bob")
    table = started_table(users, overrides={"max_timeouts": 1, "turn_seconds": TURN})
    gone = to_move(table, users)
    here = next(u for u in users if u != gone)
    time_out(table, now)
    assert player(table, gone).absent
    version = table.version
    now.advance(seconds=2)
    table_back(table_id=table.pk, user=gone)
    table.refresh_from_db()
    (row,) = rows_from(table, version)
    assert (row.kind, row.player, row.actor, row.data) == ("back", gone.username, gone, {})
    assert (player(table, gone).absent, player(table, gone).timeouts) == (False, 0)
    assert table_mismatch(table) is None
    assert table_rebuild(table) == state_of(table)
    # Back, their turn waits for them again.
    now.advance(seconds=2)
    play_turn(table, users)
    assert to_move(table, users) == gone
    assert table.deadline == now.now + timedelta(seconds=TURN)
    assert rows_from(table, version)[-1].player == here.username
    # Coming back when not absent changes nothing.
    version = table.version
    table_back(table_id=table.pk, user=gone)
    assert fresh(table).version == version


def test_back_is_refused_to_strangers_and_outside_play(sent: Sends) -> None:
    users = players("ann", "bob")
    table = started_table(users)
    with pytest.raises(TableError) as info:
        table_back(table_id=table.pk, user=UserFactory(username="eve"))
    assert info.value.code == "not_seated"
    Table.objects.filter(pk=table.pk).update(status=Table.Status.FINISHED)
    with pytest.raises(TableError) as info:
        table_back(table_id=table.pk, user=users[0])
    assert info.value.code == "wrong_phase"


def test_everyone_absent_abandons_the_game(
    now: FakeTime, sent: Sends, django_capture_on_commit_callbacks: Any
) -> None:
    users = players("ann", "bob")
    table = started_table(users, overrides={"max_timeouts": 1, "turn_seconds": TURN})
    time_out(table, now)
    with django_capture_on_commit_callbacks() as callbacks:
        time_out(table, now)
        assert sent.named(FINALIZE_GAME) == []  # not before the change commits
    for callback in callbacks:
        callback()
    assert (table.status, table.deadline, table.turn_started_at) == ("finished", None, None)
    assert table.finished_at == now.now
    state = state_of(table)
    assert state.ended == "abandoned" and all(p.absent for p in state.players)
    result = GameResult.objects.get(table=table)
    assert (result.ended, result.hands, result.finished_at) == ("abandoned", [], now.now)
    assert not HandResult.objects.filter(table=table).exists()  # the partial hand ended no hand
    assert sent.named(FINALIZE_GAME) == [Sent(FINALIZE_GAME, (table.pk,), None)]
    assert sent.named(ENFORCE_TURN) == []
    assert table_enforce_deadline(table.pk) is False


def test_a_repeated_action_is_answered_as_first_with_the_absent_turns_it_set_off(
    now: FakeTime, sent: Sends
) -> None:
    """PROTOCOL.md: the same client_id is answered the same both times. The first answer came
    after the absent player's turn, played inside that change, so the repeat's must too."""
    users = players("ann", "bob")
    table = started_table(users, overrides={"max_timeouts": 1, "turn_seconds": TURN})
    gone = to_move(table, users)
    time_out(table, now)
    present = to_move(table, users)
    act(table, present, DRAW)
    options = legal_actions(state_of(table), present.username)
    discard = next(a for a in options if a.to_dict()["type"] == "discard").to_dict()
    seen = fresh(table).version

    def send() -> Any:
        return table_apply_action(
            table_id=table.pk, user=present, action=discard, version=seen, client_id="discard-1"
        )

    first = send()
    assert [r.player for r in rows_from(table, seen)] == [present.username, gone.username]
    again = send()
    assert again.repeated and again.version == first.version == fresh(table).version
    assert again.state == first.state
    play_turn(table, users)  # the table moves on; the answer stays the first one
    later = send()
    assert (later.version, later.state) == (first.version, first.state)
