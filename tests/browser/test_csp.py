"""The Content-Security-Policy (config/settings/base.py SECURE_CSP) breaks no page: a tour in
Chromium of every kind of page, with the table's and the event's sockets live and the API docs
drawn, records no violation."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.accounts.factories import UserFactory
from tests.browser.pages import PageFactory, log_in
from tests.games.tables import started_table
from tests.tournaments.factories import make_event

pytestmark = pytest.mark.django_db(transaction=True)

# Collects every violation the page reports (the init script runs outside the page's policy).
RECORD_VIOLATIONS = """
window.__csp = [];
document.addEventListener("securitypolicyviolation", (e) => {
  window.__csp.push(`${e.violatedDirective} ${e.blockedURI} ${e.sourceFile}:${e.lineNumber}`);
});
"""


def violations(page: Page) -> list[str]:
    return list(page.evaluate("window.__csp"))


def visit(page: Page, url: str) -> None:
    response = page.goto(url)
    assert response is not None and response.ok, url
    assert "script-src" in (response.headers.get("content-security-policy") or ""), url


def test_the_pages_run_under_the_policy(new_page: PageFactory, asgi_server: str) -> None:
    ann, bob = UserFactory(username="ann"), UserFactory(username="bob", is_staff=True)
    table = started_table([ann, bob])
    event = make_event(bob, status="registration", name="Club night")
    page = new_page()
    page.add_init_script(RECORD_VIOLATIONS)
    seen: dict[str, list[str]] = {}
    for path in ("/", "/accounts/login/", "/accounts/signup/", "/leaderboard/", "/api/docs/"):
        visit(page, asgi_server + path)
        if path == "/api/docs/":  # Swagger UI draws the schema with its inline script
            expect(page.locator(".opblock").first).to_be_visible()
        seen[path] = violations(page)
    log_in(page, asgi_server, ann)
    for path in ("/tables/", f"/tables/{table.pk}/", f"/players/{ann.username}/", "/events/"):
        visit(page, asgi_server + path)
        if path == f"/tables/{table.pk}/":  # the socket's first state drew ann's hand
            expect(page.locator("#hand button.card").first).to_be_visible()
        seen[path] = violations(page)
    visit(page, f"{asgi_server}/events/{event.slug}/")
    expect(page.locator("#event-app")).to_have_attribute("data-connected", "true")
    seen["event"] = violations(page)
    assert all(not found for found in seen.values()), seen
