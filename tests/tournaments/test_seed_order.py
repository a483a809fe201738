"""Manual seeding (``tournaments.seed_order``): before the start the organizers see the order
the start would seed and reorder it; the start seeds by it; after the start it is refused."""

from __future__ import annotations

import pytest
from django.test import Client
from rest_framework.test import APIClient

from accounts.models import User
from tests.tournaments.factories import (
    FOUR,
    audit_actions,
    entry_of,
    make_event,
    refused,
    started_event,
)
from tournaments.entries import entry_register
from tournaments.models import AuditEntry, Tournament
from tournaments.seed_order import event_seed_order, seeding_preview
from tournaments.services import event_start

pytestmark = pytest.mark.django_db


def names(event: Tournament) -> list[str]:
    event.refresh_from_db()
    return [row["username"] for row in seeding_preview(event)]


def ids(event: Tournament, usernames: list[str]) -> list[int]:
    return [entry_of(event, name).pk for name in usernames]


def test_the_preview_is_the_order_the_start_seeds(director: User) -> None:
    event = make_event(director, status="check_in", players=FOUR)
    assert names(event) == FOUR  # equal ratings: by entry, as the start seeds them
    event_seed_order(
        event_id=event.pk, actor=director, order=ids(event, ["dan", "bob", "ann", "cid"])
    )
    event.refresh_from_db()
    assert event.seeding == "hand"
    assert names(event) == ["dan", "bob", "ann", "cid"]
    event_start(event_id=event.pk, actor=director)
    seeds = {name: entry_of(event, name).seed for name in FOUR}
    assert seeds == {"dan": 1, "bob": 2, "ann": 3, "cid": 4}


def test_the_order_is_audited_with_the_names(director: User) -> None:
    event = make_event(director, status="registration", players=FOUR)
    event_seed_order(event_id=event.pk, actor=director, order=ids(event, FOUR[::-1]))
    assert audit_actions(event)[-1] == "seed"
    row = AuditEntry.objects.filter(tournament=event, action="seed").get()
    assert row.details == {"order": "dan, cid, bob, ann"} and row.actor == director


def test_a_late_registration_is_seeded_after_the_hand_seeds(director: User) -> None:
    event = make_event(director, status="registration", players=["ann", "bob"])
    event_seed_order(event_id=event.pk, actor=director, order=ids(event, ["bob", "ann"]))
    entry_register(event_id=event.pk, user=User.objects.create(username="cid"))
    assert names(event) == ["bob", "ann", "cid"]


def test_refusals(director: User) -> None:
    event = make_event(director, status="registration", players=FOUR)
    everyone = ids(event, FOUR)
    refused(
        "bad_request", 400, event_seed_order, event_id=event.pk, actor=director, order=everyone[:3]
    )
    refused(
        "bad_request",
        400,
        event_seed_order,
        event_id=event.pk,
        actor=director,
        order=[*everyone, everyone[0]],
    )
    player = User.objects.get(username="ann")
    refused("forbidden", 403, event_seed_order, event_id=event.pk, actor=player, order=everyone)
    running = started_event(director, ["eve", "fay"], name="Later")
    error = refused(
        "wrong_status", 409, event_seed_order, event_id=running.pk, actor=director, order=[]
    )
    assert error.message == "the seeding is fixed once the event has started (it is Running)"


def test_the_api_reads_and_sets_the_seeding(director: User) -> None:
    event = make_event(director, status="registration", players=FOUR)
    url = f"/api/events/{event.slug}/seeding/"
    assert [r["username"] for r in APIClient().get(url).json()] == FOUR
    client = APIClient()
    client.force_authenticate(director)
    answer = client.post(url, {"order": ids(event, FOUR[::-1])}, format="json")
    assert answer.status_code == 200
    assert [(r["position"], r["username"]) for r in answer.json()] == list(
        enumerate(FOUR[::-1], start=1)
    )
    running = started_event(director, ["eve", "fay"], name="Later")
    late = client.post(f"/api/events/{running.slug}/seeding/", {"order": []}, format="json")
    assert late.status_code == 409 and late.json()["error"] == "wrong_status"


def test_the_page_moves_a_player_up_and_refuses_after_the_start(director: User) -> None:
    event = make_event(director, status="check_in", players=FOUR)
    client = Client()
    client.force_login(director)
    html = client.get(event.get_absolute_url()).content.decode()
    assert 'id="seeding"' in html and 'aria-label="Move cid up"' in html
    cid = entry_of(event, "cid").pk
    answer = client.post(f"/events/{event.slug}/seed/", {"entry": cid, "move": "up"}, follow=True)
    assert "cid is seed 2 now." in answer.content.decode()
    assert names(event) == ["ann", "cid", "bob", "dan"]
    assert 'id="seeding"' not in Client().get(event.get_absolute_url()).content.decode()
    event_start(event_id=event.pk, actor=director)
    answer = client.post(f"/events/{event.slug}/seed/", {"entry": cid, "move": "up"}, follow=True)
    html = answer.content.decode()
    assert "The seeding is fixed once the event has started (it is Running)" in html
    assert 'id="seeding"' not in html
