"""The turn clock on the table page: the countdown and the bank, an organizer's Pause and Resume,
and an absent player's "I'm back"."""

import re
from datetime import timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import Page, expect

from accounts.models import User
from games.clock_services import table_enforce_deadline
from games.models import Table
from games.push import push_table_id
from tests.accounts.factories import UserFactory
from tests.browser.pages import PageFactory, log_in
from tests.browser.test_table import ARTIFACTS
from tests.games.tables import players, started_table, state_of

pytestmark = pytest.mark.django_db(transaction=True)

TURN_CLOCK = re.compile(r"^\d+:\d\d left$")


def shoot(page: Page, name: str) -> None:
    """A screenshot for a person to look at (test-artifacts/ is ignored by git)."""
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


def open_table(page: Page, base: str, user: User, table: Table) -> None:
    log_in(page, base, user)
    page.goto(f"{base}/tables/{table.pk}/")
    expect(page.locator(".player.turn")).to_have_count(1)


def test_staff_pause_and_resume_from_the_table_page(
    new_page: PageFactory, asgi_server: str
) -> None:
    ann, bob = players("ann", "bob")
    table = started_table([ann, bob])
    mover = state_of(table).players[state_of(table).turn or 0].name
    organizer, player = new_page(), new_page()
    open_table(organizer, asgi_server, UserFactory(username="tess", is_staff=True), table)
    open_table(player, asgi_server, ann if mover == "ann" else bob, table)
    clock = organizer.locator(".player.turn .clock")
    expect(clock).to_be_visible()
    expect(clock).to_have_text(TURN_CLOCK)
    expect(player.locator("#pause")).to_have_count(0)  # players get no organizer buttons
    expect(player.locator("#draw-stock")).to_be_enabled()

    organizer.get_by_role("button", name="Pause").click()
    for page in (organizer, player):
        expect(page.locator("#paused")).to_be_visible()
        expect(page.locator("#paused")).to_contain_text("Paused")
        expect(page.locator(".player.turn .clock")).to_have_text(re.compile(r"^paused · \d+:\d\d"))
    expect(player.locator("#draw-stock")).to_be_disabled()
    expect(organizer.get_by_role("button", name="Pause")).to_be_hidden()
    shoot(organizer, "table-paused")
    table.refresh_from_db()
    assert table.paused_at is not None

    organizer.get_by_role("button", name="Resume").click()
    for page in (organizer, player):
        expect(page.locator("#paused")).to_be_hidden()
        expect(page.locator(".player.turn .clock")).to_have_text(TURN_CLOCK)
    expect(player.locator("#draw-stock")).to_be_enabled()
    expect(organizer.get_by_role("button", name="Pause")).to_be_visible()
    table.refresh_from_db()
    assert table.paused_at is None


def test_the_bank_counts_down_once_the_turn_clock_is_over(
    new_page: PageFactory, asgi_server: str
) -> None:
    ann, bob = players("ann", "bob")
    table = started_table([ann, bob], overrides={"time_bank_seconds": 90})
    page = new_page()
    open_table(page, asgi_server, ann, table)
    expect(page.locator(".player .bank-left")).to_have_text(["bank 1:30", "bank 1:30"])
    clock = page.locator(".player.turn .clock")
    expect(clock).to_have_text(TURN_CLOCK)
    expect(clock).not_to_have_class(re.compile(r"\bbank\b"))
    # The turn clock ran out a while ago; the mover's bank is running.
    now = timezone.now()
    over = now - timedelta(seconds=table.turn_seconds + 20)
    Table.objects.filter(pk=table.pk).update(
        turn_started_at=over, deadline=now + timedelta(seconds=70)
    )
    push_table_id(table.pk)
    expect(clock).to_have_text(re.compile(r"^bank \d+:\d\d$"))
    expect(clock).to_have_class(re.compile(r"\bbank\b"))
    shoot(page, "table-bank")


def test_an_absent_player_comes_back_with_the_button(
    new_page: PageFactory, asgi_server: str
) -> None:
    ann, bob = players("ann", "bob")
    table = started_table([ann, bob], overrides={"max_timeouts": 1})
    state = state_of(table)
    mover = state.players[state.turn or 0].name
    Table.objects.filter(pk=table.pk).update(deadline=timezone.now() - timedelta(seconds=1))
    assert table_enforce_deadline(table.pk)
    page = new_page()
    open_table(page, asgi_server, ann if mover == "ann" else bob, table)
    badge = page.locator(f".player[data-player={mover}] .badge.absent")
    expect(badge).to_have_text("absent")
    back = page.get_by_role("button", name="I'm back")
    expect(back).to_be_enabled()  # once the socket is open
    back.click()
    expect(badge).to_have_count(0)
    expect(back).to_be_hidden()
    assert not next(p for p in state_of(table).players if p.name == mover).absent
