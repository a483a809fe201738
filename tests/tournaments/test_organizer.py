"""Organizer tools, part one: who may use them, withdrawing and disqualifying players before and
during an event, pausing and resuming it (``test_organizer_rounds``: the rest)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth.models import AnonymousUser

from accounts.models import Club, ClubMembership, User
from games.clock_services import table_pause, table_resume
from games.errors import TableError
from games.models import Seat
from tests.games.clocks import record_sends
from tests.tournaments.factories import (
    FOUR,
    audit_actions,
    decide_round,
    entry_of,
    make_event,
    names_at,
    refused,
    round_of,
    swiss,
    users,
)
from tournaments.models import AuditEntry, Entry, Tournament
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


@pytest.fixture
def quiet(monkeypatch: pytest.MonkeyPatch) -> None:
    """Callbacks after commit run in these tests: record the tasks, skip the socket pushes."""
    record_sends(monkeypatch)
    monkeypatch.setattr("tournaments.push.group_send", lambda group, message: None)


# --- Who may use them --------------------------------------------------------------------------


def _remove(event: Tournament, actor: User) -> object:
    entry = entry_of(event, "ann")
    return entry_remove(
        event_id=event.pk, entry_id=entry.pk, actor=actor, disqualify=True, reason="rude"
    )


def _adjudicate(event: Tournament, actor: User) -> object:
    table = round_of(event).tables.first()
    assert table is not None
    places = {n: i + 1 for i, n in enumerate(names_at(table))}
    return round_table_adjudicate(
        event_id=event.pk, round_table_id=table.pk, places=places, actor=actor, reason="x"
    )


def _reseat(event: Tournament, actor: User) -> object:
    ids = [entry_of(event, n).pk for n in FOUR]
    tables = [[ids[0], ids[2]], [ids[1], ids[3]]]
    return round_reseat(event_id=event.pk, round_id=round_of(event).pk, tables=tables, actor=actor)


SERVICES: dict[str, Callable[[Tournament, User], object]] = {
    "remove": _remove,
    "pause": lambda e, u: event_pause(event_id=e.pk, actor=u),
    "resume": lambda e, u: event_resume(event_id=e.pk, actor=u),
    "adjudicate": _adjudicate,
    "reseat": _reseat,
    "start_round": lambda e, u: round_start(event_id=e.pk, round_id=round_of(e).pk, actor=u),
    "announce": lambda e, u: announce(event_id=e.pk, text="Break at nine", actor=u),
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
        round_start(event_id=event.pk, round_id=round_of(event).pk, actor=director)
    if service == "resume":
        event_pause(event_id=event.pk, actor=director)
    return event


@pytest.mark.parametrize("service", sorted(SERVICES))
@pytest.mark.parametrize("kind", ["anonymous", "player", "member", "rival"])
def test_outsiders_are_refused(director: User, club: Club, service: str, kind: str) -> None:
    event = an_event_for(service, director, club)
    before = audit_actions(event)
    refused("forbidden", 403, SERVICES[service], event, someone(kind, event, club))
    assert audit_actions(event) == before


@pytest.mark.parametrize("service", sorted(SERVICES))
@pytest.mark.parametrize("kind", ["club_admin", "event_admin", "staff"])
def test_organizers_are_allowed(director: User, club: Club, service: str, kind: str) -> None:
    event = an_event_for(service, director, club)
    who = someone(kind, event, club)
    SERVICES[service](event, who)
    latest = AuditEntry.objects.filter(tournament=event).latest("id")
    assert latest.actor == who


def test_an_organizer_who_plays_does_not_decide_their_own_table(director: User, club: Club) -> None:
    """The stricter rule (docs/tournaments.md): a club's admin may play in its event, but the
    result of their own table is another organizer's to decide."""
    event = swiss(director, club)
    table = round_of(event).tables.first()
    assert table is not None
    names = names_at(table)
    player = User.objects.get(username=names[-1])
    ClubMembership.objects.create(club=club, user=player, role="admin")
    call = {"event_id": event.pk, "round_table_id": table.pk, "reason": "stuck"}
    places = {name: i + 1 for i, name in enumerate(reversed(names))}
    before = audit_actions(event)
    refused("forbidden", 403, round_table_adjudicate, places=places, actor=player, **call)
    assert audit_actions(event) == before
    round_table_adjudicate(places=places, actor=director, **call)
    assert audit_actions(event)[-1] == "adjudicate"


