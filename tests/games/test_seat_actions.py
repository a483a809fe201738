"""Who may join, leave or start a waiting table: the page, the lobby and the REST answer offer a
call exactly when its service accepts it (``games.refusals``, the checks both use).

Each situation is a table and a viewer; for each, the three calls are tried on the services
(inside a savepoint that is rolled back) and compared with what ``seat_actions``, the table page,
the lobby and ``GET /api/tables/{id}/`` say, and with what the situation is known to allow.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from django.db import transaction
from django.test import Client
from rest_framework.test import APIClient

from accounts.models import Club, ClubMembership, User
from config.errors import ServiceError
from games import services
from games.models import Seat, Table
from games.refusals import join_refusal, leave_refusal, seat_actions, start_refusal
from games.selectors import table_seats
from tests.accounts.factories import UserFactory
from tests.games.test_views import payload_of

pytestmark = pytest.mark.django_db

CALLS = {
    "join": services.table_join,
    "leave": services.table_leave,
    "start": services.table_start,
}


class _Rollback(Exception):
    pass


def accepted(table: Table, user: User, call: str) -> bool:
    """Whether the service takes ``call`` from ``user`` now, and it changes something (joining
    twice is a no-op): tried in a savepoint, then undone."""
    before = table.seat_set.filter(user=user).exists()
    try:
        with transaction.atomic():
            CALLS[call](table_id=table.pk, user=user)
            raise _Rollback
    except _Rollback:
        return not (call == "join" and before)
    except ServiceError:
        return False


def users(*names: str) -> list[User]:
    return [UserFactory(username=name) for name in names]


def waiting(creator: User, *others: User, seats: int = 3, club: Club | None = None) -> Table:
    table = services.table_create(creator=creator, ruleset="standard", seats=seats, club=club)
    for user in others:
        services.table_join(table_id=table.pk, user=user)
    return table


def club_of(*members: User) -> Club:
    club = Club.objects.create(name="Hearts", slug="hearts")
    for user in members:
        ClubMembership.objects.create(club=club, user=user)
    return club


# Each builds a table and names its viewer.
Situation = Callable[[], tuple[Table, User]]


def creator_alone() -> tuple[Table, User]:
    (ann,) = users("ann")
    return waiting(ann), ann


def creator_with_a_player() -> tuple[Table, User]:
    ann, bob = users("ann", "bob")
    return waiting(ann, bob), ann


def a_seated_player() -> tuple[Table, User]:
    ann, bob = users("ann", "bob")
    return waiting(ann, bob), bob


def a_spectator() -> tuple[Table, User]:
    ann, bob, cid = users("ann", "bob", "cid")
    return waiting(ann, bob), cid


def a_member_at_a_club_table() -> tuple[Table, User]:
    ann, dan = users("ann", "dan")
    return waiting(ann, club=club_of(ann, dan)), dan


def an_outsider_at_a_club_table() -> tuple[Table, User]:
    ann, eve = users("ann", "eve")
    return waiting(ann, club=club_of(ann)), eve


def a_full_table_not_started() -> tuple[Table, User]:
    # No service leaves a full table waiting (the last seat starts it); rows written directly
    # stand for a join racing the start.
    ann, bob, cid = users("ann", "bob", "cid")
    table = waiting(ann, seats=2)
    Seat.objects.create(table=table, user=bob, position=1)
    return table, cid


def a_game_in_play_seen_by_a_player() -> tuple[Table, User]:
    ann, bob = users("ann", "bob")
    return waiting(ann, bob, seats=2), ann


def a_game_in_play_seen_by_a_spectator() -> tuple[Table, User]:
    ann, bob, cid = users("ann", "bob", "cid")
    return waiting(ann, bob, seats=2), cid


def an_aborted_table() -> tuple[Table, User]:
    ann, bob = users("ann", "bob")
    table = waiting(ann)
    services.table_leave(table_id=table.pk, user=ann)
    return table, bob


def the_creator_who_left() -> tuple[Table, User]:
    ann, bob, cid = users("ann", "bob", "cid")
    table = waiting(ann, bob, cid, seats=4)
    services.table_leave(table_id=table.pk, user=ann)
    return table, ann


def the_player_handed_it() -> tuple[Table, User]:
    ann, bob, cid = users("ann", "bob", "cid")
    table = waiting(ann, bob, cid, seats=4)
    services.table_leave(table_id=table.pk, user=ann)
    return table, bob


SITUATIONS: dict[str, tuple[Situation, dict[str, bool]]] = {
    "creator alone": (creator_alone, {"join": False, "leave": True, "start": False}),
    "creator, two seated": (creator_with_a_player, {"join": False, "leave": True, "start": True}),
    "a seated player": (a_seated_player, {"join": False, "leave": True, "start": False}),
    "a spectator": (a_spectator, {"join": True, "leave": False, "start": False}),
    "club member": (a_member_at_a_club_table, {"join": True, "leave": False, "start": False}),
    "club outsider": (an_outsider_at_a_club_table, {"join": False, "leave": False, "start": False}),
    "full, waiting": (a_full_table_not_started, {"join": False, "leave": False, "start": False}),
    "in play, player": (a_game_in_play_seen_by_a_player, dict.fromkeys(CALLS, False)),
    "in play, spectator": (a_game_in_play_seen_by_a_spectator, dict.fromkeys(CALLS, False)),
    "aborted": (an_aborted_table, dict.fromkeys(CALLS, False)),
    "creator who left": (the_creator_who_left, {"join": True, "leave": False, "start": False}),
    "handed the table": (the_player_handed_it, {"join": False, "leave": True, "start": True}),
}


@pytest.fixture(params=list(SITUATIONS))
def situation(request: pytest.FixtureRequest) -> tuple[Table, User, dict[str, bool]]:
    build, expected = SITUATIONS[request.param]
    table, viewer = build()
    table.refresh_from_db()
    return table, viewer, expected


def test_the_services_accept_what_the_situation_allows(situation: Any) -> None:
    table, viewer, expected = situation
    assert {call: accepted(table, viewer, call) for call in CALLS} == expected


def test_seat_actions_offer_exactly_what_the_services_accept(situation: Any) -> None:
    table, viewer, _ = situation
    actions = seat_actions(table, viewer, table_seats(table))
    assert actions == {call: accepted(table, viewer, call) for call in CALLS}


def test_the_table_page_offers_exactly_what_the_services_accept(situation: Any) -> None:
    table, viewer, expected = situation
    client = Client()
    client.force_login(viewer)
    html = client.get(f"/tables/{table.pk}/").content.decode()
    shown = {call: bool(re.search(rf'<form id="{call}-form"[^>]*"\s*>', html)) for call in CALLS}
    assert shown == expected
    assert payload_of(html)["actions"] == expected


def test_the_rest_answer_carries_the_callers_actions(situation: Any) -> None:
    table, viewer, expected = situation
    api = APIClient()
    api.force_authenticate(viewer)
    assert api.get(f"/api/tables/{table.pk}/").json()["actions"] == expected


def test_the_lobby_offers_join_exactly_when_the_service_accepts_it(situation: Any) -> None:
    table, viewer, expected = situation
    client = Client()
    client.force_login(viewer)
    html = client.get("/tables/").content.decode()
    assert (f'action="/tables/{table.pk}/join/"' in html) == expected["join"]


def test_an_anonymous_visitor_is_offered_nothing() -> None:
    table, _ = a_spectator()
    html = Client().get(f"/tables/{table.pk}/").content.decode()
    assert payload_of(html)["actions"] == dict.fromkeys(CALLS, False)
    assert 'id="join-form"' not in html and "to take a seat" in html
    assert (
        APIClient().get(f"/api/tables/{table.pk}/").json()["actions"] == payload_of(html)["actions"]
    )


def test_the_service_raises_the_refusal_the_check_returns() -> None:
    """The page's reason and the service's refusal are one: same code, status and message."""
    table, eve = an_outsider_at_a_club_table()
    seats = table_seats(table)
    for check, call in ((join_refusal, "join"), (leave_refusal, "leave"), (start_refusal, "start")):
        refusal = check(table, eve, seats)
        assert refusal is not None
        with pytest.raises(ServiceError) as raised:
            CALLS[call](table_id=table.pk, user=eve)
        assert raised.value.body() == refusal.body() and raised.value.status == refusal.status


def test_the_answers_of_the_seat_calls_carry_the_new_actions() -> None:
    ann, bob = users("ann", "bob")
    table = waiting(ann)
    api = APIClient()
    api.force_authenticate(bob)
    joined = api.post(f"/api/tables/{table.pk}/join/").json()
    assert joined["actions"] == {"join": False, "leave": True, "start": False}
    left = api.post(f"/api/tables/{table.pk}/leave/").json()
    assert left["actions"] == {"join": True, "leave": False, "start": False}
