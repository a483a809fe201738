"""Chat in the browser: two players talk at a table while a spectator's rail stays out of their
sight, HTML typed into a message shows as text, a mute hides an author until unmuted; the event
page's chat, read by a visitor, turned off and moderated by the organizer. Screenshots of each
state at 1280x800 and 390x844 go to /tmp/shots-chat/ (or CHAT_SHOTS_DIR)."""

import os
import re
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from accounts.models import User
from tests.browser.pages import PageFactory, log_in
from tests.games.tables import players, started_table
from tests.tournaments.factories import make_event, staff

pytestmark = pytest.mark.django_db(transaction=True)

DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
SHOTS = Path(os.environ.get("CHAT_SHOTS_DIR", "/tmp/shots-chat"))


def shot(page: Page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"))


def open_page(
    new_page: PageFactory, base: str, user: User | None, path: str, **opts: object
) -> Page:
    page = new_page(reduced_motion="reduce", **opts)
    if user is not None:
        log_in(page, base, user)
    page.goto(base + path)
    return page


def chat_tab(page: Page) -> None:
    page.locator("#tab-chat").click()
    expect(page.locator("#chat")).to_be_visible()


def say(page: Page, text: str, root: str = "#chat") -> None:
    page.locator(f"{root} .chat-form input").fill(text)
    page.locator(f"{root} .chat-form button").click()


def lines(page: Page, root: str = "#chat") -> object:
    return page.locator(f"{root} .chat-line .chat-text")


def test_players_chat_the_rail_stays_hidden_and_html_is_text(
    new_page: PageFactory, asgi_server: str
) -> None:
    ann, bob = players("ann", "bob")
    cid = players("cid")[0]
    table = started_table([ann, bob])
    path = f"/tables/{table.pk}/"
    a = open_page(new_page, asgi_server, ann, path, viewport=DESKTOP)
    b = open_page(new_page, asgi_server, bob, path, viewport=DESKTOP)
    c = open_page(new_page, asgi_server, cid, path, viewport=DESKTOP)
    chat_tab(a)
    expect(a.locator("#chat .chat-rooms")).to_be_hidden()  # a player reads one room
    a.locator("#chat .chat-form input").fill("x" * 12)
    expect(a.locator("#chat .chat-count")).to_have_text("12/300")
    say(a, "<b>html</b> & good luck")
    expect(lines(a)).to_have_text(["<b>html</b> & good luck"])
    expect(b.locator("#chat-unread")).to_have_text("(1)")  # bob is on the move log
    chat_tab(b)
    expect(lines(b)).to_have_text(["<b>html</b> & good luck"])
    expect(b.locator("#chat .chat-line b")).to_have_count(0)  # shown as text, never as HTML
    # The spectator reads the players' room, and talks in the rail.
    chat_tab(c)
    # (Players may show "(1)": ann's message, if it came after this page connected.)
    rooms = c.locator("#chat .chat-rooms button")
    expect(rooms).to_have_text([re.compile(r"^Players( \(1\))?$"), "Spectators"])
    expect(c.locator('#chat .chat-rooms button[aria-pressed="true"]')).to_have_text("Spectators")
    say(c, "bob is bluffing")
    expect(lines(c)).to_have_text(["bob is bluffing"])
    say(b, "thanks")  # sent after the rail's message: it reaches ann, the rail never does
    expect(lines(a)).to_have_text(["<b>html</b> & good luck", "thanks"])
    expect(a.get_by_text("bob is bluffing")).to_have_count(0)
    expect(b.get_by_text("bob is bluffing")).to_have_count(0)
    c.locator("#chat .chat-rooms button", has_text="Players").click()
    expect(lines(c)).to_have_text(["<b>html</b> & good luck", "thanks"])
    expect(c.locator("#chat .chat-note")).to_have_text("Only the players talk here.")
    shot(c, "table-spectator-1280")
    # Ann mutes Bob: his message goes, for her alone, until she unmutes him.
    a.get_by_role("button", name="Mute bob").click()
    expect(lines(a)).to_have_text(["<b>html</b> & good luck"])
    expect(a.locator("#chat .chat-mutes")).to_contain_text("bob")
    expect(lines(c)).to_have_count(2)
    shot(a, "table-player-muted-1280")
    a.get_by_role("button", name="Unmute bob").click()
    expect(lines(a)).to_have_text(["<b>html</b> & good luck", "thanks"])
    shot(a, "table-player-1280")


def test_the_chat_on_a_phone_is_in_the_sheet(new_page: PageFactory, asgi_server: str) -> None:
    ann, bob = players("ann", "bob")
    table = started_table([ann, bob])
    a = open_page(
        new_page, asgi_server, ann, f"/tables/{table.pk}/", viewport=PHONE, has_touch=True
    )
    expect(a.locator("#hand button.card").first).to_be_visible()
    assert a.evaluate("document.scrollingElement.scrollHeight") <= PHONE["height"]
    a.get_by_role("button", name="Moves").tap()
    a.locator("#tab-chat").tap()
    say(a, "hello from a phone")
    expect(lines(a)).to_have_text(["hello from a phone"])
    box = a.locator("#side").bounding_box()
    assert box is not None and box["y"] + box["height"] <= PHONE["height"] + 1
    shot(a, "table-player-390")


def test_the_event_chat(new_page: PageFactory, asgi_server: str) -> None:
    director = staff("director")
    ann = players("ann")[0]
    event = make_event(director, status="registration")
    path = f"/events/{event.slug}/"
    a = open_page(new_page, asgi_server, ann, path, viewport=DESKTOP)
    visitor = open_page(new_page, asgi_server, None, path, viewport=PHONE)
    boss = open_page(new_page, asgi_server, director, path, viewport=DESKTOP)
    root = "#event-chat"
    expect(visitor.locator(f"{root} .chat-note")).to_have_text("Log in to chat.")
    expect(visitor.locator(f"{root} .chat-form")).to_be_hidden()
    say(a, "see you <i>all</i> there", root)
    for page in (a, visitor, boss):
        expect(lines(page, root)).to_have_text(["see you <i>all</i> there"])
    a.locator(f"{root} .chat-lines").scroll_into_view_if_needed()
    shot(a, "event-player-1280")
    visitor.locator(f"{root} .chat-lines").scroll_into_view_if_needed()
    shot(visitor, "event-visitor-390")
    # The organizer turns the chat off: it says so, and nothing can be sent.
    boss.get_by_role("button", name="Turn the chat off").click()
    expect(a.locator(f"{root} .chat-off")).to_have_text(
        "The chat is off: a moderator turned it off."
    )
    expect(a.locator(f"{root} .chat-form input")).to_be_disabled()
    a.locator(f"{root} .chat-lines").scroll_into_view_if_needed()
    shot(a, "event-chat-off-1280")
    # and deletes the message, which goes from every page.
    boss.get_by_role("button", name="Delete ann's message").click()
    for page in (a, visitor, boss):
        expect(lines(page, root)).to_have_count(0)
    boss.get_by_role("button", name="Turn the chat on").click()
    expect(a.locator(f"{root} .chat-form input")).to_be_enabled()
    boss.locator(f"{root} .chat-lines").scroll_into_view_if_needed()
    shot(boss, "event-organizer-1280")
