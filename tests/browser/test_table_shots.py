"""Every moment of the table page at the desktop size (1280x800) and the phone's (390x844),
photographed for a person to look at (``/tmp/shots-D/``, or ``SHOTS_DIR``), and each checked to
fit its screen: nothing scrolls the page, and the hand and the Discard button are on screen."""

import json
import os
import re
from datetime import timedelta
from pathlib import Path

import pytest
from django.utils import timezone
from playwright.sync_api import Page, WebSocketRoute, expect

from accounts.models import User
from games import clock_services, services
from games.models import Table
from games.push import push_table_id
from tests.accounts.factories import UserFactory
from tests.browser.pages import PageFactory, log_in
from tests.games.tables import play_greedy, players, started_table, state_of

pytestmark = pytest.mark.django_db(transaction=True)

SHOTS = Path(os.environ.get("SHOTS_DIR", "/tmp/shots-D"))
SIZES = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}


def fits(page: Page, height: int) -> None:
    """The page does not scroll, and what a turn needs is inside the screen."""
    scroll = page.evaluate("document.scrollingElement.scrollHeight")
    assert scroll <= height, f"the page scrolls: {scroll} > {height}"
    width = page.viewport_size["width"] if page.viewport_size else 0
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    for selector in ("#hand", "#discard"):
        box = page.locator(selector).bounding_box()
        if box is None:  # not shown to this reader
            continue
        assert box["y"] >= 0 and box["y"] + box["height"] <= height, (selector, box)
        assert box["x"] >= 0 and box["x"] + box["width"] <= width, (selector, box)


