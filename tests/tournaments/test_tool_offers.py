"""The organizer's tools offer a call exactly when its service accepts it (part two of
``test_page_offers``): the event's moves in each status, who may be removed, which tables may be
entered or decided, which rounds re-seated or started, and an organizer who plays in their own
event. Calls are named as in ``tests/tournaments/offers.py``."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.test import Client

from accounts.models import User
from tests.tournaments.factories import (
    FOUR,
    decide_round,
    make_event,
    names_at,
    round_of,
    started_event,
    user_named,
)
from tests.tournaments.offers import (
    accepted,
    offered_by_context,
    offered_by_page,
    olga_face_to_face,
    olga_in_a_swiss,
    olga_in_a_swiss_waiting,
)
from tournaments import entries, organizer, services
from tournaments.models import Tournament

pytestmark = pytest.mark.django_db

Situation = Callable[[User], tuple[Tournament, User]]
MOVES = {"tool:pause", "tool:cancel"}  # of a running event


def removes(*names: str) -> set[str]:
    return {f"remove:{name}" for name in names}


def draft(director: User) -> tuple[Tournament, User]:
    return make_event(director), director


def registration(director: User) -> tuple[Tournament, User]:
    return make_event(director, status="registration", players=["ann"]), director


def check_in(director: User) -> tuple[Tournament, User]:
    return make_event(director, status="check_in", players=["ann", "bob"]), director


def check_in_with_nobody(director: User) -> tuple[Tournament, User]:
    return make_event(director, status="check_in"), director


def swiss_running(director: User, **fields: object) -> tuple[Tournament, User]:
    return started_event(director, FOUR, format="swiss", rounds=2, **fields), director


def paused(director: User) -> tuple[Tournament, User]:
    event, _ = swiss_running(director)
    return organizer.event_pause(event_id=event.pk, actor=director), director


def round_waiting(director: User) -> tuple[Tournament, User]:
    return swiss_running(director, auto_advance=False)


def bracket_waiting(director: User) -> tuple[Tournament, User]:
    return started_event(director, ["ann", "bob"], auto_advance=False), director


def face_to_face(director: User) -> tuple[Tournament, User]:
    return started_event(director, ["ann", "bob"], online=False), director


def face_to_face_one_left(director: User) -> tuple[Tournament, User]:
    event, _ = face_to_face(director)
    entries.entry_withdraw(event_id=event.pk, user=user_named("bob"))
    return event, director


def finished(director: User) -> tuple[Tournament, User]:
    event = started_event(director, ["ann", "bob"])
    decide_round(event, 1, director)
    return event, director


def cancelled(build: Situation) -> Situation:
    def situation(director: User) -> tuple[Tournament, User]:
        event, viewer = build(director)
        return services.event_cancel(event_id=event.pk, actor=viewer, reason="rain"), viewer

    return situation


def olga_table(event: Tournament) -> str:
    """The swiss round 1 table Olga does not sit at."""
    tables = list(round_of(event).tables.order_by("index"))
    return next(f"1.{t.index + 1}" for t in tables if "olga" not in names_at(t))


#: Each situation and what its organizer is offered (player calls of theirs included).
SITUATIONS: dict[str, tuple[Situation, Callable[[Tournament], set[str]]]] = {
    "draft": (draft, lambda e: {"tool:open-registration", "tool:cancel"}),
    "registration": (
        registration,
        lambda e: {
            "register",
            "tool:open-check-in",
            "tool:close",
            "tool:cancel",
            "remove:ann",
            "tool:seed",
        },
    ),
    "check-in": (
        check_in,
        lambda e: {"tool:close", "tool:start", "tool:cancel", "tool:seed", *removes("ann", "bob")},
    ),
    # The format cannot start with nobody checked in: no Start (it used to be offered). Nobody
    # to seed either.
    "check-in, nobody": (check_in_with_nobody, lambda e: {"tool:close", "tool:cancel"}),
    "running": (
        swiss_running,
        lambda e: MOVES | removes(*FOUR) | {"adjudicate:1.1", "adjudicate:1.2"},
    ),
    "paused": (
        paused,
        lambda e: {
            "tool:resume",
            "tool:cancel",
            *removes(*FOUR),
            "adjudicate:1.1",
            "adjudicate:1.2",
        },
    ),
    "round waiting": (
        round_waiting,
        lambda e: MOVES | removes(*FOUR) | {"reseat:1", "round-start:1"},
    ),
    "bracket waiting": (
        bracket_waiting,
        lambda e: MOVES | removes("ann", "bob") | {"round-start:1"},
    ),
    "face to face": (
        face_to_face,
        lambda e: MOVES | removes("ann", "bob") | {"result:1.1", "adjudicate:1.1"},
    ),
    # One player left: fewer than two to enter a game of, so it is decided instead.
    "face to face, one left": (
        face_to_face_one_left,
        lambda e: MOVES | {"remove:ann", "adjudicate:1.1"},
    ),
    # Over: nobody is removed any more (the players used to be listed).
    "finished": (finished, lambda e: set()),
    "cancelled while running": (
        cancelled(swiss_running),
        lambda e: {"adjudicate:1.1", "adjudicate:1.2"},
    ),
    # Cancelled: no game is entered (it used to be offered); a decision still is.
    "cancelled face to face": (cancelled(face_to_face), lambda e: {"adjudicate:1.1"}),
    # An organizer who plays: only themselves removed, no rival's table decided, no re-seating.
    "organizer plays": (
        olga_in_a_swiss,
        lambda e: MOVES | {"withdraw", "remove:olga", f"adjudicate:{olga_table(e)}"},
    ),
    "organizer plays, round waiting": (
        olga_in_a_swiss_waiting,
        lambda e: MOVES | {"withdraw", "remove:olga", "round-start:1"},
    ),
    "organizer plays face to face": (
        olga_face_to_face,
        lambda e: MOVES | {"withdraw", "remove:olga"},
    ),
}


@pytest.fixture(params=list(SITUATIONS))
def situation(request: pytest.FixtureRequest, director: User) -> tuple[Tournament, User, set[str]]:
    build, expected = SITUATIONS[request.param]
    event, viewer = build(director)
    event.refresh_from_db()
    return event, viewer, expected(event)


def test_the_services_accept_what_the_situation_allows(situation: tuple) -> None:
    event, viewer, expected = situation
    assert accepted(event, viewer) == expected


def test_the_tools_offer_exactly_what_the_services_accept(situation: tuple) -> None:
    event, viewer, _ = situation
    assert offered_by_context(event, viewer) == accepted(event, viewer)


def test_the_page_offers_exactly_what_the_services_accept(situation: tuple) -> None:
    event, viewer, _ = situation
    assert offered_by_page(event, viewer) == accepted(event, viewer)


def test_the_tools_say_why_an_event_in_check_in_cannot_start(director: User) -> None:
    event, _ = check_in_with_nobody(director)
    client = Client()
    client.force_login(director)
    html = client.get(event.get_absolute_url()).content.decode()
    assert '<p class="hint" id="start-note">The event cannot start yet. ' in html
    event, _ = check_in(director)
    assert 'id="start-note"' not in client.get(event.get_absolute_url()).content.decode()
