"""An event in real browsers, served by the ASGI application: a player finds it, registers,
checks in when check-in opens (the page updates itself), and watches the bracket fill in live;
an organizer keeps typing while the page updates around them."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from accounts.models import User
from tests.accounts.factories import UserFactory
from tests.browser.pages import PageFactory, log_in
from tests.browser.test_table import ARTIFACTS
from tests.tournaments.factories import decide, make_event, names_at, round_of
from tournaments.entries import entry_check_in, entry_register
from tournaments.models import RoundTable, Tournament
from tournaments.services import event_open_check_in, event_start

pytestmark = pytest.mark.django_db(transaction=True)

OTHERS = ["bob", "cid", "dan"]


def shoot(page: Page, name: str) -> None:
    """A screenshot for a person to look at (test-artifacts/ is ignored by git)."""
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


def live(page: Page) -> None:
    """Wait until the page's socket is open, so what happens next reaches it."""
    expect(page.locator("#event-app")).to_have_attribute("data-connected", "true")


def mark(page: Page) -> None:
    """Mark the loaded document: the mark survives live updates, not a reload."""
    page.evaluate("window.__sameDocument = true")


def same_document(page: Page) -> bool:
    return bool(page.evaluate("window.__sameDocument === true"))


def register_and_check_in(page: Page, event: Tournament, director: User) -> None:
    """Find the event from the nav, register, and check in once check-in opens (the button
    appears by itself)."""
    page.get_by_role("link", name="Events").click()
    page.get_by_role("link", name=event.name).click()
    expect(page.locator("#you-message")).to_have_text("Registration is open.")
    page.get_by_role("button", name="Register").click()
    expect(page.locator(".messages")).to_contain_text(f"You are registered for {event.name}.")
    expect(page.locator("#entries")).to_contain_text("ann")
    live(page)
    mark(page)
    event_open_check_in(event_id=event.pk, actor=director)
    check_in = page.get_by_role("button", name="Check in")
    expect(check_in).to_be_visible()
    assert same_document(page)  # the button appeared without a reload
    check_in.click()
    expect(page.locator(".messages")).to_contain_text("You are checked in.")


def test_register_check_in_and_watch_the_bracket(new_page: PageFactory, asgi_server: str) -> None:
    director = UserFactory(username="director", is_staff=True)
    ann = UserFactory(username="ann")
    event = make_event(director, status="registration", players=OTHERS, name="Club night")
    page = new_page()
    log_in(page, asgi_server, ann)
    register_and_check_in(page, event, director)

    live(page)
    mark(page)
    for name in OTHERS:
        entry_check_in(event_id=event.pk, user=User.objects.get(username=name))
    event_start(event_id=event.pk, actor=director)
    matches = page.locator("#bracket .match")
    expect(matches).to_have_count(3)  # two semi-finals and the final
    expect(page.locator("#bracket .match-playing")).to_have_count(2)
    expect(page.locator("#you-message")).to_have_text("You are playing.")
    assert same_document(page)
    shoot(page, "event-bracket-started")

    mine = next(t for t in round_of(event).tables.all() if "ann" in names_at(t))
    other = RoundTable.objects.exclude(pk=mine.pk).get(round=mine.round)
    winner = names_at(other)[0]
    decide(other, director, [winner])
    decided = page.locator(f"#match-{other.key}")
    expect(decided).to_have_attribute("data-state", "done")
    expect(decided.locator(".slot.won")).to_contain_text(winner)
    expect(page.locator("#match-W2-1")).to_contain_text(winner)
    assert same_document(page)
    shoot(page, "event-bracket-one-result")

    page.get_by_role("link", name=f"Watch {mine.key} live").click()
    expect(page).to_have_url(re.compile(rf"/tables/{mine.table_id}/$"))


def test_an_organizer_keeps_typing_while_the_page_updates(
    new_page: PageFactory, asgi_server: str
) -> None:
    director = UserFactory(username="director", is_staff=True)
    event = make_event(director, status="registration", players=["bob"], name="Club night")
    page = new_page()
    log_in(page, asgi_server, director)
    page.goto(asgi_server + event.get_absolute_url())
    live(page)
    mark(page)
    note = page.get_by_role("textbox", name="Announcement")
    note.fill("Doors open at")
    entry_register(event_id=event.pk, user=UserFactory(username="cid"))
    expect(page.locator("#entries")).to_contain_text("cid")  # updated around the organizer
    expect(note).to_have_value("Doors open at")
    expect(note).to_be_focused()
    assert same_document(page)
    note.press("End")
    note.type(" eight")
    shoot(page, "event-organizer")
    page.get_by_role("button", name="Post").click()
    expect(page.locator(".messages")).to_contain_text("Announcement posted.")
    expect(page.locator("#announcements")).to_contain_text("Doors open at eight")
    # The organizer section, left alone while it was in use, now shows the new player too.
    expect(page.locator("#remove-entry")).to_contain_text("cid")
