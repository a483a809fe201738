"""Organizer tools: who may use them, withdrawing and disqualifying players before and during an
event, pausing and resuming it, adjudicating tables, re-seating and starting a waiting round,
announcements, and the audit log they all write."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth.models import AnonymousUser

from accounts.models import Club, ClubMembership, User
from games.hosting import table_adjudicate
from games.models import Seat
from tests.games.clocks import record_sends
from tests.tournaments.factories import (
    entry_of,
    make_event,
    names_at,
    round_of,
    run_hooks,
    staff,
    started_event,
    users,
)
from tournaments.errors import EventError
from tournaments.models import Announcement, AuditEntry, Entry, Tournament
from tournaments.organizer import (
    announce,
    entry_remove,
    event_pause,
    event_resume,
    round_reseat,
    round_start,
    round_table_adjudicate,
)

pytestmark = pytest.mark.django_db

FOUR = ["ann", "bob", "cid", "dan"]


@pytest.fixture
def director() -> User:
    return staff()


@pytest.fixture
def club() -> Club:
    return Club.objects.create(name="Hearts", slug="hearts")


@pytest.fixture
def quiet(monkeypatch: pytest.MonkeyPatch) -> None:
    """Callbacks after commit run in these tests: record the tasks, skip the socket pushes."""
    record_sends(monkeypatch)
    monkeypatch.setattr("tournaments.push.group_send", lambda group, message: None)


def swiss(director: User, club: Club, **fields: Any) -> Tournament:
    """A running two-round Swiss of four (two tables a round), run by the club."""
    return started_event(director, FOUR, format="swiss", rounds=2, club=club, **fields)


def refused(
    code: str, status: int, call: Callable[..., Any], *args: Any, **kwargs: Any
) -> EventError:
    """``call(*args, **kwargs)`` is refused with ``code`` and ``status``."""
    with pytest.raises(EventError) as caught:
        call(*args, **kwargs)
    assert (caught.value.code, caught.value.status) == (code, status), caught.value.message
    return caught.value


def finish_round(event: Tournament, number: int, director: User) -> None:
    """End every live game of the round, alphabetical order winning, and run the hooks."""
    for table in round_of(event, number).tables.filter(places__isnull=True):
        places = {name: i + 1 for i, name in enumerate(sorted(names_at(table)))}
        if table.table is not None and table.table.status == "playing":
            table_adjudicate(table_id=table.table_id, places=places, actor=director, reason="t")
            run_hooks(table.table_id)


def actions(event: Tournament) -> list[str]:
    return list(
        AuditEntry.objects.filter(tournament=event).order_by("id").values_list("action", flat=True)
    )


# --- Who may use them --------------------------------------------------------------------------


def _remove(event: Tournament, actor: User) -> object:
    entry = entry_of(event, "ann")
    return entry_remove(
        tournament_id=event.pk, entry_id=entry.pk, actor=actor, disqualify=True, reason="rude"
    )


def _adjudicate(event: Tournament, actor: User) -> object:
    table = round_of(event).tables.first()
    assert table is not None
    places = {n: i + 1 for i, n in enumerate(names_at(table))}
    return round_table_adjudicate(
        tournament_id=event.pk, round_table_id=table.pk, places=places, actor=actor, reason="x"
    )


def _reseat(event: Tournament, actor: User) -> object:
    ids = [entry_of(event, n).pk for n in FOUR]
    tables = [[ids[0], ids[2]], [ids[1], ids[3]]]
    return round_reseat(
        tournament_id=event.pk, round_id=round_of(event).pk, tables=tables, actor=actor
    )


SERVICES: dict[str, Callable[[Tournament, User], object]] = {
    "remove": _remove,
    "pause": lambda e, u: event_pause(tournament_id=e.pk, actor=u),
    "resume": lambda e, u: event_resume(tournament_id=e.pk, actor=u),
    "adjudicate": _adjudicate,
    "reseat": _reseat,
    "start_round": lambda e, u: round_start(tournament_id=e.pk, round_id=round_of(e).pk, actor=u),
    "announce": lambda e, u: announce(tournament_id=e.pk, text="Break at nine", actor=u),
}


def someone(kind: str, event: Tournament, club: Club) -> Any:
    """A user of each kind, with respect to ``event`` (run by ``club``)."""
    if kind == "anonymous":
        return AnonymousUser()
    if kind == "player":
        return User.objects.get(username="ann")
    (user,) = users(kind)
    if kind == "rival":
        other = Club.objects.create(name="Spades", slug="spades")
        ClubMembership.objects.create(club=other, user=user, role="admin")
    elif kind == "member":
        ClubMembership.objects.create(club=club, user=user, role="member")
    elif kind == "club_admin":
        ClubMembership.objects.create(club=club, user=user, role="admin")
    elif kind == "event_admin":
        event.admins.add(user)
    elif kind == "staff":
        User.objects.filter(pk=user.pk).update(is_staff=True)
        user.refresh_from_db()
    return user


def an_event_for(service: str, director: User, club: Club) -> Tournament:
    # Re-seating and starting need a waiting round, adjudicating a live game a started one, and
    # resuming a paused event.
    event = swiss(director, club, auto_advance=False)
    if service == "adjudicate":
        round_start(tournament_id=event.pk, round_id=round_of(event).pk, actor=director)
    if service == "resume":
        event_pause(tournament_id=event.pk, actor=director)
    return event


@pytest.mark.parametrize("service", sorted(SERVICES))
@pytest.mark.parametrize("kind", ["anonymous", "player", "member", "rival"])
def test_outsiders_are_refused(director: User, club: Club, service: str, kind: str) -> None:
    event = an_event_for(service, director, club)
    before = actions(event)
    refused("forbidden", 403, SERVICES[service], event, someone(kind, event, club))
    assert actions(event) == before


@pytest.mark.parametrize("service", sorted(SERVICES))
@pytest.mark.parametrize("kind", ["club_admin", "event_admin", "staff"])
def test_organizers_are_allowed(director: User, club: Club, service: str, kind: str) -> None:
    event = an_event_for(service, director, club)
    who = someone(kind, event, club)
    SERVICES[service](event, who)
    latest = AuditEntry.objects.filter(tournament=event).latest("id")
    assert latest.actor == who


# --- Withdrawing and disqualifying -------------------------------------------------------------


def test_before_the_start_a_removed_player_just_leaves(director: User) -> None:
    event = make_event(director, status="registration", players=["ann", "bob"])
    ann = entry_of(event, "ann")
    entry_remove(
        tournament_id=event.pk, entry_id=ann.pk, actor=director, disqualify=False, reason="asked"
    )
    ann.refresh_from_db()
    assert (ann.status, ann.reason) == ("withdrawn", "asked") and ann.left_at is not None
    bob = entry_of(event, "bob")
    entry_remove(
        tournament_id=event.pk, entry_id=bob.pk, actor=director, disqualify=True, reason=""
    )
    assert Entry.objects.get(pk=bob.pk).status == "disqualified"
    rows = AuditEntry.objects.filter(tournament=event, action__in=["withdrawn", "disqualified"])
    assert sorted((r.action, r.details["player"]) for r in rows) == [
        ("disqualified", "bob"),
        ("withdrawn", "ann"),
    ]
    refused(
        "not_found",
        404,
        entry_remove,
        tournament_id=event.pk,
        entry_id=bob.pk + 99,
        actor=director,
        disqualify=True,
        reason="",
    )


def test_removing_from_an_event_that_is_over_is_refused(director: User) -> None:
    event = make_event(director, status="cancelled", players=[])
    (ann,) = users("ann")
    entry = Entry.objects.create(tournament=event, user=ann)
    kwargs = {"entry_id": entry.pk, "actor": director, "disqualify": True, "reason": ""}
    refused("wrong_status", 409, entry_remove, tournament_id=event.pk, **kwargs)


def test_during_the_event_a_disqualified_player_is_absent_and_left_out(
    director: User, club: Club, quiet: None, django_capture_on_commit_callbacks: Any
) -> None:
    event = swiss(director, club)
    ann = entry_of(event, "ann")
    table = next(t for t in round_of(event).tables.all() if ann.pk in t.players)
    game = table.table
    assert game is not None
    with django_capture_on_commit_callbacks(execute=True):
        entry_remove(
            tournament_id=event.pk,
            entry_id=ann.pk,
            actor=director,
            disqualify=True,
            reason="cheating",
        )
    ann.refresh_from_db()
    assert (ann.status, ann.reason) == ("disqualified", "cheating")
    game.refresh_from_db()
    assert game.withdrawn == ["ann"] and game.status == "playing"
    row = game.events.get(kind="withdraw")
    assert (row.player, row.actor, row.data) == ("ann", director, {"reason": "cheating"})
    other = next(t for t in round_of(event).tables.all() if t.pk != table.pk)
    assert other.table is not None and other.table.withdrawn == []
    finish_round(event, 1, director)
    second = round_of(event, 2)
    assert second.status == "running"
    assert not Seat.objects.filter(table__tournament_table__round=second, user=ann.user).exists()
    hers = next(t for t in second.tables.all() if ann.pk in t.players)
    assert hers.table is None  # nobody to play: decided at once, ann absent and last
    assert hers.places == [2 if p == ann.pk else 1 for p in hers.players]


# --- Pausing and resuming ----------------------------------------------------------------------


def test_pause_freezes_every_live_table_and_resume_restarts_them(
    director: User, club: Club
) -> None:
    event = swiss(director, club)
    games = [t.table for t in round_of(event).tables.all()]
    assert len(games) == 2
    event_pause(tournament_id=event.pk, actor=director)
    event.refresh_from_db()
    assert event.paused_at is not None
    for game in games:
        assert game is not None
        game.refresh_from_db()
        assert game.paused_at is not None and game.paused_by == director
    event_pause(tournament_id=event.pk, actor=director)  # again: nothing new
    assert actions(event).count("pause") == 1
    event_resume(tournament_id=event.pk, actor=director)
    event.refresh_from_db()
    assert event.paused_at is None
    for game in games:
        assert game is not None
        game.refresh_from_db()
        assert game.paused_at is None and game.deadline is not None
    assert actions(event)[-2:] == ["pause", "resume"]


def test_a_round_planned_while_paused_waits_for_the_resume(director: User, club: Club) -> None:
    event = swiss(director, club)
    event_pause(tournament_id=event.pk, actor=director)
    finish_round(event, 1, director)
    waiting = round_of(event, 2)
    assert waiting.status == "pending"
    assert not waiting.tables.filter(table__isnull=False).exists()
    event_resume(tournament_id=event.pk, actor=director)
    waiting.refresh_from_db()
    assert waiting.status == "running"
    live = [t.table for t in waiting.tables.all()]
    assert all(g is not None and g.status == "playing" and g.paused_at is None for g in live)


def test_only_a_running_event_is_paused(director: User) -> None:
    event = make_event(director, status="registration")
    refused("wrong_status", 409, event_pause, tournament_id=event.pk, actor=director)
    refused("wrong_status", 409, event_resume, tournament_id=event.pk, actor=director)


# --- Adjudicating ------------------------------------------------------------------------------


def test_adjudicating_a_live_game_ends_it_and_the_hook_records_it(
    director: User, club: Club
) -> None:
    event = swiss(director, club)
    table = round_of(event).tables.first()
    assert table is not None and table.table is not None
    first, second = names_at(table)
    places = {first: 2, second: 1}
    round_table_adjudicate(
        tournament_id=event.pk,
        round_table_id=table.pk,
        places=places,
        actor=director,
        reason="disconnect",
    )
    table.refresh_from_db()
    assert table.adjudicated == "disconnect"
    result = table.table.result
    assert (result.ended, result.winner) == ("adjudicated", second)
    run_hooks(table.table_id)
    table.refresh_from_db()
    assert table.places == [2, 1]
    audit = AuditEntry.objects.filter(tournament=event, action="adjudicate").get()
    assert audit.details == {"table": table.pk, "places": places, "reason": "disconnect"}
    kwargs = {"round_table_id": table.pk, "places": places, "actor": director, "reason": "x"}
    refused("wrong_status", 409, round_table_adjudicate, tournament_id=event.pk, **kwargs)


def test_a_live_game_refuses_wrong_places(director: User, club: Club) -> None:
    event = swiss(director, club)
    table = round_of(event).tables.first()
    assert table is not None
    kwargs = {"round_table_id": table.pk, "actor": director}
    refused(
        "bad_request",
        400,
        round_table_adjudicate,
        tournament_id=event.pk,
        places={"zed": 1},
        reason="x",
        **kwargs,
    )
    places = dict.fromkeys(names_at(table), 1)
    refused(
        "bad_request",
        400,
        round_table_adjudicate,
        tournament_id=event.pk,
        places=places,
        reason=" ",
        **kwargs,
    )
    refused(
        "not_found",
        404,
        round_table_adjudicate,
        tournament_id=event.pk,
        round_table_id=table.pk + 99,
        places=places,
        actor=director,
        reason="x",
    )


def test_adjudicating_face_to_face_records_at_once(director: User, club: Club) -> None:
    event = started_event(director, ["ann", "bob"], club=club, online=False)
    table = round_of(event).tables.get()
    kwargs = {"round_table_id": table.pk, "actor": director}
    refused(
        "bad_request",
        400,
        round_table_adjudicate,
        tournament_id=event.pk,
        places={"ann": 1},
        reason="x",
        **kwargs,
    )
    places = {"ann": 2, "bob": 1}
    refused(
        "bad_request",
        400,
        round_table_adjudicate,
        tournament_id=event.pk,
        places=places,
        reason="",
        **kwargs,
    )
    round_table_adjudicate(tournament_id=event.pk, places=places, reason="no time", **kwargs)
    table.refresh_from_db()
    assert table.adjudicated == "no time" and table.table is None
    assert dict(zip(names_at(table), table.places, strict=True)) == places
    event.refresh_from_db()
    assert event.status == "finished" and event.champion.username == "bob"


# --- Re-seating and starting a waiting round ---------------------------------------------------


def test_a_waiting_round_is_reseated_then_started(director: User, club: Club) -> None:
    event = swiss(director, club, auto_advance=False)
    first = round_of(event)
    assert first.status == "pending" and not first.tables.filter(table__isnull=False).exists()
    ids = [entry_of(event, n).pk for n in FOUR]
    tables = [[ids[3], ids[0]], [ids[1], ids[2]]]
    round_reseat(tournament_id=event.pk, round_id=first.pk, tables=tables, actor=director)
    rows = list(first.tables.order_by("index"))
    assert [(t.key, t.players) for t in rows] == [("T1", tables[0]), ("T2", tables[1])]
    assert AuditEntry.objects.get(tournament=event, action="reseat").details == {
        "round": 1,
        "tables": tables,
    }
    round_start(tournament_id=event.pk, round_id=first.pk, actor=director)
    first.refresh_from_db()
    assert first.status == "running"
    seats = [
        list(t.table.seat_set.order_by("position").values_list("user__username", flat=True))
        for t in first.tables.order_by("index")
    ]
    assert seats == [["dan", "ann"], ["bob", "cid"]]
    refused(
        "wrong_status", 409, round_start, tournament_id=event.pk, round_id=first.pk, actor=director
    )
    refused(
        "wrong_status",
        409,
        round_reseat,
        tournament_id=event.pk,
        round_id=first.pk,
        tables=tables,
        actor=director,
    )
    finish_round(event, 1, director)
    second = round_of(event, 2)
    assert second.status == "pending"  # waits for the organizer again
    round_start(tournament_id=event.pk, round_id=second.pk, actor=director)
    finish_round(event, 2, director)
    event.refresh_from_db()
    assert event.status == "finished"


@pytest.mark.parametrize(
    "seating",
    [
        [[0, 1], [2]],  # a player missing
        [[0, 1], [2, 3], [3]],  # a player twice
        [[0, 1, 2], [3]],  # tables of 3 and 1 at an event of tables of 2
        [[0, 1], [2, 99]],  # someone else
    ],
)
def test_reseat_refuses_other_players_or_sizes(
    director: User, club: Club, seating: list[list[int]]
) -> None:
    event = swiss(director, club, auto_advance=False)
    ids = [entry_of(event, n).pk for n in FOUR] + [0] * 96 + [123_456]
    tables = [[ids[i] for i in t] for t in seating]
    first = round_of(event)
    before = list(first.tables.values_list("players", flat=True))
    refused(
        "bad_request",
        400,
        round_reseat,
        tournament_id=event.pk,
        round_id=first.pk,
        tables=tables,
        actor=director,
    )
    assert list(first.tables.values_list("players", flat=True)) == before
    refused(
        "not_found",
        404,
        round_reseat,
        tournament_id=event.pk,
        round_id=first.pk + 99,
        tables=tables,
        actor=director,
    )


# --- Announcements and the audit log -----------------------------------------------------------


def test_announcements(director: User, club: Club) -> None:
    event = swiss(director, club)
    note = announce(tournament_id=event.pk, text="  Break until nine.  ", actor=director)
    assert (note.text, note.author, note.tournament) == ("Break until nine.", director, event)
    assert list(Announcement.objects.filter(tournament=event)) == [note]
    refused("bad_request", 400, announce, tournament_id=event.pk, text="  ", actor=director)
    assert AuditEntry.objects.get(tournament=event, action="announce").details == {
        "text": "Break until nine."
    }


def test_the_audit_log_names_every_step_and_who_took_it(director: User, club: Club) -> None:
    event = swiss(director, club, auto_advance=False)
    round_start(tournament_id=event.pk, round_id=round_of(event).pk, actor=director)
    event_pause(tournament_id=event.pk, actor=director)
    event_resume(tournament_id=event.pk, actor=director)
    announce(tournament_id=event.pk, text="Last round next", actor=director)
    ann = entry_of(event, "ann")
    entry_remove(
        tournament_id=event.pk, entry_id=ann.pk, actor=director, disqualify=False, reason="ill"
    )
    assert actions(event) == [
        "create",
        "registration",
        "check_in",
        "start",
        "start_round",
        "pause",
        "resume",
        "announce",
        "withdrawn",
    ]
    rows = AuditEntry.objects.filter(tournament=event)
    assert {r.actor for r in rows} == {director}


@pytest.mark.parametrize("format", ["single_elimination", "double_elimination"])
def test_a_bracket_round_is_not_reseated(director: User, format: str) -> None:
    # The draw fixes the matches: a re-seated round's results would stop the bracket (the
    # format refuses a match played by other players) when the round ends.
    event = started_event(director, FOUR, format=format, auto_advance=False)
    first = round_of(event)
    ids = [entry_of(event, n).pk for n in FOUR]
    tables = [[ids[0], ids[1]], [ids[2], ids[3]]]
    kwargs = {"round_id": first.pk, "tables": tables, "actor": director}
    assert (
        "bracket"
        in refused("bad_request", 400, round_reseat, tournament_id=event.pk, **kwargs).message
    )
