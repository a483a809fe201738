"""A service raises exactly what its check returns (``tournaments.refusals``): the page's reason
and the service's refusal are one, code, status and message."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from accounts.models import User
from config.errors import ServiceError
from tests.tournaments.factories import make_event, round_of, started_event, user_named
from tests.tournaments.offers import olga_face_to_face, olga_in_a_swiss_waiting
from tournaments import entries, refusals, services
from tournaments.models import Tournament
from tournaments.organizer import entry_remove, round_reseat
from tournaments.scorekeeper import scorekeeper_enter

pytestmark = pytest.mark.django_db

# Each case: (event and actor, the check's refusal, the service's call).
Case = Callable[[User], tuple[Any, Callable[[], object]]]


def below_the_rating(director: User) -> tuple[Any, Callable[[], object]]:
    event = make_event(director, status="registration", min_rating=1600)
    ann = user_named("ann")
    return refusals.register_refusal(event, ann), lambda: entries.entry_register(
        event_id=event.pk, user=ann
    )


def check_in_closed(director: User) -> tuple[Any, Callable[[], object]]:
    event = make_event(director, status="registration", players=["ann"])
    Tournament.objects.filter(pk=event.pk).update(check_in_opens_at="2999-01-01T00:00Z")
    event = services.event_open_check_in(event_id=event.pk, actor=director)
    return refusals.check_in_refusal(event, "registered"), lambda: entries.entry_check_in(
        event_id=event.pk, user=user_named("ann")
    )


def too_few_to_start(director: User) -> tuple[Any, Callable[[], object]]:
    event = make_event(director, status="check_in", players=["ann"])
    return refusals.start_refusal(event), lambda: services.event_start(
        event_id=event.pk, actor=director
    )


def a_rival_removed_by_a_player(director: User) -> tuple[Any, Callable[[], object]]:
    event, olga = olga_in_a_swiss_waiting(director)
    ann = event.entries.get(user__username="ann")
    refusal = refusals.remove_refusal(event, olga, own=False)
    return refusal, lambda: entry_remove(
        event_id=event.pk, entry_id=ann.pk, actor=olga, disqualify=False, reason="x"
    )


def reseated_by_a_player(director: User) -> tuple[Any, Callable[[], object]]:
    event, olga = olga_in_a_swiss_waiting(director)
    round_ = round_of(event)
    seating = [list(t.players) for t in round_.tables.all()]
    return refusals.reseat_refusal(event, round_, olga), lambda: round_reseat(
        event_id=event.pk, round_id=round_.pk, tables=seating, actor=olga
    )


def own_table_entered(director: User) -> tuple[Any, Callable[[], object]]:
    event, olga = olga_face_to_face(director)
    table = round_of(event).tables.get()
    hands = [{"ann": {"table": 10, "hand": 0}, "olga": {"table": 5, "hand": 5}}]
    return refusals.result_entry_refusal(event, table, olga), lambda: scorekeeper_enter(
        event_id=event.pk, round_table_id=table.pk, hands=hands, actor=olga
    )


def a_bracket_reseated(director: User) -> tuple[Any, Callable[[], object]]:
    event = started_event(director, ["ann", "bob"], auto_advance=False)
    round_ = round_of(event)
    seating = [list(t.players) for t in round_.tables.all()]
    return refusals.reseat_refusal(event, round_, director), lambda: round_reseat(
        event_id=event.pk, round_id=round_.pk, tables=seating, actor=director
    )


CASES: list[Case] = [
    below_the_rating,
    check_in_closed,
    too_few_to_start,
    a_rival_removed_by_a_player,
    reseated_by_a_player,
    own_table_entered,
    a_bracket_reseated,
]


@pytest.mark.parametrize("case", CASES, ids=[c.__name__ for c in CASES])
def test_the_service_raises_the_refusal_its_check_returns(case: Case, director: User) -> None:
    refusal, call = case(director)
    assert refusal is not None
    with pytest.raises(ServiceError) as raised:
        call()
    assert (raised.value.body(), raised.value.status) == (refusal.body(), refusal.status)
