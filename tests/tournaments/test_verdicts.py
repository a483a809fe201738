"""One verdict per table (issue 20, item 1): once a round table has a game, only that game
decides it; a face-to-face entry, an adjudication and the game's own end exclude each other, in
either order and when they arrive together, and the second is refused with ``wrong_status``
(409) and changes nothing. The event, the game result and the ratings then tell the same story.

The race tests run real threads on committed data (``transactional_db``); on PostgreSQL both
calls take the event's row lock (and the game's before it, when there is one:
``tournaments.locks``), so one waits for the other and then reads its verdict.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from threading import Barrier
from typing import Any

import pytest
from django.db import connection

from accounts.models import Club, User
from games.models import GameResult, Table
from ratings.audit import ratings_check
from ratings.models import RatingChange
from tests.tournaments.factories import (
    names_at,
    refused,
    round_of,
    run_hooks,
    started_event,
)
from tournaments.errors import EventError
from tournaments.models import RoundTable, Tournament
from tournaments.organizer import round_table_adjudicate
from tournaments.scorekeeper import scorekeeper_enter


def win_for(first: str, second: str) -> list[dict[str, dict[str, int]]]:
    """Two hands that take ``first`` to 60 (the target is 50) and ``second`` to -35."""
    return [
        {first: {"table": 45, "hand": 5}, second: {"table": 10, "hand": 30}},
        {first: {"table": 20, "hand": 0}, second: {"table": 0, "hand": 15}},
    ]


def enter(event: Tournament, table: RoundTable, winner: str, actor: User) -> Table:
    loser = next(n for n in names_at(table) if n != winner)
    return scorekeeper_enter(
        event_id=event.pk, round_table_id=table.pk, hands=win_for(winner, loser), actor=actor
    )


def adjudicate(event: Tournament, table: RoundTable, winner: str, actor: User) -> RoundTable:
    places = {n: 1 if n == winner else 2 for n in names_at(table)}
    return round_table_adjudicate(
        event_id=event.pk, round_table_id=table.pk, places=places, actor=actor, reason="dispute"
    )


def winner_of(table: RoundTable) -> str | None:
    """The event's verdict: who has place 1 at ``table`` (None while it has no result)."""
    table.refresh_from_db()
    if table.places is None:
        return None
    return dict(zip(table.places, names_at(table), strict=True)).get(1)


def assert_one_story(table: RoundTable) -> None:
    """The event's result of ``table`` is its game's, and the ratings moved that game's way (a
    table decided without a game has no game result and no rating change)."""
    table.refresh_from_db()
    if table.table_id is None:
        assert table.places is not None
        return
    result = GameResult.objects.get(table_id=table.table_id)
    assert winner_of(table) == result.winner
    changes = RatingChange.objects.filter(table_id=table.table_id, pool__kind="global")
    moved = {c.user.username: c.after - c.before for c in changes.select_related("user")}
    if result.ended != "adjudicated":
        assert moved[result.winner] > 0 > min(moved.values())


# --- One after the other -------------------------------------------------------------------------


@pytest.mark.django_db
def test_an_entered_game_refuses_an_adjudication_before_and_after_its_hooks(
    director: User, club: Club
) -> None:
    """The issue's case: the entry commits, its hooks have not run yet (the event has no places),
    and an adjudication arrives: it used to be recorded, crediting the other player."""
    event = started_event(director, ["ann", "bob"], club=club, online=False)
    table = round_of(event).tables.get()
    game = enter(event, table, "ann", director)
    message = refused("wrong_status", 409, adjudicate, event, table, "bob", director).message
    assert "has its game" in message
    table.refresh_from_db()
    assert (table.places, table.adjudicated) == (None, "")
    run_hooks(game.pk)
    refused("wrong_status", 409, adjudicate, event, table, "bob", director)
    assert winner_of(table) == "ann"
    assert_one_story(table)
    event.refresh_from_db()
    assert event.champion.username == "ann"


@pytest.mark.django_db
def test_an_adjudication_refuses_an_entry_and_a_second_adjudication(
    director: User, club: Club
) -> None:
    event = started_event(director, ["ann", "bob", "cid", "dan"], club=club, online=False)
    table = round_of(event).tables.first()
    assert table is not None
    first, second = names_at(table)
    adjudicate(event, table, second, director)
    tables_before = Table.objects.count()
    refused("wrong_status", 409, enter, event, table, first, director)
    refused("wrong_status", 409, adjudicate, event, table, first, director)
    assert Table.objects.count() == tables_before
    assert winner_of(table) == second


