"""The replay page of a finished game in Chromium: step with the arrow keys and the buttons,
jump to a hand, every hand face up; and no Content-Security-Policy violation on the way."""

from __future__ import annotations

import hashlib
import itertools

import pytest
from playwright.sync_api import expect

from games import record
from games.models import Table, TableEvent
from games.selectors import table_replay
from tests.browser.pages import PageFactory
from tests.browser.test_csp import RECORD_VIOLATIONS, violations
from tests.games.tables import play_greedy, players, started_table

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def fixed_seeds(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every hand's seed from a fixed sequence: the same game on every run."""
    counter = itertools.count()

    def seed() -> str:
        return hashlib.sha256(f"replay-{next(counter)}".encode()).hexdigest()[:32]

    monkeypatch.setattr(record, "new_seed", seed)


def finished_game() -> Table:
    """A finished game of two hands or more (a low target, fixed deals)."""
    users = players("ann", "bob")
    table = started_table(users, overrides={"target": 150})
    play_greedy(table, users, until=lambda t: False)
    table.refresh_from_db()
    assert table.status == Table.Status.FINISHED
    assert TableEvent.objects.filter(table=table, kind="deal").exists(), "one hand only"
    return table


@pytest.mark.usefixtures("fixed_seeds")
def test_stepping_through_a_finished_game(new_page: PageFactory, asgi_server: str) -> None:
    table = finished_game()
    steps = table_replay(table)["steps"]
    total = len(steps)
    page = new_page()
    page.add_init_script(RECORD_VIOLATIONS)
    page.goto(f"{asgi_server}/tables/{table.pk}/")
    page.get_by_role("link", name="Replay the game, move by move").click()
    expect(page.locator("#replay-app")).to_have_attribute("data-ready", "true")
    count = page.locator("#step-count")
    expect(count).to_have_text(f"step 1 of {total}")
    expect(page.locator("#step-move")).to_have_text("hand 1 dealt to ann and bob")
    # Every hand face up: both players' cards are drawn, and the stock's size.
    for player in steps[0]["state"]["players"]:
        cards = page.locator(f"#replay-players li[data-player={player['name']}] .hand .card")
        expect(cards).to_have_count(len(player["hand"]))
    stock = len(steps[0]["state"]["stock"])
    expect(page.locator("#stock-size")).to_have_text(f"{stock} cards")
    expect(page.locator("#step-back")).to_be_disabled()

    page.keyboard.press("ArrowRight")
    expect(count).to_have_text(f"step 2 of {total}")
    expect(page.locator("#step-move")).to_have_text(steps[1]["moves"][0]["text"])
    page.keyboard.press("ArrowRight")
    expect(count).to_have_text(f"step 3 of {total}")
    page.keyboard.press("ArrowLeft")
    expect(count).to_have_text(f"step 2 of {total}")
    page.get_by_role("button", name="Forward").click()
    expect(count).to_have_text(f"step 3 of {total}")
    top = steps[2]["state"]["discard"]
    expect(page.locator("#pile .card")).to_have_count(len(top))

    second = next(i for i, s in enumerate(steps) if s["hand"] == 2)
    page.locator("#hand-select").select_option("2")
    expect(count).to_have_text(f"step {second + 1} of {total}")
    expect(page.locator("#step-move")).to_have_text("hand 2 dealt")
    page.locator("#step-move").click()  # the keys again, away from the selector
    page.keyboard.press("ArrowLeft")
    expect(count).to_have_text(f"step {second} of {total}")
    expect(page.locator("#hand-select")).to_have_value("1")
    assert "hand 1:" in (page.locator("#step-move").text_content() or "")
    assert violations(page) == []


def test_a_game_in_play_has_no_replay_page_yet(new_page: PageFactory, asgi_server: str) -> None:
    table = started_table(players("ann", "bob"))
    page = new_page()
    page.goto(f"{asgi_server}/tables/{table.pk}/replay/")
    expect(page.get_by_text("There is no replay yet")).to_be_visible()
