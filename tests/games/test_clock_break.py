"""The break between hands (games.clock, games.clock_services, games.record): the next hand's first
turn clock starts at the break's end, and the timer, the sweep, a pause and a move made during the
break all respect it. Time is frozen (tests/games/conftest.py) and the tasks sent are recorded.

The setting itself (the rule set's, the table's, the API's and the form's) is at the end."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import pytest
from django.test import Client
from rest_framework.test import APIClient

from accounts.models import User
from games import hosting, services, tasks
from games.clock_services import table_enforce_deadline, table_pause, table_resume
from games.errors import TableError
from games.models import RuleSet, Table
from games.push import state_frame
from games.selectors import table_payload, table_seats
from games.timers import ENFORCE_TURN
from tests.accounts.factories import UserFactory
from tests.games.clocks import DRAW, FakeTime, Sends, discard_any, fresh, play_turn
from tests.games.tables import act, play_greedy, players, started_table, state_of, to_move

pytestmark = pytest.mark.django_db

TURN, BANK, BREAK = 20, 30, 8  # seconds; BREAK is the default break between hands


def clocked(users: list[User], **table: Any) -> Table:
    """A started table with TURN seconds a turn and a BANK each (the break as ``table`` says)."""
    created = services.table_create(
        creator=users[0],
        ruleset="standard",
        seats=len(users),
        overrides={"turn_seconds": TURN, "time_bank_seconds": BANK},
        **table,
    )
    for user in users[1:]:
        services.table_join(table_id=created.pk, user=user)
    return fresh(created)


def to_next_hand(table: Table, users: list[User]) -> None:
    """Play quick turns (draw, discard: the time stands still) until hand 2 is dealt."""
    while table.state["hand_number"] == 1:
        play_turn(table, users)


def iso(moment: datetime) -> str:
    return moment.isoformat().replace("+00:00", "Z")


def test_the_next_hands_first_turn_starts_when_the_break_ends(
    now: FakeTime, sent: Sends, django_capture_on_commit_callbacks: Any
) -> None:
    users = players("ann", "bob")
    table = clocked(users)
    assert table.between_hands_seconds == BREAK  # the standard rule set's
    with django_capture_on_commit_callbacks(execute=True):
        to_next_hand(table, users)
    ended = now.now
    mover = to_move(table, users)
    bank = timedelta(milliseconds=table.banks[mover.username])
    breaks_end = ended + timedelta(seconds=BREAK)
    assert table.break_ends_at == breaks_end
    assert table.turn_started_at == breaks_end
    assert table.deadline == breaks_end + timedelta(seconds=TURN) + bank
    # The timer of that turn is set for the deadline after the break, not before.
    assert sent.named(ENFORCE_TURN)[-1].eta == table.deadline
    for answer in (
        table_payload(table, None),
        state_frame(table, table_seats(table), mover.username),
    ):
        clock = answer["clock"]
        assert clock["between_hands_seconds"] == BREAK
        assert clock["break_ends"] == iso(breaks_end)
        assert clock["turn_started"] == iso(breaks_end)
        assert answer["deadline"] == iso(table.deadline)
    now.at(breaks_end)  # the break is over: nothing says it runs
    assert table_payload(table, None)["clock"]["break_ends"] is None


def test_the_first_hand_has_no_break_and_a_table_of_0_seconds_none(
    now: FakeTime, sent: Sends
) -> None:
    users = players("ann", "bob")
    table = clocked(users, between_hands_seconds=0)
    assert table_payload(table, None)["clock"]["break_ends"] is None
    assert table.turn_started_at == now.now
    to_next_hand(table, users)
    mover = to_move(table, users)
    bank = timedelta(milliseconds=table.banks[mover.username])
    assert table.break_ends_at is None
    assert table.turn_started_at == now.now
    assert table.deadline == now.now + timedelta(seconds=TURN) + bank
    clock = table_payload(table, None)["clock"]
    assert (clock["between_hands_seconds"], clock["break_ends"]) == (0, None)


def test_the_timer_and_the_sweep_wait_for_break_turn_clock_and_bank(
    now: FakeTime, sent: Sends, django_capture_on_commit_callbacks: Any
) -> None:
    users = players("ann", "bob")
    table = clocked(users)
    to_next_hand(table, users)
    deadline = table.deadline
    assert deadline == now.now + timedelta(seconds=BREAK + TURN + BANK)
    version = table.version
    # Past the turn clock and the bank counted from the hand's end, but not past the break too.
    now.at(deadline - timedelta(milliseconds=1))
    with django_capture_on_commit_callbacks(execute=True):
        assert table_enforce_deadline(table.pk, deadline=deadline) is False
        assert table_enforce_deadline(table.pk, by="sweep") is False
        assert tasks.sweep()["enforced"] == 0
    assert fresh(table).version == version
    now.at(deadline + timedelta(seconds=5))  # the timer was lost: the sweep plays the turn
    with django_capture_on_commit_callbacks(execute=True):
        assert tasks.sweep()["enforced"] == 1
    assert fresh(table).version > version
    assert table.events.get(version=version + 1).data["by"] == "sweep"


def test_a_move_during_the_break_is_accepted_and_the_next_turn_waits_for_its_end(
    now: FakeTime, sent: Sends
) -> None:
    users = players("ann", "bob")
    table = clocked(users)
    to_next_hand(table, users)
    breaks_end = table.break_ends_at
    assert breaks_end is not None
    banks = dict(table.banks)
    now.advance(seconds=2)  # a bot plays straight on: accepted, the clock has not started
    first = to_move(table, users)
    act(table, first, DRAW)
    discard_any(table, first)
    table.refresh_from_db()
    second = to_move(table, users)
    assert second != first
    assert table.banks == banks  # the mover's turn took no time off their bank
    assert table.turn_started_at == breaks_end  # the next turn starts when the break ends
    bank = timedelta(milliseconds=table.banks[second.username])
    assert table.deadline == breaks_end + timedelta(seconds=TURN) + bank
    assert table_payload(table, None)["clock"]["break_ends"] == iso(breaks_end)


def test_a_pause_during_the_break_keeps_the_rest_of_it(
    now: FakeTime, sent: Sends, django_capture_on_commit_callbacks: Any
) -> None:
    users = players("ann", "bob")
    referee = UserFactory(username="referee", is_staff=True)
    table = clocked(users)
    to_next_hand(table, users)
    breaks_end, deadline = table.break_ends_at, table.deadline
    assert breaks_end is not None and deadline is not None
    now.advance(seconds=3)
    table_pause(table_id=table.pk, user=referee)
    table.refresh_from_db()
    paused = table_payload(table, None)["clock"]
    assert paused["paused"] is True
    assert paused["break_ends"] == iso(breaks_end)  # frozen as of the pause
    assert paused["remaining"] == BREAK - 3 + TURN + BANK
    now.advance(seconds=100)  # long past the break, the turn clock and the bank
    with django_capture_on_commit_callbacks(execute=True):
        assert tasks.sweep()["enforced"] == 0
    with django_capture_on_commit_callbacks(execute=True):
        table_resume(table_id=table.pk, user=referee)
    table.refresh_from_db()
    moved = timedelta(seconds=100)
    assert table.break_ends_at == breaks_end + moved  # 5 s of the break are left
    assert table.turn_started_at == breaks_end + moved
    assert table.deadline == deadline + moved
    assert table_payload(table, None)["clock"]["break_ends"] == iso(breaks_end + moved)
    assert sent.named(ENFORCE_TURN)[-1].eta == deadline + moved


def test_a_pause_after_the_break_leaves_its_end_alone(now: FakeTime, sent: Sends) -> None:
    users = players("ann", "bob")
    referee = UserFactory(username="referee", is_staff=True)
    table = clocked(users)
    to_next_hand(table, users)
    breaks_end = table.break_ends_at
    now.advance(seconds=BREAK + 4)  # into the turn clock
    table_pause(table_id=table.pk, user=referee)
    now.advance(seconds=60)
    table_resume(table_id=table.pk, user=referee)
    table.refresh_from_db()
    assert table.break_ends_at == breaks_end
    assert table.turn_started_at == breaks_end + timedelta(seconds=60)


def test_a_finished_game_shows_no_break_and_its_last_hand() -> None:
    users = players("ann", "bob")
    table = started_table(users, overrides={"target": 50})
    play_greedy(table, users, until=lambda t: False)  # to the game's end
    state = state_of(table)
    assert state.phase == "game_over"
    answer = table_payload(table, None)
    assert answer["clock"]["break_ends"] is None
    assert answer["clock"]["between_hands_seconds"] == BREAK
    assert answer["last_hand"] is not None
    assert answer["last_hand"]["number"] == state.hand_number == len(state.hands)


# --- The setting: rule set, table, API, form ------------------------------------------------------


def test_a_table_copies_its_rule_sets_break_unless_given_one() -> None:
    ann = UserFactory(username="ann")
    house = RuleSet.objects.create(slug="slow", name="Slow", between_hands_seconds=30)
    assert services.table_create(creator=ann, ruleset=house, seats=2).between_hands_seconds == 30
    given = services.table_create(creator=ann, ruleset=house, seats=2, between_hands_seconds=0)
    assert given.between_hands_seconds == 0
    # Not an engine rule: neither the effective rules nor the overrides name it.
    assert "between_hands_seconds" not in given.rules
    assert given.overrides == {}
    house.between_hands_seconds = 5
    house.save()
    assert fresh(given).between_hands_seconds == 0  # copied at creation


def test_an_events_table_takes_its_rule_sets_break() -> None:
    house = RuleSet.objects.create(slug="slow", name="Slow", between_hands_seconds=45)
    table = hosting.table_open_for(players=players("ann", "bob"), ruleset=house)
    assert table.between_hands_seconds == 45


@pytest.mark.parametrize("value", [-1, 121, 2.5, "8", True])
def test_a_break_out_of_bounds_is_a_bad_request_naming_it(value: Any) -> None:
    ann = UserFactory(username="ann")
    with pytest.raises(TableError) as info:
        services.table_create(creator=ann, ruleset="standard", seats=2, between_hands_seconds=value)
    assert info.value.code == "bad_request"
    assert info.value.message.startswith("between_hands_seconds:")


def test_the_api_takes_the_break_and_answers_it() -> None:
    client = APIClient()
    client.force_authenticate(UserFactory(username="ann"))
    body = {"ruleset": "standard", "seats": 2, "between_hands_seconds": 120}
    answer = client.post("/api/tables/", body, format="json").json()
    assert answer["between_hands_seconds"] == 120
    assert answer["clock"]["between_hands_seconds"] == 120
    assert answer["clock"]["break_ends"] is None and answer["last_hand"] is None
    assert "between_hands_seconds" not in answer["rules"]
    refused = client.post("/api/tables/", {**body, "between_hands_seconds": 121}, format="json")
    assert refused.status_code == 400 and refused.json()["error"] == "bad_request"
    ruleset = client.get("/api/rulesets/standard/").json()
    assert ruleset["between_hands_seconds"] == BREAK
    assert "between_hands_seconds" not in ruleset["rules"]


def test_the_lobby_form_takes_the_break_or_leaves_it_to_the_rule_set(client: Client) -> None:
    client.force_login(UserFactory(username="ann"))
    form = {"ruleset": "standard", "seats": 2, "turn_seconds": 45, "rated": "on"}
    client.post("/tables/", {**form, "between_hands_seconds": 0})
    client.post("/tables/", {**form, "between_hands_seconds": ""})
    refused = client.post("/tables/", {**form, "between_hands_seconds": 121})
    assert refused.status_code == 200 and 'class="errorlist' in refused.content.decode()
    made = Table.objects.order_by("pk").values_list("between_hands_seconds", flat=True)
    assert list(made) == [0, BREAK]
