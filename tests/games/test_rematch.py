"""A rematch of a finished table (docs/tables.md, "Game over: rating changes and rematch"): the
offer, its answers, its expiry, the new table, the refusals, and the REST call."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from rest_framework.test import APIClient

from accounts.models import Club, User
from games import game_over, rematch, timers
from games.engine.state import Score
from games.entered import table_record_entered
from games.errors import TableError
from games.models import Rematch, RuleSet, Seat, Table
from games.push import state_frame
from games.selectors import table_answer, table_seats
from tests.games.clocks import T0, FakeTime, Sends
from tests.games.finished import finished_table
from tests.games.tables import players, started_table
from tests.tournaments.factories import round_of, staff, started_event

pytestmark = pytest.mark.django_db


def answer(table: Table, user: User | None = None) -> dict[str, Any]:
    table.refresh_from_db()
    return dict(table_answer(table, user))


def accept(table: Table, user: User, yes: bool = True) -> Table:
    return rematch.table_rematch(table_id=table.pk, user=user, accept=yes)


def refusal(table: Table, user: User, yes: bool = True) -> TableError:
    with pytest.raises(TableError) as caught:
        accept(table, user, yes)
    return caught.value


@pytest.fixture
def two() -> list[User]:
    return players("ann", "bob")


@pytest.fixture
def done(two: list[User]) -> Table:
    return finished_table(two)


def test_a_table_not_finished_has_neither_ratings_nor_rematch(two: list[User]) -> None:
    table = started_table(two)
    got = answer(table, two[0])
    assert got["ratings"] is None and got["rematch"] is None
    frame = state_frame(table, table_seats(table), "ann")
    assert frame["ratings"] is None and frame["rematch"] is None


def test_the_first_accept_opens_the_offer_for_rematch_seconds(
    done: Table, two: list[User], now: FakeTime, sent: Sends, settings: Any
) -> None:
    assert answer(done)["rematch"] is None
    settings.REMATCH_SECONDS = 60
    accept(done, two[0])
    offer = answer(done)["rematch"]
    assert offer == {
        "accepted": ["ann"],
        "declined": [],
        "expires": "2030-01-01T12:01:00Z",
        "table": None,
        "status": "open",
    }
    # The frames carry the same object, whoever reads them.
    assert state_frame(done, table_seats(done), None)["rematch"] == offer
    assert state_frame(done, table_seats(done), "bob")["rematch"] == offer


def test_the_expiry_push_is_sent_for_the_end_of_the_offer(
    two: list[User], django_capture_on_commit_callbacks: Any
) -> None:
    done = finished_table(two)
    sends: list[tuple[str, tuple[Any, ...], Any]] = []
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(timers, "send", lambda name, args, eta=None: sends.append((name, args, eta)))
        patch.setattr("games.push.push_table", lambda table, seats=None, since=None: None)
        with django_capture_on_commit_callbacks(execute=True):
            accept(done, two[0])
        with django_capture_on_commit_callbacks(execute=True):
            accept(done, two[0])  # no change: nothing more is sent
    expires = Rematch.objects.get(table=done).expires_at
    assert sends == [(timers.REMATCH_EXPIRED, (done.pk, expires.isoformat()), expires)]


def test_everyone_accepting_makes_and_starts_one_new_table_of_the_same_kind(
    two: list[User],
) -> None:
    club = Club.objects.create(name="Hearts", slug="hearts")
    done = finished_table(two)
    Table.objects.filter(pk=done.pk).update(
        club=club, rated=False, turn_seconds=45, time_bank_seconds=30
    )
    accept(done, two[0])
    accept(done, two[1])
    offer = answer(done)["rematch"]
    assert offer["accepted"] == ["ann", "bob"] and offer["status"] == "started"
    new = Table.objects.get(pk=offer["table"])
    old = Table.objects.get(pk=done.pk)
    assert new.status == Table.Status.PLAYING and new.version == 1
    assert (new.rules, new.overrides, new.ruleset_id) == (old.rules, old.overrides, old.ruleset_id)
    assert (new.turn_seconds, new.time_bank_seconds) == (45, 30)
    assert (new.rated, new.club_id) == (False, club.pk)
    # The same players, the seats moved round by one: bob is first this time.
    seats = Seat.objects.filter(table=new).order_by("position")
    assert [s.user.username for s in seats] == ["bob", "ann"]
    assert new.creator.username == "bob"
    # Accepting again changes nothing and makes nothing.
    accept(done, two[1])
    assert Rematch.objects.get(table=done).next_table_id == new.pk
    assert Table.objects.count() == 2


def test_the_new_table_keeps_the_old_rules_when_the_rule_set_changed(
    done: Table, two: list[User]
) -> None:
    done.ruleset.target = 250
    done.ruleset.save()
    accept(done, two[0])
    accept(done, two[1])
    new = Table.objects.get(pk=answer(done)["rematch"]["table"])
    assert new.rules["target"] == 1 == done.rules["target"]


def test_a_decline_ends_the_offer(done: Table, two: list[User]) -> None:
    accept(done, two[0])
    accept(done, two[1], False)
    offer = answer(done)["rematch"]
    assert (offer["accepted"], offer["declined"]) == (["ann"], ["bob"])
    assert offer["status"] == "declined" and offer["table"] is None
    error = refusal(done, two[0])
    assert (error.code, error.status) == ("rematch_over", 409)
    assert refusal(done, two[1], False).code == "rematch_over"
    assert Table.objects.count() == 1


def test_one_who_accepted_may_decline_while_it_is_open(done: Table, two: list[User]) -> None:
    accept(done, two[0])
    accept(done, two[0], False)
    offer = answer(done)["rematch"]
    assert (offer["accepted"], offer["declined"], offer["status"]) == ([], ["ann"], "declined")


def test_a_decline_may_be_the_first_answer(done: Table, two: list[User]) -> None:
    accept(done, two[0], False)
    assert answer(done)["rematch"]["declined"] == ["ann"]
    assert refusal(done, two[1]).code == "rematch_over"


def test_the_offer_expires_rematch_seconds_after_the_first_answer(
    done: Table, two: list[User], now: FakeTime, sent: Sends, settings: Any
) -> None:
    settings.REMATCH_SECONDS = 60
    accept(done, two[0])
    now.advance(seconds=59.9)
    assert answer(done)["rematch"]["status"] == "open"
    now.at(T0 + timedelta(seconds=60))
    assert answer(done)["rematch"]["status"] == "expired"
    error = refusal(done, two[1])
    assert (error.code, error.status, error.message) == (
        "rematch_over",
        409,
        "the rematch offer has expired",
    )
    assert Table.objects.count() == 1


def test_the_expiry_task_pushes_only_an_expired_offer(
    done: Table, two: list[User], now: FakeTime, sent: Sends, monkeypatch: pytest.MonkeyPatch
) -> None:
    pushed: list[int] = []
    monkeypatch.setattr("games.push.push_table_id", pushed.append)
    assert rematch.rematch_expiry_push(done.pk) is False  # no offer
    accept(done, two[0])
    sent.clear()
    # Early (another machine's clock): nothing shown yet, and the task is set again.
    assert rematch.rematch_expiry_push(done.pk) is False
    expires = Rematch.objects.get(table=done).expires_at
    assert [(s.name, s.eta) for s in sent.all] == [(timers.REMATCH_EXPIRED, expires)]
    now.at(expires)
    assert rematch.rematch_expiry_push(done.pk) is True
    assert pushed == [done.pk]


def test_the_expiry_task_leaves_a_declined_offer_alone(
    done: Table, two: list[User], now: FakeTime, sent: Sends, monkeypatch: pytest.MonkeyPatch
) -> None:
    pushed: list[int] = []
    monkeypatch.setattr("games.push.push_table_id", pushed.append)
    accept(done, two[0], False)
    now.advance(seconds=3600)
    assert rematch.rematch_expiry_push(done.pk) is False and pushed == []


def test_refusals(done: Table, two: list[User]) -> None:
    stranger = players("cid")[0]
    assert refusal(done, stranger).code == "not_seated"
    playing = started_table(players("dee", "eli"))
    error = refusal(playing, playing.creator)
    assert (error.code, error.status) == ("wrong_phase", 400)
    with pytest.raises(TableError) as caught:
        rematch.table_rematch(table_id=done.pk, user=two[0], accept="yes")
    assert caught.value.code == "bad_request"
    with pytest.raises(TableError) as caught:
        rematch.table_rematch(table_id=10**6, user=two[0], accept=True)
    assert caught.value.code == "not_found"
    assert not Rematch.objects.exists()


def test_an_events_table_has_no_rematch() -> None:
    director = staff()
    event = started_event(director, ["fay", "gus"], overrides={"target": 1})
    table = round_of(event).tables.get().table
    assert table is not None and game_over.is_event_table(table)
    users = list(User.objects.filter(username__in=["fay", "gus"]))
    from_seats = [s.user for s in Seat.objects.filter(table=table)]
    assert sorted(u.pk for u in from_seats) == sorted(u.pk for u in users)
    Table.objects.filter(pk=table.pk).update(status=Table.Status.FINISHED)
    error = refusal(table, from_seats[0])
    assert (error.code, error.status) == ("forbidden", 403)


def test_a_game_entered_after_it_was_played_has_no_rematch(two: list[User]) -> None:
    hands = [{"ann": Score(60, 0), "bob": Score(15, 40)}]
    ruleset = RuleSet.objects.get(slug="standard")
    table = table_record_entered(
        players=two, ruleset=ruleset, overrides={}, rated=True, club=None, hands=hands
    )
    assert table.status == Table.Status.FINISHED
    error = refusal(table, two[0])
    assert (error.code, error.status) == ("forbidden", 403)


# --- REST ---------------------------------------------------------------------------------------


def client(user: User | None) -> APIClient:
    api = APIClient()
    if user is not None:
        api.force_authenticate(user)
    return api


def test_rest_accept_and_decline(done: Table, two: list[User]) -> None:
    url = f"/api/tables/{done.pk}/rematch/"
    got = client(two[0]).post(url, {"accept": True}, format="json")
    assert got.status_code == 200
    body = got.json()
    assert body["id"] == done.pk and body["rematch"]["accepted"] == ["ann"]
    assert body["ratings"] is None  # nothing rated: the hook has not run
    got = client(two[1]).post(url, {"accept": False}, format="json")
    assert got.status_code == 200 and got.json()["rematch"]["status"] == "declined"
    got = client(two[1]).post(url, {"accept": True}, format="json")
    assert got.status_code == 409 and got.json()["error"] == "rematch_over"


def test_rest_refusals(done: Table, two: list[User]) -> None:
    url = f"/api/tables/{done.pk}/rematch/"
    assert client(None).post(url, {"accept": True}, format="json").status_code in (401, 403)
    got = client(two[0]).post(url, {"accept": "yes"}, format="json")
    assert (got.status_code, got.json()["error"]) == (400, "bad_request")
    got = client(two[0]).post(url, {}, format="json")
    assert (got.status_code, got.json()["error"]) == (400, "bad_request")
    got = client(players("cid")[0]).post(url, {"accept": True}, format="json")
    assert (got.status_code, got.json()["error"]) == (400, "not_seated")
    got = client(two[0]).post("/api/tables/999999/rematch/", {"accept": True}, format="json")
    assert (got.status_code, got.json()["error"]) == (404, "not_found")
