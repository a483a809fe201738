"""An event that cannot stall (issue 20, item 5), part one: its rules are checked against every
table size it may draw (2 to its table size: fewer than ``min_table`` once players leave), when
it is created (service, API, page form, admin) and again at its start, which refuses in words
instead of failing on the first table it cannot deal.

Part two: a finalization hook that keeps failing stops after a bound and the organizers are
told and see it on the event page, where they retry it (the bound itself:
``tests/games/test_finalization_failures.py``)."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client, override_settings
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.models import Club, ClubMembership, User
from games import finalization
from games.models import FinalizerFailure, RuleSet
from games.timers import RUN_FINALIZER
from notifications.models import Notification
from tests.games.clocks import record_sends
from tests.tournaments.factories import (
    audit_actions,
    decide,
    entry_of,
    make_event,
    names_at,
    refused,
    round_of,
    started_event,
    users,
)
from tournaments.models import Round, Tournament
from tournaments.organizer import entry_remove
from tournaments.services import event_create, event_start
from tournaments.stalls import tell_organizers

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


# --- Part two: a hook that keeps failing stops, and the organizers hear of it -------------------


@override_settings(FINALIZE_MAX_ATTEMPTS=1)
def test_a_round_that_cannot_open_stalls_in_view_and_is_retried_once_fixed(
    director: User,
    club: Club,
    monkeypatch: pytest.MonkeyPatch,
    django_capture_on_commit_callbacks: Any,
) -> None:
    """The issue's event: Swiss tables of 3 (smallest 2); the rule set is changed after the
    start so that it cannot deal to two, and a player withdraws, so round 2 needs a table of 2.
    The last game of round 1 cannot be recorded (its hook fails to open round 2)."""
    sends = record_sends(monkeypatch)
    house = RuleSet.objects.create(slug="house", name="House rules", target=50)
    (keeper,) = users("keeper")
    ClubMembership.objects.create(club=club, user=keeper, role="admin")
    names = ["ann", "bob", "cid", "dan", "eve", "fay"]
    event = started_event(director, names, club=club, **swiss_tables(ruleset=house))
    first, last = round_of(event).tables.order_by("index")
    RuleSet.objects.filter(pk=house.pk).update(hand_size_two=27)
    fay = entry_of(event, names_at(last)[0])
    entry_remove(event_id=event.pk, entry_id=fay.pk, actor=director, disqualify=False, reason="ill")
    decide(first, director)
    decide(last, director)  # its hooks run: the event's fails at once, and is given up
    failure = FinalizerFailure.objects.get(table_id=last.table_id)
    assert (failure.hook, failure.attempts, failure.given_up) == ("tournaments", 1, True)
    assert "cannot deal" in failure.error or "27 cards" in failure.error
    last.refresh_from_db()
    assert last.places is None and round_of(event).status == "running"
    told = Notification.objects.filter(kind="event_stalled").order_by("user__username")
    assert [n.user.username for n in told] == ["director", "keeper"]
    assert told[0].link == f"/events/{event.slug}/" and "Round 1, table" in told[0].text
    assert audit_actions(event)[-1] == "stalled"
    browser = Client()
    browser.force_login(director)
    page = browser.get(f"/events/{event.slug}/").content.decode()
    assert "Results that could not be recorded" in page and "Retry table" in page
    player = Client()
    player.force_login(User.objects.get(username="ann"))
    assert "could not be recorded" not in player.get(f"/events/{event.slug}/").content.decode()
    # Fixed; the organizer retries from the page: the hook is sent again and runs.
    RuleSet.objects.filter(pk=house.pk).update(hand_size_two=13)
    sends.clear()
    with django_capture_on_commit_callbacks(execute=True):
        done = browser.post(f"/events/{event.slug}/tables/{last.pk}/retry/", follow=True)
    assert "is being recorded again" in done.content.decode()
    assert [s.args for s in sends.named(RUN_FINALIZER)] == [(last.table_id, "tournaments")]
    assert finalization.run_hook(last.table_id, "tournaments") is True
    assert not FinalizerFailure.objects.exists()
    second = round_of(event, 2)
    assert second.status == "running"
    assert sorted(len(t.players) for t in second.tables.all()) == [2, 3]
    assert "retry" in audit_actions(event)
    api = APIClient()
    api.force_authenticate(director)
    again = api.post(f"/api/events/{event.slug}/tables/{last.pk}/retry/", {}, format="json")
    assert again.status_code == 409 and again.json()["error"] == "wrong_status"


def test_a_long_reason_still_fits_the_notice(director: User, club: Club) -> None:
    event = started_event(director, ["ann", "bob"], club=club)
    table = round_of(event).tables.get()
    failure = FinalizerFailure.objects.create(
        table_id=table.table_id,
        hook="ratings",
        attempts=5,
        error="x" * 500,
        failed_at=timezone.now(),
    )
    tell_organizers(failure)
    (notice,) = Notification.objects.filter(kind="event_stalled")
    assert notice.user == director and len(notice.text) <= 300
    assert notice.text.endswith("Fix it, then retry it on the event page.")
