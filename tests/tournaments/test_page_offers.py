"""The event page offers a call exactly when its service accepts it (``tournaments.refusals``, the
checks both use): for each situation, every call the viewer might make is tried on its service
(and undone) and compared with what the page's context offers, what the page's forms are, and
what the situation is known to allow. The box's message says why not in the refusal's words.

Part one: a player's own box (register, check in, withdraw) in each event and entry status.
Part two (``test_tool_offers``): the organizer's tools.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from accounts.models import Club, ClubMembership, User
from tests.tournaments.factories import decide_round, entry_of, make_event, started_event
from tests.tournaments.offers import accepted, offered_by_context, offered_by_page
from tournaments import entries, services
from tournaments.models import Tournament
from tournaments.organizer import entry_remove

pytestmark = pytest.mark.django_db

HOUR = timedelta(hours=1)
Situation = Callable[[User], tuple[Tournament, User]]


def ann() -> User:
    return User.objects.get_or_create(username="ann")[0]


def _registration(director: User, **fields: object) -> tuple[Tournament, User]:
    return make_event(director, status="registration", **fields), ann()


def not_yet_open(director: User) -> tuple[Tournament, User]:
    return _registration(director, registration_opens_at=timezone.now() + HOUR)


def closed(director: User) -> tuple[Tournament, User]:
    return _registration(director, registration_closes_at=timezone.now() - HOUR)


def below_the_rating(director: User) -> tuple[Tournament, User]:
    return _registration(director, min_rating=1600)


def an_outsider(director: User) -> tuple[Tournament, User]:
    club = Club.objects.create(name="Hearts", slug="hearts")
    return _registration(director, club=club, members_only=True)


def a_member(director: User) -> tuple[Tournament, User]:
    club = Club.objects.create(name="Hearts", slug="hearts")
    ClubMembership.objects.create(club=club, user=ann())
    return _registration(director, club=club, members_only=True)


def full(director: User) -> tuple[Tournament, User]:
    return _registration(director, max_players=2, players=["bob", "cid"])


def registered(director: User) -> tuple[Tournament, User]:
    return _registration(director, players=["ann"])


def withdrew(director: User) -> tuple[Tournament, User]:
    event, viewer = registered(director)
    entries.entry_withdraw(event_id=event.pk, user=viewer)
    return event, viewer


def disqualified(director: User) -> tuple[Tournament, User]:
    event, viewer = registered(director)
    entry = entry_of(event, "ann")
    entry_remove(event_id=event.pk, entry_id=entry.pk, actor=director, disqualify=True, reason="x")
    return event, viewer


def in_check_in(director: User, **window: object) -> tuple[Tournament, User]:
    event, viewer = registered(director)
    Tournament.objects.filter(pk=event.pk).update(**window)
    return services.event_open_check_in(event_id=event.pk, actor=director), viewer


def check_in_not_yet_open(director: User) -> tuple[Tournament, User]:
    return in_check_in(director, check_in_opens_at=timezone.now() + HOUR)


def check_in_closed(director: User) -> tuple[Tournament, User]:
    return in_check_in(director, check_in_closes_at=timezone.now() - HOUR)


def checked_in(director: User) -> tuple[Tournament, User]:
    return make_event(director, status="check_in", players=["ann", "bob"]), ann()


def late_for_registration(director: User) -> tuple[Tournament, User]:
    return make_event(director, status="check_in", players=["bob", "cid"]), ann()


def playing(director: User) -> tuple[Tournament, User]:
    return started_event(director, ["ann", "bob"]), ann()


def no_show(director: User) -> tuple[Tournament, User]:
    event = make_event(director, status="registration", players=["ann", "bob", "cid"])
    services.event_open_check_in(event_id=event.pk, actor=director)
    for name in ("bob", "cid"):
        entries.entry_check_in(event_id=event.pk, user=User.objects.get(username=name))
    return services.event_start(event_id=event.pk, actor=director), ann()


def withdrew_while_running(director: User) -> tuple[Tournament, User]:
    event, viewer = playing(director)
    entries.entry_withdraw(event_id=event.pk, user=viewer)
    return event, viewer


def finished(director: User) -> tuple[Tournament, User]:
    event, viewer = playing(director)
    decide_round(event, 1, director)
    event.refresh_from_db()
    assert event.status == Tournament.Status.FINISHED
    return event, viewer


def knocked_out(director: User) -> tuple[Tournament, User]:
    """zed loses the semi-final (alphabetical order wins) while the final is still to play."""
    event = started_event(director, ["ann", "bob", "cid", "zed"])
    decide_round(event, 1, director)
    event.refresh_from_db()
    assert event.status == Tournament.Status.RUNNING
    return event, User.objects.get(username="zed")


def runner_up(director: User) -> tuple[Tournament, User]:
    event, _ = finished(director)
    return event, User.objects.get(username="bob")


def cancelled(build: Situation) -> Situation:
    def situation(director: User) -> tuple[Tournament, User]:
        event, viewer = build(director)
        return services.event_cancel(event_id=event.pk, actor=director, reason="rain"), viewer

    return situation


def nobody(director: User) -> tuple[Tournament, User]:
    return make_event(director, status="registration"), ann()


#: Each situation, what the box offers there, and a part of its message.
SITUATIONS: dict[str, tuple[Situation, set[str], str]] = {
    "registration open": (nobody, {"register"}, "Registration is open."),
    "not yet open": (not_yet_open, set(), "Registration opens at "),
    "closed": (closed, set(), "Registration closed at "),
    "below the rating": (below_the_rating, set(), "Entry needs a rating of at least 1600."),
    "members only, outsider": (an_outsider, set(), "Only members of Hearts may enter."),
    "members only, member": (a_member, {"register"}, "Registration is open."),
    "full": (full, set(), "All 2 places are taken."),
    "registered": (registered, {"withdraw"}, "You are registered; check-in opens"),
    "withdrew": (withdrew, {"register"}, "Registration is open."),
    # A disqualification stands: the service refuses a new registration, so the page offers none.
    "disqualified": (disqualified, set(), "Your entry: disqualified (x)."),
    "check-in open": (in_check_in, {"check-in", "withdraw"}, "Check in to play"),
    "check-in not yet open": (check_in_not_yet_open, {"withdraw"}, "Check-in opens at "),
    "check-in closed": (check_in_closed, {"withdraw"}, "Check-in closed at "),
    "checked in": (checked_in, {"withdraw"}, "You are checked in"),
    "late for registration": (
        late_for_registration,
        set(),
        "Registration is closed: check-in is open to the registered players.",
    ),
    "playing": (playing, {"withdraw"}, "You are playing."),
    "no-show": (no_show, set(), "Your entry: did not check in."),
    "withdrew while running": (withdrew_while_running, set(), "Your entry: withdrawn (withdrew)."),
    # The finished event: a player's box says how they did, from their entry's standing.
    "knocked out": (knocked_out, set(), "You are knocked out: the event goes on without you."),
    "finished, won": (finished, set(), "You won the event."),
    "finished, second": (runner_up, set(), "You finished in 2nd place."),
    "cancelled, registered": (cancelled(registered), set(), "Your entry: registered."),
    "cancelled, checked in": (cancelled(checked_in), set(), "Your entry: checked in."),
    "cancelled, no entry": (cancelled(nobody), set(), "This event is cancelled."),
    "cancelled, playing": (cancelled(playing), set(), "The event was cancelled."),
}


@pytest.fixture(params=list(SITUATIONS))
def situation(request: pytest.FixtureRequest, director: User) -> tuple[Tournament, User, set[str]]:
    build, expected, _ = SITUATIONS[request.param]
    event, viewer = build(director)
    return event, viewer, expected


def test_the_services_accept_what_the_situation_allows(situation: tuple) -> None:
    event, viewer, expected = situation
    assert accepted(event, viewer) == expected


def test_the_box_offers_exactly_what_the_services_accept(situation: tuple) -> None:
    event, viewer, _ = situation
    assert offered_by_context(event, viewer) == accepted(event, viewer)


def test_the_page_offers_exactly_what_the_services_accept(situation: tuple) -> None:
    event, viewer, _ = situation
    assert offered_by_page(event, viewer) == accepted(event, viewer)


@pytest.mark.parametrize("name", list(SITUATIONS))
def test_the_box_says_where_the_player_stands(name: str, director: User) -> None:
    build, _, message = SITUATIONS[name]
    event, viewer = build(director)
    client = Client()
    client.force_login(viewer)
    html = client.get(event.get_absolute_url()).content.decode()
    shown = html[html.index('<p id="you-message">') :].split("</p>")[0]
    assert message in shown.replace("&#x27;", "'")
