"""Events set up through the services for the API, page and socket tests: a draft, one in
check-in with its players checked in, one running with its round-1 tables in play, and a table
decided with its hooks run as a worker would."""

from __future__ import annotations

from typing import Any

from accounts.models import User
from games import finalization
from games.hosting import table_adjudicate
from tests.accounts.factories import UserFactory
from tournaments.entries import entry_check_in, entry_register
from tournaments.models import Entry, Round, RoundTable, Tournament
from tournaments.services import (
    tournament_create,
    tournament_open_check_in,
    tournament_open_registration,
    tournament_start,
)


def new_event(director: User, **fields: Any) -> Tournament:
    """A draft: single elimination at tables of two, to 50 points, unless ``fields`` say."""
    fields.setdefault("name", "Club night")
    fields.setdefault("format", "single_elimination")
    fields.setdefault("overrides", {"target": 50})
    return tournament_create(created_by=director, **fields)


def registering(director: User, names: list[str], **fields: Any) -> Tournament:
    """An event with registration open and ``names`` registered."""
    event = new_event(director, **fields)
    tournament_open_registration(tournament_id=event.pk, actor=director)
    for name in names:
        user = User.objects.filter(username=name).first() or UserFactory(username=name)
        entry_register(tournament_id=event.pk, user=user)
    return event


def checked_in(director: User, names: list[str], **fields: Any) -> Tournament:
    """An event in check-in with ``names`` registered and checked in."""
    event = registering(director, names, **fields)
    tournament_open_check_in(tournament_id=event.pk, actor=director)
    for name in names:
        entry_check_in(tournament_id=event.pk, user=User.objects.get(username=name))
    return event


def running(director: User, names: list[str], **fields: Any) -> Tournament:
    """A started event: round 1 planned (and its tables in play unless ``auto_advance``)."""
    event = checked_in(director, names, **fields)
    tournament_start(tournament_id=event.pk, actor=director)
    event.refresh_from_db()
    return event


def first_round(event: Tournament) -> Round:
    return event.round_set.get(number=1)


def players_of(table: RoundTable) -> list[str]:
    names = dict(Entry.objects.filter(pk__in=table.players).values_list("pk", "user__username"))
    return [names[p] for p in table.players]


def decide(table: RoundTable, actor: User, winner: str | None = None) -> None:
    """End a round table's live game (``winner`` first, else its first seat) and run the
    game's finalization hooks, as the worker would."""
    assert table.table_id is not None
    order = players_of(table)
    if winner is not None:
        order.remove(winner)
        order.insert(0, winner)
    places = {name: i + 1 for i, name in enumerate(order)}
    table_adjudicate(table_id=table.table_id, places=places, actor=actor, reason="test")
    for hook in finalization.hook_names():
        finalization.run_hook(table.table_id, hook)


def finish_round(event: Tournament, number: int, actor: User) -> None:
    """Decide every table of round ``number`` in favour of its first seat."""
    for table in RoundTable.objects.filter(round__tournament=event, round__number=number):
        if table.places is None:
            decide(table, actor)
