"""Notifications in the browser, on the real ASGI server: a rematch offer raises the other
player's bell without a reload (on the table page, at phone width too, where the header must
still fit), so does a round's start (its notice leads to the player's table), the
notifications page (each notice leads to its target, "mark all read" clears
the bell), and the email settings saved. No CSP violation on the way. Screenshots go to
/tmp/shots-notify/ (or SHOTS_NOTIFY_DIR)."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from accounts.models import User
from notifications.models import Kind, Notification
from notifications.selectors import email_settings
from notifications.services import notify
from tests.browser.pages import PageFactory, log_in
from tests.browser.test_csp import RECORD_VIOLATIONS, violations
from tests.browser.test_table_play import DESKTOP, PHONE, open_table
from tests.games.finished import finished_table
from tests.games.tables import players
from tests.tournaments.factories import FOUR, make_event, staff
from tournaments.services import event_start

pytestmark = pytest.mark.django_db(transaction=True)

SHOTS = Path(os.environ.get("SHOTS_NOTIFY_DIR", "/tmp/shots-notify"))
SIZES = {"desktop": DESKTOP, "phone": PHONE}


def shoot(page: Page, size: str, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{size}-{name}.png"))


def fits_the_width(page: Page, width: int) -> None:
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    box = page.locator("#bell").bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width


@pytest.mark.parametrize("size", SIZES)
def test_a_rematch_offer_raises_the_other_players_bell_without_a_reload(
    new_page: PageFactory, asgi_server: str, size: str
) -> None:
    gus, hal = players("gus", "hal")
    table = finished_table([gus, hal], rated=False)
    offerer = open_table(new_page, asgi_server, gus, table, viewport=DESKTOP)
    # Gus's socket is up before he offers (a click before it is told "Not connected").
    expect(offerer.locator(".player[data-player=gus] .dot.on")).to_have_count(1)
    page = new_page(reduced_motion="reduce", viewport=SIZES[size])
    page.add_init_script(RECORD_VIOLATIONS)
    log_in(page, asgi_server, hal)
    page.goto(f"{asgi_server}/tables/{table.pk}/")
    bell = page.locator("#bell")
    expect(bell).to_have_attribute("data-connected", "true")
    expect(page.locator("#bell-count")).to_be_hidden()
    expect(page.locator("#result")).to_be_visible()

    offerer.get_by_role("button", name="Rematch").click()
    expect(page.locator("#bell-count")).to_have_text("1")
    expect(bell).to_have_attribute("aria-label", "Notifications, 1 unread")
    expect(bell).to_have_attribute("title", f"gus offers you a rematch of table {table.pk}.")
    expect(offerer.locator("#bell-count")).to_be_hidden()  # not the offerer's
    fits_the_width(page, SIZES[size]["width"])
    if size == "phone":  # the table page keeps its one-screen layout with the bell in it
        assert page.evaluate("document.scrollingElement.scrollHeight") <= PHONE["height"]
    shoot(page, size, "table-bell")
    assert violations(page) == []


@pytest.mark.parametrize("size", SIZES)
def test_the_notifications_page_and_the_settings(
    new_page: PageFactory, asgi_server: str, size: str
) -> None:
    (ann,) = players("ann")
    tell(ann, Kind.TABLE_READY, "Spring cup, Round 1: your table is ready (table 41).", "/rules/")
    tell(ann, Kind.REMATCH_OFFER, "<b>bob</b> offers you a rematch of table 7.", "/leaderboard/")
    page = new_page(viewport=SIZES[size])
    page.add_init_script(RECORD_VIOLATIONS)
    log_in(page, asgi_server, ann)
    expect(page.locator("#bell-count")).to_have_text("2")
    shoot(page, size, "header-bell")
    page.locator("#bell").click()
    expect(page).to_have_url(f"{asgi_server}/notifications/")
    items = page.get_by_role("list", name="Your notifications").locator("li")
    expect(items).to_have_count(2)
    expect(items.first).to_contain_text("<b>bob</b> offers you a rematch of table 7.")  # as text
    expect(page.locator(".notice-item.unread")).to_have_count(2)
    fits_the_width(page, SIZES[size]["width"])
    shoot(page, size, "notifications")

    # While the page is open, a new one raises the bell live.
    tell(ann, Kind.STARTS_SOON, "Spring cup starts in 9 minutes.", "/events/")
    expect(page.locator("#bell-count")).to_have_text("3")
    page.get_by_role("link", name="Spring cup, Round 1: your table is ready (table 41).").click()
    expect(page).to_have_url(f"{asgi_server}/rules/")
    page.go_back()
    page.reload()
    page.get_by_role("button", name="Mark all read").click()
    expect(page.locator("#notices-unread")).to_have_text("All read")
    expect(page.locator(".notice-item.unread")).to_have_count(0)
    expect(page.locator("#bell-count")).to_be_hidden()
    shoot(page, size, "notifications-read")

    page.get_by_role("link", name="Email settings").click()
    page.get_by_label("A rematch offer").uncheck()
    page.get_by_label("Check-in has opened").uncheck()
    page.get_by_role("button", name="Save").click()
    expect(page.locator(".messages")).to_contain_text("Saved: your email settings.")
    expect(page.get_by_label("A rematch offer")).not_to_be_checked()
    expect(page.get_by_label("Your event's table is ready")).to_be_checked()
    assert email_settings(ann) == {
        **dict.fromkeys(Kind.values, True),
        "rematch_offer": False,
        "check_in_open": False,
    }
    fits_the_width(page, SIZES[size]["width"])
    shoot(page, size, "settings")
    assert violations(page) == []


def tell(user: User, kind: Kind, text: str, link: str) -> None:
    notify(user=user, kind=kind, text=text, link=link, key=f"{kind}:{text}")


def test_a_round_start_raises_the_bell_and_the_notice_leads_to_the_table(
    new_page: PageFactory, asgi_server: str
) -> None:
    director = staff()
    event = make_event(director, status="check_in", players=FOUR, name="Spring cup")
    page = new_page(viewport=DESKTOP)
    log_in(page, asgi_server, User.objects.get(username="ann"))
    page.goto(f"{asgi_server}/events/{event.slug}/")
    expect(page.locator("#bell")).to_have_attribute("data-connected", "true")
    expect(page.locator("#bell-count")).to_have_text("1")  # check-in opened

    event_start(event_id=event.pk, actor=director)  # round 1's tables open
    expect(page.locator("#bell-count")).to_have_text("2")
    table = Notification.objects.get(user__username="ann", kind=Kind.TABLE_READY).link
    page.locator("#bell").click()
    page.get_by_role("link", name=re.compile(r"Spring cup, .*: your table is ready")).click()
    expect(page).to_have_url(asgi_server + table)
    expect(page.locator("#hand button.card").first).to_be_visible()  # ann's seat at her table