@pytest.mark.django_db
def test_an_entry_refuses_a_second_entry(director: User, club: Club) -> None:
    event = started_event(director, ["ann", "bob"], club=club, online=False)
    table = round_of(event).tables.get()
    enter(event, table, "ann", director)
    refused("wrong_status", 409, enter, event, table, "bob", director)
    assert GameResult.objects.count() == 1


@pytest.mark.django_db
def test_a_live_game_adjudicated_once_refuses_the_second_before_its_hooks(
    director: User, club: Club
) -> None:
    """The first adjudication ends the game; the second no longer sees a game in play, and
    used to take the table without a game's path, recording its own places."""
    event = started_event(director, ["ann", "bob", "cid", "dan"], club=club)
    table = round_of(event).tables.first()
    assert table is not None and table.table_id is not None
    first, second = names_at(table)
    adjudicate(event, table, first, director)
    message = refused("wrong_status", 409, adjudicate, event, table, second, director).message
    assert "has its game" in message
    table.refresh_from_db()
    assert table.places is None and table.adjudicated == "dispute"
    run_hooks(table.table_id)
    assert winner_of(table) == first
    assert GameResult.objects.get(table_id=table.table_id).winner == first
    assert not RatingChange.objects.filter(table_id=table.table_id).exists()  # adjudicated


# --- At the same time ----------------------------------------------------------------------------


def at_once(calls: list[Callable[[], Any]]) -> list[Any]:
    """Run ``calls`` from as many threads, released together; each result or exception."""
    barrier = Barrier(len(calls))

    def run(call: Callable[[], Any]) -> Any:
        try:
            barrier.wait(timeout=10)
            return call()
        except Exception as exc:
            return exc
        finally:
            connection.close()

    with ThreadPoolExecutor(len(calls)) as pool:
        return list(pool.map(run, calls))


@pytest.mark.django_db(transaction=True)
def test_an_entry_and_an_adjudication_at_once_give_one_verdict(director: User) -> None:
    club = Club.objects.create(name="Hearts", slug="hearts")
    names = ["ann", "bob", "cid", "dan", "eve", "fay", "gus", "hal"]
    event = started_event(director, names, club=club, online=False)
    tables = list(round_of(event).tables.order_by("index"))
    verdicts: dict[int, str] = {}
    for number, table in enumerate(tables):
        first, second = names_at(table)
        calls: list[Callable[[], Any]] = [
            lambda t=table, w=first: enter(event, t, w, director),
            lambda t=table, w=second: adjudicate(event, t, w, director),
        ]
        if number % 2:
            calls.reverse()  # who is sent first should not matter
        answers = at_once(calls)
        refusals = [a for a in answers if isinstance(a, Exception)]
        assert len(refusals) == 1, answers
        assert isinstance(refusals[0], EventError), refusals
        assert (refusals[0].code, refusals[0].status) == ("wrong_status", 409)
        won = next(a for a in answers if not isinstance(a, Exception))
        verdicts[table.pk] = first if isinstance(won, Table) else second
    for table in tables:
        table.refresh_from_db()
        if table.table_id is not None:
            run_hooks(table.table_id)
    assert Table.objects.count() == sum(t.table_id is not None for t in tables)
    for table in tables:
        assert winner_of(table) == verdicts[table.pk]
        assert_one_story(table)
    event.refresh_from_db()
    semi_finalists = sorted(n for t in round_of(event, 2).tables.all() for n in names_at(t))
    assert semi_finalists == sorted(verdicts.values())
    assert ratings_check().equal


@pytest.mark.django_db(transaction=True)
def test_two_adjudications_of_a_live_game_at_once_give_one_verdict(director: User) -> None:
    club = Club.objects.create(name="Hearts", slug="hearts")
    event = started_event(director, ["ann", "bob"], club=club)
    table = round_of(event).tables.get()
    first, second = names_at(table)
    answers = at_once(
        [
            lambda: adjudicate(event, table, first, director),
            lambda: adjudicate(event, table, second, director),
        ]
    )
    refusals = [a for a in answers if isinstance(a, Exception)]
    assert len(refusals) == 1 and getattr(refusals[0], "status", None) == 409, answers
    table.refresh_from_db()
    assert table.table_id is not None
    run_hooks(table.table_id)
    result = GameResult.objects.get(table_id=table.table_id)
    assert winner_of(table) == result.winner
    event.refresh_from_db()
    assert event.champion.username == result.winner
