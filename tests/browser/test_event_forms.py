"""A refused organizer form on the event page gives its typed text back with the error."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.accounts.factories import UserFactory
from tests.browser.pages import PageFactory, log_in
from tests.tournaments.factories import make_event, round_of

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_refused_result_keeps_what_was_typed(new_page: PageFactory, asgi_server: str) -> None:
    director = UserFactory(username="director", is_staff=True)
    event = make_event(
        director, status="running", players=["ann", "bob"], name="Club night", online=False
    )
    table = round_of(event).tables.get()
    page = new_page()
    log_in(page, asgi_server, director)
    page.goto(asgi_server + event.get_absolute_url())
    hands = page.locator(f"#hands-{table.pk}")
    typed = "ann 45/5, cid 10/30"  # cid is not at this table: refused
    hands.fill(typed)
    page.get_by_role("button", name=f"Enter the result of table {table.key or table.pk}").click()
    expect(page.locator(".messages .error")).to_be_visible()
    expect(page.locator(f"#hands-{table.pk}")).to_have_value(typed)
    expect(page.locator(f"#hands-{table.pk}")).to_be_focused()
    # Once sent successfully, nothing is put back.
    page.locator(f"#hands-{table.pk}").fill("ann 45/5, bob 10/30")
    page.get_by_role("button", name=f"Enter the result of table {table.key or table.pk}").click()
    expect(page.locator(".messages .success")).to_be_visible()
    expect(page.locator(".messages .error")).to_have_count(0)
