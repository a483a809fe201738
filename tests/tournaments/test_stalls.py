"""An event that cannot stall (issue 20, item 5), part one: its rules are checked against every
table size it may draw (2 to its table size: fewer than ``min_table`` once players leave), when
it is created (service, API, page form, admin) and again at its start, which refuses in words
instead of failing on the first table it cannot deal.

Part two, a finalization hook that keeps failing, is ``tests/games/test_finalization_failures.py``
and ``test_stalled_hooks.py`` here."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from rest_framework.test import APIClient

from accounts.models import User
from games.models import RuleSet
from tests.tournaments.factories import make_event, refused
from tournaments.models import Round, Tournament
from tournaments.services import event_create, event_start

pytestmark = pytest.mark.django_db

#: 2 players x 27 cards need 55 cards, one deck with its two jokers holds 54; 3 x 7 need 22.
NO_TWO = {"hand_size_two": 27}


def swiss_tables(**fields: Any) -> dict[str, Any]:
    """The issue's event: Swiss tables of 3, the smallest table 2."""
    return {
        "name": "Threes",
        "format": "swiss_tables",
        "table_size": 3,
        "options": {"min_table": 2},
        "rounds": 2,
        **fields,
    }


def test_rules_that_cannot_deal_to_a_table_the_event_may_draw_are_refused(director: User) -> None:
    error = refused(
        "bad_request",
        400,
        event_create,
        created_by=director,
        **swiss_tables(overrides={"target": 50, **NO_TWO}),
    )
    assert error.message.startswith("hand_size_two: the rules cannot deal to a table of 2,")
    assert "2 players x 27 cards need 55 cards" in error.message
    # A table of 2 is drawn without min_table 2 too: five players at tables of 3 to 3 sit at 3
    # and 2, and a table planned before a player left opens with those still in.
    options = {"min_table": 3}
    kwargs = swiss_tables(overrides=NO_TWO, options=options)
    assert (
        "table of 2"
        in refused("bad_request", 400, event_create, created_by=director, **kwargs).message
    )
    made = event_create(created_by=director, **swiss_tables(overrides={"hand_size": 10}))
    assert made.pk is not None  # 3 x 10 + 1 and 2 x 13 + 1 both fit one deck
    two_seats = {"name": "Duel", "format": "swiss", "table_size": 2, "overrides": NO_TWO}
    assert (
        "table of 2"
        in refused("bad_request", 400, event_create, created_by=director, **two_seats).message
    )


def test_the_api_and_the_form_say_which_table_size_fails(director: User) -> None:
    api = APIClient()
    api.force_authenticate(director)
    body = swiss_tables(overrides={"target": 50, **NO_TWO})
    answer = api.post("/api/events/", body, format="json")
    assert answer.status_code == 400
    assert answer.json()["error"] == "bad_request"
    assert "cannot deal to a table of 2" in answer.json()["message"]
    RuleSet.objects.create(slug="threes", name="Threes only", hand_size_two=27)
    browser = Client()
    browser.force_login(director)
    form = {
        "name": "Threes",
        "ruleset": "threes",
        "turn_seconds": "30",
        "time_bank_seconds": "0",
        "format": "swiss_tables",
        "table_size": "3",
        "min_table": "2",
        "rounds": "2",
        "seeding": "rating",
        "min_rated_games": "0",
        "online": "on",
        "placement_points": "",
    }
    page = browser.post("/events/new/", form)
    assert page.status_code == 200  # the form again, not a redirect to a new event
    assert "cannot deal to a table of 2" in page.content.decode()
    assert not Tournament.objects.filter(name="Threes").exists()


def test_a_start_the_rules_cannot_deal_is_refused_in_words(director: User) -> None:
    """The rule set changed after the event was created (an admin may edit a rule set that
    still deals to some table size): the start refuses, the event stays in check-in, instead of
    failing on the table of 2 it draws for five players."""
    house = RuleSet.objects.create(slug="house", name="House rules", target=50)
    names = ["ann", "bob", "cid", "dan", "eve"]
    event = make_event(director, status="check_in", players=names, **swiss_tables(ruleset=house))
    RuleSet.objects.filter(pk=house.pk).update(hand_size_two=27)
    error = refused("bad_request", 400, event_start, event_id=event.pk, actor=director)
    assert "cannot deal to a table of 2" in error.message
    event.refresh_from_db()
    assert event.status == "check_in" and not Round.objects.filter(tournament=event).exists()
    api = APIClient()
    api.force_authenticate(director)
    answer = api.post(f"/api/events/{event.slug}/start/", {}, format="json")
    assert answer.status_code == 400 and answer.json()["error"] == "bad_request"
    browser = Client()
    browser.force_login(director)
    page = browser.post(f"/events/{event.slug}/start/", follow=True)
    assert page.status_code == 200
    assert "cannot deal to a table of 2" in page.content.decode()
