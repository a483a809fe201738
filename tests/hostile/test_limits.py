"""Input out of range is refused, never a 500: a whole number past any column (10**20), text
past the API's length, each through the API and the page that takes the same thing. The
limits are the services' (one rule, both doors); this probes the doors."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from rest_framework.test import APIClient

from accounts.models import User
from games import services as table_services
from tests.accounts.factories import UserFactory
from tests.tournaments.factories import FOUR, make_event, round_of, staff, started_event
from tournaments.models import Announcement, Tournament

pytestmark = pytest.mark.django_db

HUGE = 10**20


def api(user: User) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def page(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


EVENT = {"name": "Club night", "format": "swiss"}
EVENT_NUMBERS = [
    {"max_players": HUGE},
    {"min_rated_games": HUGE},
    {"turn_seconds": HUGE},
    {"time_bank_seconds": HUGE},
    {"table_size": HUGE},
    {"rounds": HUGE},
    {"overrides": {"target": HUGE}},
    {"overrides": {"max_timeouts": HUGE}},
    {"options": {"min_table": HUGE}},
    {"options": {"advance": HUGE}, "format": "multi_table_elimination"},
    {"min_rating": 1e308, "max_rating": -1e308},
]


@pytest.mark.parametrize("fields", EVENT_NUMBERS, ids=lambda f: next(iter(f)))
def test_an_event_with_a_number_out_of_range_is_a_bad_request(fields: dict[str, Any]) -> None:
    answer = api(staff()).post("/api/events/", {**EVENT, **fields}, format="json")
    assert answer.status_code in (201, 400), answer.content
    if answer.status_code == 400:
        assert answer.json()["error"] == "bad_request"
    assert Tournament.objects.filter(max_players__gt=10**6).count() == 0


@pytest.mark.parametrize(
    "fields",
    [{"max_players": HUGE}, {"min_rated_games": HUGE}, {"target": HUGE}, {"advance": HUGE}],
    ids=lambda f: next(iter(f)),
)
def test_the_event_form_refuses_a_number_out_of_range(fields: dict[str, Any]) -> None:
    form = {**EVENT, "turn_seconds": 60, "time_bank_seconds": 0, "min_rated_games": 0, **fields}
    answer = page(staff()).post("/events/new/", form)
    assert answer.status_code == 200  # the form again, with its errors
    assert not Tournament.objects.exists()


def test_tables_and_their_calls_refuse_huge_numbers() -> None:
    ann = UserFactory()
    client = api(ann)
    for body in (
        {"seats": HUGE},
        {"turn_seconds": HUGE},
        {"time_bank_seconds": HUGE},
        {"between_hands_seconds": HUGE},
        {"rules": {"target": HUGE}},
        {"rules": {"max_timeouts": HUGE}},
    ):
        answer = client.post("/api/tables/", body, format="json")
        assert answer.status_code == 400, (body, answer.content)
    for path in ("", "join/", "leave/", "start/", "log/", "moves/", "replay/"):
        method = client.get if path in ("", "log/", "moves/", "replay/") else client.post
        answer = method(f"/api/tables/{HUGE}/{path}")
        assert answer.status_code == 404, (path, answer.content)
    table = table_services.table_create(creator=ann, ruleset="standard", seats=2)
    action = {"action": {"type": "draw", "source": "stock"}, "version": HUGE}
    assert client.post(f"/api/tables/{table.pk}/actions/", action, format="json").status_code in (
        400,
        409,
    )
    assert client.get(f"/api/tables/?seats={HUGE}").status_code == 400
    assert page(ann).get(f"/tables/{HUGE}/").status_code == 404


def test_organizer_calls_refuse_huge_ids_and_places() -> None:
    director = staff()
    event = started_event(director, FOUR)
    table = round_of(event).tables.first()
    assert table is not None
    client = api(director)
    base = f"/api/events/{event.slug}/"
    assert client.post(base + "seeding/", {"order": [HUGE]}, format="json").status_code in (
        400,
        409,
    )
    answer = client.post(
        base + f"tables/{table.pk}/adjudicate/",
        {"places": dict.fromkeys(FOUR[:2], HUGE), "reason": "stuck"},
        format="json",
    )
    assert answer.status_code in (400, 409), answer.content
    assert (
        client.post(base + f"entries/{HUGE}/withdraw/", {"reason": "x"}, format="json").status_code
        == 404
    )
    assert client.post(base + f"tables/{HUGE}/adjudicate/", {}, format="json").status_code in (
        400,
        404,
    )
    pages = page(director)
    assert (
        pages.post(
            f"/events/{event.slug}/remove-player/", {"entry": str(HUGE), "reason": "x"}
        ).status_code
        == 302
    )
    assert (
        pages.post(f"/events/{event.slug}/seed/", {"entry": str(HUGE), "move": "up"}).status_code
        == 302
    )


def test_an_announcement_past_the_apis_length_is_refused_by_the_page_too() -> None:
    director = staff()
    event = make_event(director, status="registration")
    long = "x" * 2001
    answer = api(director).post(
        f"/api/events/{event.slug}/announce/", {"text": long}, format="json"
    )
    assert answer.status_code == 400
    assert page(director).post(f"/events/{event.slug}/announce/", {"text": long}).status_code == 302
    assert not Announcement.objects.exists()
    page(director).post(f"/events/{event.slug}/announce/", {"text": "x" * 2000})
    assert Announcement.objects.count() == 1


def test_query_numbers_out_of_range_are_bad_requests() -> None:
    client = APIClient()
    for url in (
        f"/api/leaderboard/?limit={HUGE}",
        f"/api/leaderboard/?offset={HUGE}",
        f"/api/leaderboard/?min_games={HUGE}",
        f"/leaderboard/?page={HUGE}",
    ):
        answer = client.get(url)
        assert answer.status_code in (200, 400), (url, answer.status_code)


def test_page_fields_read_as_numbers_refuse_other_digits_and_huge_ones() -> None:
    """``str.isdigit`` passes "²", which ``int`` refuses; ``int`` refuses 5,000 digits too."""
    director = staff()
    event = started_event(director, FOUR)
    table = round_of(event).tables.first()
    assert table is not None
    pages = page(director)
    for raw in ("²", "9" * 5000):
        for action, form in (
            ("remove-player", {"entry": raw, "reason": "x"}),
            ("seed", {"entry": raw, "move": "up"}),
        ):
            assert pages.post(f"/events/{event.slug}/{action}/", form).status_code == 302
        places = {f"place-{i}": raw for i in range(2)}
        url = f"/events/{event.slug}/tables/{table.pk}/adjudicate/"
        assert pages.post(url, {**places, "reason": "x"}).status_code == 302
        hands = f"ann {raw}/0, bob 0/{raw}"
        url = f"/events/{event.slug}/tables/{table.pk}/result/"
        assert pages.post(url, {"hands": hands}).status_code == 302
