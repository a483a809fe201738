"""The leaderboard and a player's page in a real browser, served by the ASGI application: switch
pools, find a player and land on their row, open their page and see the chart."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from accounts.models import User
from ratings.selectors import Board, board_position, pool_choice
from tests.accounts.factories import ClubFactory
from tests.browser.pages import PageFactory
from tests.browser.test_table import ARTIFACTS
from tests.ratings.rating_rows import many_players, play_rated, pool_of, put_ratings

pytestmark = pytest.mark.django_db(transaction=True)


def shoot(page: Page, name: str) -> None:
    """A screenshot for a person to look at (test-artifacts/ is ignored by git)."""
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


@pytest.fixture
def boards() -> list[User]:
    """120 established players on the global board, four of them in a club's pool, and three
    real games between p075, p076 and p077 (so p075 has a rating history)."""
    users = many_players(120, pool_of())
    ClubFactory(name="Thursday Club", slug="thursday")
    put_ratings(pool_of("club:thursday"), [(users[i], 1600.0 - 10 * i, 25) for i in range(4)])
    for _ in range(3):
        play_rated(users[75:78])
    return users


def rows(page: Page) -> list[str]:
    return page.locator("table.leaderboard tbody th a").all_inner_texts()


def test_switch_pool_find_a_player_and_open_their_chart(
    new_page: PageFactory, asgi_server: str, boards: list[User]
) -> None:
    page = new_page()
    page.goto(asgi_server + "/")
    page.get_by_role("link", name="Leaderboard").click()
    expect(page.get_by_role("heading", level=1)).to_contain_text("Everyone")
    expect(page.locator("table.leaderboard tbody tr")).to_have_count(50)
    assert rows(page)[0] == "p000"

    page.get_by_label("Pool").select_option(label="Thursday Club")
    page.get_by_role("button", name="Show").click()
    expect(page).to_have_url(re.compile(r"pool=club%3Athursday"))
    expect(page.locator("table.leaderboard tbody tr")).to_have_count(4)
    assert rows(page) == ["p000", "p001", "p002", "p003"]

    page.get_by_label("Pool").select_option(label="Everyone")
    page.get_by_role("button", name="Show").click()
    page.get_by_label("Find a player").fill("p075")
    page.get_by_role("button", name="Find").click()
    found = page.locator("tr#found")
    expect(found).to_contain_text("p075")
    expect(found).to_have_attribute("aria-current", "true")
    expect(found).to_be_in_viewport()
    # The page that holds p075's row (three real games moved them from 76th).
    position, _ = board_position(Board(pool_choice(), provisional=False), "p075") or (0, None)
    expect(page.locator(".board-count")).to_contain_text(f"page {position // 50 + 1} of 3")
    expect(page.locator(".pagination [aria-current=page]")).to_have_text(str(position // 50 + 1))
    shoot(page, "leaderboard-found")

    found.get_by_role("link", name="p075").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("p075")
    chart = page.locator("figure.rating-chart svg")
    expect(chart).to_be_visible()
    expect(chart.locator("polyline")).to_have_count(1)
    expect(chart.locator("title")).to_have_text("p075's rating in Everyone")
    expect(page.locator("table.recent-games tbody tr")).to_have_count(3)

    page.get_by_label("Pool").select_option(label="Standard rules")
    page.get_by_role("button", name="Show").click()
    expect(chart.locator("title")).to_have_text("p075's rating in Standard rules")
    shoot(page, "player-chart")


def test_the_csv_downloads_whole_from_the_asgi_server(
    new_page: PageFactory, asgi_server: str, boards: list[User]
) -> None:
    page = new_page()
    page.goto(asgi_server + "/leaderboard/")
    href = page.get_by_role("link", name="Download this board as CSV").get_attribute("href")
    assert href == "/leaderboard.csv?pool=global"
    response = page.request.get(asgi_server + href)
    assert response.ok
    assert response.headers["content-type"] == "text/csv; charset=utf-8"
    lines = response.text().splitlines()
    assert lines[0] == "rank,username,rating,games,provisional,deviation"
    assert len(lines) == 1 + 120
    assert lines[1].startswith("1,p000,2000.0,")


@pytest.mark.parametrize(
    ("size", "viewport"),
    [("desktop", (1280, 800)), ("phone", (390, 844))],
    ids=["desktop", "phone"],
)
def test_a_provisional_rating_shows_its_question_mark_and_deviation(
    new_page: PageFactory,
    asgi_server: str,
    boards: list[User],
    size: str,
    viewport: tuple[int, int],
) -> None:
    newcomer = User.objects.create(username="newcomer")
    put_ratings(pool_of(), [(newcomer, 1990.0, 3, 231.0)])
    width, height = viewport
    page = new_page(viewport={"width": width, "height": height})
    page.goto(asgi_server + "/leaderboard/")
    assert "newcomer" not in rows(page)  # hidden by default
    page.get_by_label("Show provisional players (deviation above 150)").check()
    page.get_by_role("button", name="Show").click()
    row = page.locator("table.leaderboard tbody tr", has_text="newcomer")
    expect(row.locator("td.rating")).to_have_text("1990?")
    expect(row.locator("abbr.provisional")).to_have_attribute(
        "title", "provisional: deviation ±231"
    )
    settled = page.locator("table.leaderboard tbody tr", has_text="p000")
    expect(settled.locator("td.rating")).to_have_text("2000")  # no "?" once settled
    shoot(page, f"leaderboard-provisional-{size}")

    row.get_by_role("link", name="newcomer").click()
    ratings = page.locator("table.player-ratings tbody tr").first
    expect(ratings.locator("td.rating")).to_have_text("1990? ±231")
    shoot(page, f"player-provisional-{size}")
