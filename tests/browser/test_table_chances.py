"""A rated table's page shows each seated player's chance of finishing first, from the global
ratings before the game: on the seat plates ("32 % to win") and in the game-over panel's table of
rating changes (a Chance column); an unrated table shows none. A page served while the table
waited reads them once the game begins. Screenshots at the desktop and phone sizes go to
/tmp/chances-shots/ (or CHANCES_SHOTS_DIR) for a person to look at."""

import os
import re
from pathlib import Path

import pytest
from playwright.sync_api import Page, Request, expect

from games import finalization, services
from games.models import Table
from ratings.chances import table_chances
from tests.browser.pages import PageFactory
from tests.browser.test_table_play import DESKTOP, PHONE, open_table
from tests.browser.test_table_shots import fits
from tests.games.finished import finished_table
from tests.games.tables import players, started_table
from tests.ratings.rating_rows import pool_of, put_ratings

pytestmark = pytest.mark.django_db(transaction=True)

SHOTS = Path(os.environ.get("CHANCES_SHOTS_DIR", "/tmp/chances-shots"))
SIZES = {"desktop": DESKTOP, "phone": PHONE}
TITLE = "chance of finishing first, from the ratings before the game"


def shoot(page: Page, size: str, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.wait_for_timeout(300)
    page.screenshot(path=str(SHOTS / f"{size}-{name}.png"))
    fits(page, SIZES[size]["height"])


def shown(chance: float) -> str:
    """As the page writes a chance: whole percents, never a 0 or a 100."""
    whole = round(chance * 100)
    return "<1 %" if whole < 1 else ">99 %" if whole > 99 else f"{whole} %"


def expect_plates(page: Page, chances: dict[str, float]) -> None:
    for name, chance in chances.items():
        plate = page.locator(f".player[data-player={name}] .chance")
        expect(plate).to_have_text(f"{shown(chance)} to win")
        expect(plate).to_have_attribute("title", TITLE)


@pytest.mark.parametrize("size", list(SIZES))
def test_a_rated_game_in_play_and_over_shows_each_players_chance(
    new_page: PageFactory, asgi_server: str, size: str
) -> None:
    ann, bob, cid, dee = players("ann", "bob", "cid", "dee")
    global_pool = pool_of("global")
    put_ratings(global_pool, [(ann, 1720.0, 40), (bob, 1480.0, 30), (cid, 1380.0, 6)])
    table = started_table([ann, bob, cid, dee], overrides={"turn_seconds": 600})
    chances = table_chances(table.pk, ["ann", "bob", "cid", "dee"], rated=True)
    assert len({shown(c) for c in chances.values()}) == 4  # four different figures to tell apart
    page = open_table(new_page, asgi_server, ann, table, viewport=SIZES[size])
    expect(page.locator(".player")).to_have_count(4)
    expect_plates(page, chances)
    shoot(page, size, "in-play")

    # A game to its end, then rated: the plates and the Chance column keep the chances the
    # ratings before the game give, though the ratings have moved.
    eve, fay = players("eve", "fay")
    put_ratings(global_pool, [(eve, 1900.0, 40), (fay, 1300.0, 40)])
    over = finished_table([eve, fay])
    before = table_chances(over.pk, ["eve", "fay"], rated=True)
    assert shown(before["eve"]) == "95 %"
    at_end = open_table(new_page, asgi_server, fay, over, viewport=SIZES[size])
    expect(at_end.locator("#result")).to_be_visible()
    assert finalization.run_hook(over.pk, "ratings")
    changes = at_end.locator("#rating-changes")
    expect(changes.locator("thead th")).to_have_text(["Player", "Chance", "Change", "New rating"])
    expect(changes.locator("thead th", has_text="Chance")).to_have_attribute("title", TITLE)
    for name, chance in before.items():
        expect(changes.locator(f"tr[data-player={name}] td").first).to_have_text(shown(chance))
    expect_plates(at_end, before)
    assert table_chances(over.pk, ["eve", "fay"], rated=True) == pytest.approx(before)
    assert changes.evaluate("t => t.scrollWidth <= t.parentElement.clientWidth")
    shoot(at_end, size, "game-over")


def test_a_page_served_while_the_table_waited_shows_them_once_the_game_begins(
    new_page: PageFactory, asgi_server: str
) -> None:
    ann, bob, cid = players("ann", "bob", "cid")
    put_ratings(pool_of("global"), [(ann, 1300.0, 40), (bob, 1650.0, 40)])
    table = services.table_create(creator=ann, ruleset="standard", seats=3)
    page = open_table(new_page, asgi_server, ann, table, viewport=DESKTOP)
    expect(page.locator("#seat-list li")).to_have_count(1)
    services.table_join(table_id=table.pk, user=bob)
    services.table_join(table_id=table.pk, user=cid)  # the table is full: the game begins
    expect(page.locator(".player")).to_have_count(3)
    expect_plates(page, table_chances(table.pk, ["ann", "bob", "cid"], rated=True))
    # Their ratings are read again with them: the plates of those who sat down later have one.
    expect(page.locator(".player[data-player=bob] .rating")).to_have_text("1650")


def test_an_unrated_table_shows_none_and_asks_for_none(
    new_page: PageFactory, asgi_server: str
) -> None:
    gus, hal = players("gus", "hal")
    put_ratings(pool_of("global"), [(gus, 1800.0, 40)])
    table = started_table([gus, hal])
    Table.objects.filter(pk=table.pk).update(rated=False)
    page = open_table(new_page, asgi_server, gus, table, viewport=DESKTOP)
    asked: list[str] = []

    def note(request: Request) -> None:
        if re.search(rf"/tables/{table.pk}/$", request.url):
            asked.append(request.url)

    page.on("request", note)
    expect(page.locator(".player")).to_have_count(2)
    expect(page.locator(".player .rating").first).to_be_visible()
    page.wait_for_timeout(500)
    expect(page.locator(".chance")).to_have_count(0)
    assert asked == []