def shoot(page: Page, size: str, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.wait_for_timeout(300)  # the transitions end
    page.screenshot(path=str(SHOTS / f"{size}-{name}.png"))
    fits(page, SIZES[size]["height"])


def open_as(new_page: PageFactory, base: str, user: User | None, table: Table, size: str) -> Page:
    page = new_page(viewport=SIZES[size], reduced_motion="reduce")
    if user is not None:
        log_in(page, base, user)
    page.goto(f"{base}/tables/{table.pk}/")
    return page


def mover_of(table: Table, users: list[User]) -> User:
    state = state_of(table)
    name = state.players[state.turn or 0].name
    return next(u for u in users if u.username == name)


@pytest.mark.parametrize("size", list(SIZES))
def test_every_moment_fits_and_is_photographed(
    new_page: PageFactory, asgi_server: str, size: str
) -> None:
    base = asgi_server
    users = players("ann", "bob", "cid", "dee")
    waiting = services.table_create(creator=users[0], ruleset="standard", seats=3)
    services.table_join(table_id=waiting.pk, user=users[1])
    page = open_as(new_page, base, users[0], waiting, size)
    expect(page.locator("#seat-list li")).to_have_count(2)
    shoot(page, size, "waiting")

    table = started_table(users, overrides={"turn_seconds": 120})
    mover = mover_of(table, users)
    other = next(u for u in users if u != mover)
    at_mover = open_as(new_page, base, mover, table, size)
    draw = at_mover.locator("#draw-stock")
    expect(draw).to_be_enabled()
    shoot(at_mover, size, "your-turn-draw")

    draw.click()
    hand = at_mover.locator("#hand button.card")
    expect(hand).to_have_count(8)
    expect(at_mover.locator("#hand .card.drawn")).to_have_count(1)
    hand.nth(0).click()
    hand.nth(3).click()
    expect(at_mover.locator("#why")).not_to_be_empty()
    shoot(at_mover, size, "play-selection")

    at_other = open_as(new_page, base, other, table, size)
    expect(at_other.locator(".player.turn")).to_have_attribute("data-player", mover.username)
    shoot(at_other, size, "opponent-turn")

    spectator = open_as(new_page, base, None, table, size)
    expect(spectator.locator(".player")).to_have_count(4)
    shoot(spectator, size, "spectator")

    # Little time left: the mover's deadline is seconds away.
    Table.objects.filter(pk=table.pk).update(deadline=timezone.now() + timedelta(seconds=8))
    push_table_id(table.pk)
    expect(at_mover.locator(".clockbox.low")).to_have_count(1)
    expect(at_mover.locator("#notice")).to_contain_text("Little time left")
    shoot(at_mover, size, "little-time")
    Table.objects.filter(pk=table.pk).update(deadline=timezone.now() + timedelta(seconds=100))

    at_mover.keyboard.press("?")
    expect(at_mover.locator("#help")).to_be_visible()
    shoot(at_mover, size, "help")
    at_mover.keyboard.press("Escape")
    expect(at_mover.locator("#help")).to_be_hidden()

    staff = UserFactory(username="tess", is_staff=True)
    clock_services.table_pause(table_id=table.pk, user=staff)
    expect(at_other.locator("#paused")).to_be_visible()
    shoot(at_other, size, "paused")
    clock_services.table_resume(table_id=table.pk, user=staff)

    # Absent: the server played the mover's turn when their time ran out.
    absent = started_table(players("eve", "fay"), overrides={"max_timeouts": 1})
    late = mover_of(absent, list(User.objects.filter(username__in=["eve", "fay"])))
    Table.objects.filter(pk=absent.pk).update(deadline=timezone.now() - timedelta(seconds=1))
    assert clock_services.table_enforce_deadline(absent.pk)
    at_late = open_as(new_page, base, late, absent, size)
    expect(at_late.get_by_role("button", name="I'm back")).to_be_visible()
    shoot(at_late, size, "absent")


@pytest.mark.parametrize("size", list(SIZES))
def test_a_refused_action_and_the_game_over(
    new_page: PageFactory, asgi_server: str, size: str
) -> None:
    users = players("ann", "bob", "cid")
    table = started_table(users)
    page = new_page(viewport=SIZES[size], reduced_motion="reduce")
    sockets: list[WebSocketRoute] = []

    def through(ws: WebSocketRoute) -> None:
        ws.connect_to_server()
        sockets.append(ws)

    page.route_web_socket(re.compile(r"/ws/tables/\d+/(\?chat=1)?$"), through)
    log_in(page, asgi_server, users[1])
    page.goto(f"{asgi_server}/tables/{table.pk}/")
    page.locator("#hand button.card").nth(2).click()
    error = {
        "type": "error",
        "client_id": None,
        "error": "not_your_turn",
        "message": "It is not your turn.",
    }
    sockets[0].send(json.dumps(error))
    expect(page.locator("#toast")).to_have_text("It is not your turn.")
    expect(page.locator("#hand button.card[aria-pressed=true]")).to_have_count(1)  # kept
    shoot(page, size, "refused")

    over = started_table(
        players("gus", "hal", "ivy"), overrides={"target": 60, "turn_seconds": 600}
    )
    play_greedy(
        over,
        list(User.objects.filter(username__in=["gus", "hal", "ivy"])),
        until=lambda t: t.status == Table.Status.FINISHED,
    )
    at_end = new_page(viewport=SIZES[size], reduced_motion="reduce")
    log_in(at_end, asgi_server, User.objects.get(username="gus"))
    at_end.goto(f"{asgi_server}/tables/{over.pk}/")
    expect(at_end.locator("#result")).to_be_visible()
    expect(at_end.locator("#result a[href$='/replay/']")).to_be_visible()
    shoot(at_end, size, "game-over")


def test_eight_seats_round_the_felt(new_page: PageFactory, asgi_server: str) -> None:
    users = players(*[f"p{i}" for i in range(1, 9)])
    table = started_table(users)
    page = open_as(new_page, asgi_server, users[0], table, "desktop")
    plates = page.locator(".player")
    expect(plates).to_have_count(8)
    expect(page.locator(".player[data-player=p1] .dot.on")).to_have_count(1)  # the socket's frame
    shoot(page, "desktop", "eight-seats")
    boxes = [plates.nth(i).bounding_box() for i in range(8)]
    assert all(b is not None for b in boxes)
    # No two plates overlap, and every one is inside the screen.
    for i, a in enumerate(boxes):
        assert a is not None and a["x"] >= 0 and a["x"] + a["width"] <= 1280
        for b in boxes[i + 1 :]:
            assert b is not None
            apart = (
                a["x"] + a["width"] <= b["x"]
                or b["x"] + b["width"] <= a["x"]
                or a["y"] + a["height"] <= b["y"]
                or b["y"] + b["height"] <= a["y"]
            )
            assert apart, (a, b)


@pytest.mark.parametrize("size", list(SIZES))
def test_a_hand_in_full_swing(new_page: PageFactory, asgi_server: str, size: str) -> None:
    users = players("ann", "bob", "cid", "dee")
    table = started_table(users, overrides={"turn_seconds": 300})

    def swinging(t: Table) -> bool:
        state = t.state or {}
        return len(state.get("melds", [])) >= 3 and len(state.get("discard", [])) >= 3

    play_greedy(table, users, until=lambda t: swinging(t) or t.status == Table.Status.FINISHED)
    table.refresh_from_db()
    mover = mover_of(table, users)
    page = open_as(new_page, asgi_server, mover, table, size)
    expect(page.locator("#melds .meld").first).to_be_visible()
    melds = state_of(table).melds
    heads = page.locator("#melds .meld-head")
    expect(heads).to_have_count(len(melds))
    expect(heads.first).to_have_text(re.compile(rf"^#{melds[0].id} (set|run)$"))
    # Each meld card names who laid it, for the eye (title) and for a screen reader.
    card = page.locator("#melds .meld .card").first
    expect(card).to_have_attribute("aria-label", re.compile(r", laid by (ann|bob|cid|dee)$"))
    if page.locator("#take").is_enabled():
        # What Take would take lights up: the card hovered and every card above it.
        page.locator("#pile button.card").first.hover(position={"x": 8, "y": 30})
    shoot(page, size, "mid-game")
