"""The live lobby (/tables/) in Chromium on the real ASGI server: quick play seats two browsers
at one table, the lists follow other people's tables without a reload, the filters apply as
they change, and every state is photographed at 1280x800 and 390x844 (``/tmp/shots-lobby/``,
or ``SHOTS_DIR``) for a person to look at, and checked not to scroll sideways."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from accounts.models import User
from games import services
from tests.accounts.factories import UserFactory
from tests.browser.pages import PageFactory, log_in
from tests.games.tables import started_table

pytestmark = pytest.mark.django_db(transaction=True)

SHOTS = Path(os.environ.get("SHOTS_DIR", "/tmp/shots-lobby"))
SIZES = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}
TWO = "Standard · 2 players · 30 s"


def lobby(new_page: PageFactory, base: str, user: User | None, size: str = "desktop") -> Page:
    page = new_page(viewport=SIZES[size])
    if user is not None:
        log_in(page, base, user)
    page.goto(base + "/tables/")
    expect(page.locator(".pool").first).to_be_visible()  # the socket's `pools` arrived
    return page


def pool_button(page: Page, label: str = TWO) -> object:
    return page.locator(".pool", has_text=label)


def shot(page: Page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    width = page.viewport_size["width"] if page.viewport_size else 0
    assert page.evaluate("document.documentElement.scrollWidth") <= width, "scrolls sideways"
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)
    page.screenshot(path=str(SHOTS / f"{name}-screen.png"))  # what shows without scrolling


def test_two_players_click_the_same_pool_and_land_at_one_table(
    new_page: PageFactory, asgi_server: str
) -> None:
    ann, bob = UserFactory(username="ann"), UserFactory(username="bob")
    ann_page, bob_page = lobby(new_page, asgi_server, ann), lobby(new_page, asgi_server, bob)
    pool_button(ann_page).click()
    expect(ann_page.locator("#pool-waiting")).to_contain_text(f"Waiting in {TWO}")
    expect(pool_button(bob_page)).to_contain_text("1 waiting")  # pushed to the other page
    pool_button(bob_page).click()
    table = re.compile(r"/tables/(\d+)/$")
    expect(bob_page).to_have_url(table)
    expect(ann_page).to_have_url(bob_page.url)  # taken there by the `matched` frame
    expect(ann_page.locator("#hand")).to_be_visible()


def test_waiting_can_be_cancelled_and_the_counts_follow(
    new_page: PageFactory, asgi_server: str
) -> None:
    ann, bob = UserFactory(username="ann"), UserFactory(username="bob")
    ann_page, bob_page = lobby(new_page, asgi_server, ann), lobby(new_page, asgi_server, bob)
    four = "Standard · 4 players · 30 s"
    pool_button(ann_page, four).click()
    expect(pool_button(bob_page, four)).to_contain_text("1 waiting")
    ann_page.get_by_role("button", name="Cancel").click()
    expect(ann_page.locator("#pool-waiting")).to_be_hidden()
    expect(pool_button(bob_page, four)).to_contain_text("0 waiting")


def test_a_visitor_is_sent_to_log_in(new_page: PageFactory, asgi_server: str) -> None:
    page = lobby(new_page, asgi_server, None)
    pool_button(page).click()
    expect(page).to_have_url(re.compile(r"/accounts/login/\?next=/tables/$"))


def test_the_lists_follow_other_people_without_a_reload(
    new_page: PageFactory, asgi_server: str
) -> None:
    ann, cid, dan = UserFactory(username="ann"), UserFactory(username="cid"), UserFactory()
    page = lobby(new_page, asgi_server, ann)
    page.evaluate("window.noReload = true")
    table = services.table_create(creator=cid, ruleset="standard", seats=2)
    open_list = page.locator(".lobby-table", has_text=f"Table {table.pk}")
    expect(open_list).to_contain_text("1/2 taken: cid")
    expect(open_list.get_by_role("button", name=f"Join table {table.pk}")).to_be_visible()
    services.table_join(table_id=table.pk, user=dan)  # full: it starts
    expect(page.get_by_role("link", name=f"Watch table {table.pk}")).to_be_visible()
    expect(page.get_by_role("button", name=f"Join table {table.pk}")).to_have_count(0)
    assert page.evaluate("window.noReload") is True  # the same document all along


def test_the_filters_apply_as_they_change(new_page: PageFactory, asgi_server: str) -> None:
    ann, bob = UserFactory(username="ann"), UserFactory(username="bob")
    two = services.table_create(creator=ann, ruleset="standard", seats=2)
    four = services.table_create(creator=bob, ruleset="no-jokers", seats=4, rated=False)
    page = lobby(new_page, asgi_server, None)
    expect(page.locator(".lobby-table")).to_have_count(2)
    page.locator("#filter_seats").select_option("4")
    expect(page.locator(".lobby-table")).to_have_count(1)
    expect(page.locator(".lobby-table")).to_contain_text(f"Table {four.pk}")
    expect(page).to_have_url(re.compile(r"\?seats=4$"))
    page.locator("#filter_seats").select_option("")
    page.locator("#filter_rated").select_option("true")
    expect(page.locator(".lobby-table")).to_have_count(1)
    expect(page.locator(".lobby-table")).to_contain_text(f"Table {two.pk}")
    page.reload()  # the address keeps them
    expect(page.locator("#filter_rated")).to_have_value("true")
    expect(page.locator(".lobby-table")).to_have_count(1)


@pytest.mark.parametrize("size", sorted(SIZES))
def test_the_lobby_photographed(new_page: PageFactory, asgi_server: str, size: str) -> None:
    ann = UserFactory(username="ann")
    page = lobby(new_page, asgi_server, ann, size)
    shot(page, f"{size}-empty")
    names = ["bea", "cal", "dee", "eli", "fox", "gil"]
    people = [UserFactory(username=n) for n in names]
    services.table_create(creator=people[0], ruleset="standard", seats=4)
    services.table_create(creator=people[1], ruleset="no-jokers", seats=3, rated=False)
    started_table(people[2:4])
    started_table(people[4:6], ruleset="five-ten-fifteen")
    expect(page.get_by_role("link", name=re.compile("Watch table"))).to_have_count(2)
    expect(page.locator(".lobby-table")).to_have_count(4)
    shot(page, f"{size}-tables")
    pool_button(page, "Standard · 3 players · 30 s").click()
    expect(page.locator("#pool-waiting")).to_be_visible()
    shot(page, f"{size}-waiting")