def test_an_organizer_who_plays_removes_no_rival_and_reseats_no_round(
    director: User, club: Club
) -> None:
    """The same rule for the other calls about other players' games, while the organizer is
    still in the event: withdrawing themselves is theirs, and once out they organize again."""
    event = swiss(director, club, auto_advance=False)  # running, its first round waiting
    ann = User.objects.get(username="ann")
    ClubMembership.objects.create(club=club, user=ann, role="admin")
    bob = entry_of(event, "bob")
    before = audit_actions(event)
    call = {"event_id": event.pk, "actor": ann, "reason": "late"}
    for disqualify in (False, True):
        refused("forbidden", 403, entry_remove, entry_id=bob.pk, disqualify=disqualify, **call)
    refused("forbidden", 403, _reseat, event, ann)
    assert audit_actions(event) == before and entry_of(event, "bob").status == bob.status
    entry_remove(entry_id=entry_of(event, "ann").pk, disqualify=False, **call)
    entry_remove(entry_id=bob.pk, disqualify=True, **call)
    assert entry_of(event, "bob").status == "disqualified"
    assert audit_actions(event)[-2:] == ["withdrawn", "disqualified"]


def test_an_organizer_who_plays_pauses_their_table_only_with_the_whole_event(
    director: User, club: Club
) -> None:
    event = swiss(director, club)
    tables = list(round_of(event).tables.all())
    player = User.objects.get(username=names_at(tables[0])[0])
    ClubMembership.objects.create(club=club, user=player, role="admin")
    mine, other = (t.table for t in tables)
    assert mine is not None and other is not None
    with pytest.raises(TableError, match="you play at this table"):
        table_pause(table_id=mine.pk, user=player)
    table_pause(table_id=other.pk, user=player)
    table_resume(table_id=other.pk, user=player)
    mine.refresh_from_db()
    assert mine.paused_at is None
    event_pause(event_id=event.pk, actor=player)
    for game in (mine, other):
        game.refresh_from_db()
        assert game.paused_at is not None and game.paused_by == player
    event_resume(event_id=event.pk, actor=player)
    mine.refresh_from_db()
    assert mine.paused_at is None


# --- Withdrawing and disqualifying -------------------------------------------------------------


def test_before_the_start_a_removed_player_just_leaves(director: User) -> None:
    event = make_event(director, status="registration", players=["ann", "bob"])
    ann = entry_of(event, "ann")
    entry_remove(
        event_id=event.pk, entry_id=ann.pk, actor=director, disqualify=False, reason="asked"
    )
    ann.refresh_from_db()
    assert (ann.status, ann.reason) == ("withdrawn", "asked") and ann.left_at is not None
    bob = entry_of(event, "bob")
    entry_remove(event_id=event.pk, entry_id=bob.pk, actor=director, disqualify=True, reason="")
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
        event_id=event.pk,
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
    refused("wrong_status", 409, entry_remove, event_id=event.pk, **kwargs)


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
            event_id=event.pk,
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
    decide_round(event, 1, director)
    second = round_of(event, 2)
    assert second.status == "running"
    assert not Seat.objects.filter(table__tournament_table__round=second, user=ann.user).exists()
    # The format pairs the three still in: one live table and a bye, no table against ann.
    tables = list(second.tables.all())
    assert [len(t.players) for t in tables] == [2] and tables[0].table is not None
    assert ann.pk not in tables[0].players and len(second.byes) == 1 and ann.pk not in second.byes


# --- Pausing and resuming ----------------------------------------------------------------------


def test_pause_freezes_every_live_table_and_resume_restarts_them(
    director: User, club: Club
) -> None:
    event = swiss(director, club)
    games = [t.table for t in round_of(event).tables.all()]
    assert len(games) == 2
    event_pause(event_id=event.pk, actor=director)
    event.refresh_from_db()
    assert event.paused_at is not None
    for game in games:
        assert game is not None
        game.refresh_from_db()
        assert game.paused_at is not None and game.paused_by == director
    event_pause(event_id=event.pk, actor=director)  # again: nothing new
    assert audit_actions(event).count("pause") == 1
    event_resume(event_id=event.pk, actor=director)
    event.refresh_from_db()
    assert event.paused_at is None
    for game in games:
        assert game is not None
        game.refresh_from_db()
        assert game.paused_at is None and game.deadline is not None
    assert audit_actions(event)[-2:] == ["pause", "resume"]


def test_a_round_planned_while_paused_waits_for_the_resume(director: User, club: Club) -> None:
    event = swiss(director, club)
    event_pause(event_id=event.pk, actor=director)
    decide_round(event, 1, director)
    waiting = round_of(event, 2)
    assert waiting.status == "pending"
    assert not waiting.tables.filter(table__isnull=False).exists()
    event_resume(event_id=event.pk, actor=director)
    waiting.refresh_from_db()
    assert waiting.status == "running"
    live = [t.table for t in waiting.tables.all()]
    assert all(g is not None and g.status == "playing" and g.paused_at is None for g in live)


def test_only_a_running_event_is_paused(director: User) -> None:
    event = make_event(director, status="registration")
    refused("wrong_status", 409, event_pause, event_id=event.pk, actor=director)
    refused("wrong_status", 409, event_resume, event_id=event.pk, actor=director)
