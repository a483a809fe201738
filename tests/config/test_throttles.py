"""config.throttles: the new accounts one address opens and the registrations and withdrawals
one player makes, limited by one budget whether they come through the API or a page."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.messages import get_messages
from django.test import Client
from rest_framework.test import APIClient

from accounts.models import User
from config.throttles import EntryThrottle, SignUpThrottle
from tests.accounts.factories import UserFactory
from tests.tournaments.factories import make_event, staff
from tournaments.models import Entry

pytestmark = pytest.mark.django_db

PASSWORD = "another sturdy passphrase 7"


def sign_up_page(client: Client, name: str, address: str = "10.0.0.1") -> Any:
    form = {"username": name, "email": "", "password1": PASSWORD, "password2": PASSWORD}
    return client.post("/accounts/signup/", form, REMOTE_ADDR=address)


def sign_up_api(name: str, address: str = "10.0.0.1") -> Any:
    body = {"username": name, "password": PASSWORD}
    return APIClient().post("/api/auth/register/", body, format="json", REMOTE_ADDR=address)


def test_the_sign_up_page_and_the_api_share_one_budget_of_new_accounts_per_address(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(SignUpThrottle, "THROTTLE_RATES", {"signup": "3/hour"})
    assert sign_up_page(Client(), "ann").status_code == 302
    assert sign_up_api("bob").status_code == 201
    assert sign_up_page(Client(), "cy").status_code == 302
    refused = sign_up_page(Client(), "dee")
    assert refused.status_code == 429
    assert 0 < int(refused["Retry-After"]) <= 3600
    assert "Too many new accounts from your address" in refused.content.decode()
    answer = sign_up_api("eve")
    assert answer.status_code == 429
    assert answer.json()["error"] == "throttled" and answer.json()["retry_after"] > 0
    assert not User.objects.filter(username__in=["dee", "eve"]).exists()
    # Another address has its own budget.
    assert sign_up_page(Client(), "dee", address="10.0.0.2").status_code == 302


def test_registrations_and_withdrawals_are_limited_per_player_by_api_and_page(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(EntryThrottle, "THROTTLE_RATES", {"entries": "3/hour"})
    event = make_event(staff(), status="registration")
    ann, bob = UserFactory(username="ann"), UserFactory(username="bob")
    api = APIClient()
    api.force_authenticate(ann)
    page = Client()
    page.force_login(ann)
    base = f"/api/events/{event.slug}/"
    assert api.post(base + "register/").status_code == 200
    assert page.post(f"/events/{event.slug}/withdraw/").status_code == 302
    assert api.post(base + "register/").status_code == 200
    answer = api.post(base + "withdraw/")
    assert answer.status_code == 429 and answer.json()["error"] == "throttled"
    shown = page.post(f"/events/{event.slug}/withdraw/")
    assert shown.status_code == 302
    said = [str(m) for m in get_messages(shown.wsgi_request)]
    assert any("Too many registrations and withdrawals" in m for m in said), said
    assert Entry.objects.get(user=ann).status == "registered"  # neither withdrawal happened
    # Each player has their own budget, whatever address they share.
    api.force_authenticate(bob)
    assert api.post(base + "register/").status_code == 200
