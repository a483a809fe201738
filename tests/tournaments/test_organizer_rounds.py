"""Organizer tools, part two: adjudicating tables, re-seating and starting a waiting round,
announcements, and the audit log they all write (``test_organizer``: who may use them)."""

from __future__ import annotations

import pytest

from accounts.models import Club, User
from tests.tournaments.factories import (
    FOUR,
    audit_actions,
    decide_round,
    entry_of,
    names_at,
    refused,
    round_of,
    run_hooks,
    started_event,
    swiss,
)
from tournaments.models import Announcement, AuditEntry
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
        event_id=event.pk,
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
    refused("wrong_status", 409, round_table_adjudicate, event_id=event.pk, **kwargs)


def test_a_live_game_refuses_wrong_places(director: User, club: Club) -> None:
    event = swiss(director, club)
    table = round_of(event).tables.first()
    assert table is not None
    kwargs = {"event_id": event.pk, "round_table_id": table.pk, "actor": director}
    refused("bad_request", 400, round_table_adjudicate, places={"zed": 1}, reason="x", **kwargs)
    places = dict.fromkeys(names_at(table), 1)
    refused("bad_request", 400, round_table_adjudicate, places=places, reason=" ", **kwargs)
    kwargs["round_table_id"] = table.pk + 99
    refused("not_found", 404, round_table_adjudicate, places=places, reason="x", **kwargs)


def test_adjudicating_face_to_face_records_at_once(director: User, club: Club) -> None:
    event = started_event(director, ["ann", "bob"], club=club, online=False)
    table = round_of(event).tables.get()
    kwargs = {"event_id": event.pk, "round_table_id": table.pk, "actor": director}
    refused("bad_request", 400, round_table_adjudicate, places={"ann": 1}, reason="x", **kwargs)
    places = {"ann": 2, "bob": 1}
    refused("bad_request", 400, round_table_adjudicate, places=places, reason="", **kwargs)
    round_table_adjudicate(places=places, reason="no time", **kwargs)
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
    reseat = {"event_id": event.pk, "round_id": first.pk, "tables": tables, "actor": director}
    round_reseat(**reseat)
    rows = list(first.tables.order_by("index"))
    assert [(t.key, t.players) for t in rows] == [("T1", tables[0]), ("T2", tables[1])]
    assert AuditEntry.objects.get(tournament=event, action="reseat").details == {
        "round": 1,
        "tables": tables,
    }
    round_start(event_id=event.pk, round_id=first.pk, actor=director)
    first.refresh_from_db()
    assert first.status == "running"
    seats = [
        list(t.table.seat_set.order_by("position").values_list("user__username", flat=True))
        for t in first.tables.order_by("index")
    ]
    assert seats == [["dan", "ann"], ["bob", "cid"]]
    refused("wrong_status", 409, round_start, event_id=event.pk, round_id=first.pk, actor=director)
    refused("wrong_status", 409, round_reseat, **reseat)
    decide_round(event, 1, director)
    second = round_of(event, 2)
    assert second.status == "pending"  # waits for the organizer again
    round_start(event_id=event.pk, round_id=second.pk, actor=director)
    decide_round(event, 2, director)
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
    kwargs = {"event_id": event.pk, "tables": tables, "actor": director}
    refused("bad_request", 400, round_reseat, round_id=first.pk, **kwargs)
    assert list(first.tables.values_list("players", flat=True)) == before
    refused("not_found", 404, round_reseat, round_id=first.pk + 99, **kwargs)


# --- Announcements and the audit log -----------------------------------------------------------


def test_announcements(director: User, club: Club) -> None:
    event = swiss(director, club)
    note = announce(event_id=event.pk, text="  Break until nine.  ", actor=director)
    assert (note.text, note.author, note.tournament) == ("Break until nine.", director, event)
    assert list(Announcement.objects.filter(tournament=event)) == [note]
    refused("bad_request", 400, announce, event_id=event.pk, text="  ", actor=director)
    assert AuditEntry.objects.get(tournament=event, action="announce").details == {
        "text": "Break until nine."
    }


def test_the_audit_log_names_every_step_and_who_took_it(director: User, club: Club) -> None:
    event = swiss(director, club, auto_advance=False)
    round_start(event_id=event.pk, round_id=round_of(event).pk, actor=director)
    event_pause(event_id=event.pk, actor=director)
    event_resume(event_id=event.pk, actor=director)
    announce(event_id=event.pk, text="Last round next", actor=director)
    ann = entry_of(event, "ann")
    entry_remove(event_id=event.pk, entry_id=ann.pk, actor=director, disqualify=False, reason="ill")
    assert audit_actions(event) == [
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
        "bracket" in refused("bad_request", 400, round_reseat, event_id=event.pk, **kwargs).message
    )
