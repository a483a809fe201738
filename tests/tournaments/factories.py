"""Helpers for event tests: users, an event brought to any status through the services, a
started event, a round table's live game decided and run through its finalization hooks as the
workers do, a round decided, a refusal checked, the audit log read."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import pytest

from accounts.models import Club, User
from config.errors import ServiceError
from games import finalization
from games.hosting import table_adjudicate
from tests.accounts.factories import UserFactory
from tournaments.entries import entry_check_in, entry_register
from tournaments.models import AuditEntry, Entry, Round, RoundTable, Tournament
from tournaments.services import (
    event_cancel,
    event_create,
    event_open_check_in,
    event_open_registration,
    event_start,
)

# Each status, and the one before it on the way there.
_PATH = {
    "registration": "draft",
    "check_in": "registration",
    "running": "check_in",
}


#: The field of most events here: two tables of two.
FOUR = ["ann", "bob", "cid", "dan"]


def users(*names: str, **fields: Any) -> list[User]:
    """One user per name (``fields`` for all of them, e.g. ``is_staff=True``)."""
    return [UserFactory(username=name, **fields) for name in names]


def staff(name: str = "director") -> User:
    return UserFactory(username=name, is_staff=True)


def user_named(name: str) -> User:
    """The user called ``name``, made when there is none yet."""
    return User.objects.filter(username=name).first() or UserFactory(username=name)


def make_event(
    created_by: User,
    *,
    status: str = "draft",
    players: Sequence[User | str] = (),
    **fields: Any,
) -> Tournament:
    """An event created by ``created_by`` (who must be allowed to run it: staff, say) and moved
    through the services to ``status``. ``players`` (users, or usernames: see ``user_named``)
    register once registration opens and check in once check-in opens. By default a
    single-elimination event of two-player tables with a target of 50; ``fields`` as
    ``event_create`` takes.
    """
    fields.setdefault("name", "Club night")
    fields.setdefault("format", "single_elimination")
    fields.setdefault("overrides", {"target": 50})
    event = event_create(created_by=created_by, **fields)
    entrants = [user_named(p) if isinstance(p, str) else p for p in players]
    if status == "cancelled":
        return event_cancel(event_id=event.pk, actor=created_by, reason="test")
    for step in _steps_to(status):
        _step(event, step, created_by, entrants)
    event.refresh_from_db()
    return event


def _steps_to(status: str) -> list[str]:
    steps: list[str] = []
    while status in _PATH:
        steps.insert(0, status)
        status = _PATH[status]
    return steps


def _step(event: Tournament, step: str, actor: User, entrants: list[User]) -> None:
    if step == "registration":
        event_open_registration(event_id=event.pk, actor=actor)
        for user in entrants:
            entry_register(event_id=event.pk, user=user)
    elif step == "check_in":
        event_open_check_in(event_id=event.pk, actor=actor)
        for user in entrants:
            entry_check_in(event_id=event.pk, user=user)
    else:
        event_start(event_id=event.pk, actor=actor)


def started_event(created_by: User, players: Sequence[User | str], **fields: Any) -> Tournament:
    """A running event of ``players``, its first round planned (and started, unless the event
    waits for its organizers: ``auto_advance=False``)."""
    return make_event(created_by, status="running", players=players, **fields)


def swiss(director: User, club: Club, **fields: Any) -> Tournament:
    """A running two-round Swiss of ``FOUR`` (two tables a round), run by the club."""
    return started_event(director, FOUR, format="swiss", rounds=2, club=club, **fields)


def round_of(event: Tournament, number: int = 1) -> Round:
    return Round.objects.get(tournament=event, number=number)


def names_at(table: RoundTable) -> list[str]:
    """The usernames of a round table's players, in seat order."""
    names = dict(Entry.objects.filter(pk__in=table.players).values_list("pk", "user__username"))
    return [names[pid] for pid in table.players]


def entry_of(event: Tournament, username: str) -> Entry:
    return Entry.objects.get(tournament=event, user__username=username)


def run_hooks(table_id: int) -> None:
    """Run every finalization hook of a finished game, as the workers do after commit."""
    for name in finalization.hook_names():
        finalization.run_hook(table_id, name)


def decide(table: RoundTable, actor: User, order: Sequence[str] = ()) -> None:
    """End a round table's live game by adjudication, the players in ``order`` first (best
    first) and the others after them in seat order, and run its hooks."""
    assert table.table_id is not None
    seated = names_at(table)
    ranking = [*order, *(n for n in seated if n not in order)]
    places = {name: i + 1 for i, name in enumerate(ranking)}
    table_adjudicate(table_id=table.table_id, places=places, actor=actor, reason="test")
    run_hooks(table.table_id)


def decide_round(event: Tournament, number: int, actor: User) -> None:
    """Decide every live game of the round, alphabetical order winning (the results reach the
    event)."""
    for table in round_of(event, number).tables.filter(places__isnull=True):
        if table.table is not None and table.table.status == "playing":
            decide(table, actor, sorted(names_at(table)))


def refused(
    code: str, status: int, call: Callable[..., Any], *args: Any, **kwargs: Any
) -> ServiceError:
    """``call(*args, **kwargs)`` is refused with ``code`` and ``status`` (by the event's services
    or, for a live table, by the table's)."""
    with pytest.raises(ServiceError) as caught:
        call(*args, **kwargs)
    assert (caught.value.code, caught.value.status) == (code, status), caught.value.message
    return caught.value


def audit_actions(event: Tournament) -> list[str]:
    """The event's audit log, oldest first."""
    rows = AuditEntry.objects.filter(tournament=event).order_by("id")
    return list(rows.values_list("action", flat=True))
