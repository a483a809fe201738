"""The table page against the real server's data, end to end (no routed or injected frames):
the move log as each reader is told it, the break between hands with the real last hand and the
clock held, the rematch answered from two pages, and a rated game's real rating changes.
Screenshots of the break, the game over and the rematch go to /tmp/shots-E/ (or SHOTS_E_DIR)."""

import os
import re
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from games import finalization
from games.models import Table
from games.moves import card_phrase
from games.selectors import table_answer
from ratings.glicko import win_chances
from tests.browser.pages import PageFactory
from tests.browser.test_table_play import DESKTOP, PHONE, open_table
from tests.games.finished import finished_table
from tests.games.tables import play_simple, players, started_table, to_move
from tests.ratings.rating_rows import pool_of, put_ratings

pytestmark = pytest.mark.django_db(transaction=True)

SHOTS = Path(os.environ.get("SHOTS_E_DIR", "/tmp/shots-E"))
SIZES = {"desktop": DESKTOP, "phone": PHONE}
# Two players holding 20 cards each leave 11 in the stock: a hand of draws and discards alone
# ends within a dozen turns, the stock run out.
SMALL_STOCK = {"hand_size_two": 20, "turn_seconds": 600}


def shoot(page: Page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    width = page.viewport_size["width"] if page.viewport_size else 0
    size = "phone" if width < 600 else "desktop"
    page.screenshot(path=str(SHOTS / f"{size}-{name}.png"))


def signed(n: int) -> str:
    return f"+{n}" if n > 0 else str(n)


def clock_text(page: Page) -> str:
    return page.locator(".player.turn .clock").inner_text()


def log_lines(page: Page) -> Any:
    return page.get_by_role("log", name="Moves").locator("li")


def answer(table: Table) -> Any:
    table.refresh_from_db()
    return table_answer(table, None)


def test_the_move_log_tells_each_reader_a_turn_in_words(
    new_page: PageFactory, asgi_server: str
) -> None:
    ann, bob = players("ann", "bob")
    table = started_table([ann, bob], overrides={"turn_seconds": 600})
    mover = to_move(table, [ann, bob])
    other = bob if mover == ann else ann
    pages = {u: open_table(new_page, asgi_server, u, table, viewport=DESKTOP) for u in (ann, bob)}
    watcher = open_table(new_page, asgi_server, None, table, viewport=DESKTOP)
    dealt = {
        mover: f"hand 1 dealt to {'you and bob' if mover == ann else 'ann and you'}",
        other: f"hand 1 dealt to {'you and bob' if other == ann else 'ann and you'}",
    }
    expect(log_lines(watcher)).to_have_text(["hand 1 dealt to ann and bob"])
    for user, page in pages.items():
        expect(log_lines(page)).to_have_text([dealt[user]])

    page = pages[mover]
    page.get_by_role("button", name="Draw from stock").click()
    drawn = page.locator("#hand button.card.drawn")
    expect(drawn).to_have_count(1)
    card = drawn.get_attribute("data-card") or ""
    words = card_phrase(card)
    # A card symbol, not a code like 7C (or a joker, in words).
    assert words == "a joker" if card == "*" else words[-1] in "\u2660\u2665\u2666\u2663"
    drawn.dblclick()  # a double-click discards the card
    expect(page.locator("#hand button.card")).to_have_count(13)
    assert answer(table)["view"]["discard"][-1] == card

    name = mover.username
    mine = [dealt[mover], f"you drew {words}", f"you discarded {words}"]
    # The stock draw's card is the drawer's alone while the game runs.
    theirs = [f"{name} drew from the stock", f"{name} discarded {words}"]
    expect(log_lines(page)).to_have_text(mine)
    expect(log_lines(pages[other])).to_have_text([dealt[other], *theirs])
    expect(log_lines(watcher)).to_have_text(["hand 1 dealt to ann and bob", *theirs])

    # A reload starts from the whole list the server gives on connect.
    for reader in (page, pages[other], watcher):
        reader.reload()
    expect(log_lines(page)).to_have_text(mine)
    expect(log_lines(pages[other])).to_have_text([dealt[other], *theirs])
    expect(log_lines(watcher)).to_have_text(["hand 1 dealt to ann and bob", *theirs])


def test_the_break_shows_the_real_last_hand_and_holds_the_turn_clock(
    new_page: PageFactory, asgi_server: str
) -> None:
    ann, bob = players("ann", "bob")
    table = started_table([ann, bob], overrides=SMALL_STOCK, between_hands_seconds=20)
    player = open_table(new_page, asgi_server, ann, table, viewport=DESKTOP)
    watcher = open_table(new_page, asgi_server, None, table, viewport=PHONE)
    expect(player.locator("#hand button.card")).to_have_count(20)
    expect(player.locator("#break")).to_be_hidden()
    play_simple(table, [ann, bob], until=lambda t: t.last_hand is not None)
    got = answer(table)
    last = got["last_hand"]
    assert last["number"] == 1 and last["went_out"] is None  # nobody melded: the stock ran out
    assert got["clock"]["break_ends"] is not None and got["view"]["hand_number"] == 2
    for page in (player, watcher):
        panel = page.locator("#break")
        expect(panel).to_be_visible()
        expect(panel.locator("h2")).to_have_text("Hand 1 is over: the stock ran out")
        expect(panel.locator("#break-countdown")).to_have_text(
            re.compile(r"^The next hand starts in \d+ seconds?\.$")
        )
        for name, score in last["scores"].items():
            cells = panel.locator(f"tr[data-player={name}] td")
            in_hand = f"\u2212{score['in_hand']}" if score["in_hand"] else "0"
            expect(cells.nth(2)).to_have_text(str(score["melded"]))
            expect(cells.nth(3)).to_have_text(in_hand)
            expect(cells.nth(4)).to_have_text(signed(score["net"]))
            expect(cells.nth(5)).to_have_text(str(last["totals"][name]))
            expect(cells.nth(1).locator(".card")).to_have_count(len(last["left"][name]))
        # The new hand is dealt, but its first turn's clock waits for the break's end.
        before = clock_text(page)
        page.wait_for_timeout(1100)
        assert clock_text(page) == before
        no_sideways_scroll(page, "#break")
        shoot(page, "break")


def test_the_turn_clock_starts_when_the_break_ends(new_page: PageFactory, asgi_server: str) -> None:
    ann, bob = players("ann", "bob")
    table = started_table([ann, bob], overrides=SMALL_STOCK, between_hands_seconds=4)
    page = open_table(new_page, asgi_server, ann, table, viewport=DESKTOP)
    expect(page.locator("#hand button.card")).to_have_count(20)
    play_simple(table, [ann, bob], until=lambda t: t.last_hand is not None)
    expect(page.locator("#break")).to_be_visible()
    before = clock_text(page)
    page.wait_for_timeout(1100)
    assert clock_text(page) == before
    expect(page.locator("#break")).to_be_hidden(timeout=6000)
    before = clock_text(page)
    page.wait_for_timeout(1100)
    assert clock_text(page) != before


def test_a_rematch_accepted_on_both_pages_takes_both_to_the_new_table(
    new_page: PageFactory, asgi_server: str
) -> None:
    gus, hal = players("gus", "hal")
    table = finished_table([gus, hal], rated=False)
    first = open_table(new_page, asgi_server, gus, table, viewport=DESKTOP)
    second = open_table(new_page, asgi_server, hal, table, viewport=PHONE)
    for page in (first, second):
        expect(page.locator("#result")).to_be_visible()
        expect(page.locator("#rematch button")).to_have_text(["Rematch"])
    first.get_by_role("button", name="Rematch").click()
    for page in (first, second):
        expect(page.locator(".rematch-state")).to_contain_text("accepted: gus")
    expect(first.locator("#rematch button")).to_have_count(0)  # gus has answered
    # Only the offer's state: nothing else written where the buttons were.
    expect(first.locator("#rematch")).to_have_text(re.compile(r"^Rematch: accepted: gus; open for"))
    expect(first.locator("#rematch")).not_to_contain_text("null")
    expect(second.locator("#rematch button")).to_have_text(["Rematch", "Decline"])
    shoot(first, "rematch-accepted")
    shoot(second, "rematch-offered")

    second.get_by_role("button", name="Rematch").click()
    first.wait_for_url(re.compile(rf"/tables/(?!{table.pk}/)\d+/$"))
    again = answer(table)["rematch"]["table"]
    assert again is not None
    for page in (first, second):
        expect(page).to_have_url(re.compile(rf"/tables/{again}/$"))
        expect(page.locator("#hand button.card")).to_have_count(13)
        expect(page.locator("#status")).to_have_text(re.compile(r"^(Your turn|Hand 1: \w+ to)"))
    assert Table.objects.get(pk=again).status == Table.Status.PLAYING


def test_a_declined_rematch_is_off_on_both_pages(new_page: PageFactory, asgi_server: str) -> None:
    gus, hal = players("gus", "hal")
    table = finished_table([gus, hal], rated=False)
    first = open_table(new_page, asgi_server, gus, table, viewport=DESKTOP)
    second = open_table(new_page, asgi_server, hal, table, viewport=PHONE)
    first.get_by_role("button", name="Rematch").click()
    expect(second.locator(".rematch-state")).to_contain_text("accepted: gus")
    second.get_by_role("button", name="Decline").click()
    for page in (first, second):
        expect(page.locator(".rematch-state")).to_contain_text("declined: hal")
        expect(page.locator(".rematch-state")).to_contain_text("the rematch is off")
        expect(page.locator("#rematch button")).to_have_count(0)
        expect(page.locator("#rematch")).to_have_text(
            "Rematch: accepted: gus; declined: hal; the rematch is off."
        )
        shoot(page, "rematch-off")
    assert answer(table)["rematch"]["declined"] == ["hal"]


def test_game_over_shows_the_real_rating_changes(new_page: PageFactory, asgi_server: str) -> None:
    ann, bob = players("ann", "bob")
    put_ratings(pool_of("global"), [(ann, 1600.0, 40)])  # ann is established, bob is new
    table = finished_table([ann, bob])
    pages = [
        open_table(new_page, asgi_server, ann, table, viewport=DESKTOP),
        open_table(new_page, asgi_server, bob, table, viewport=PHONE),
    ]
    for page in pages:
        expect(page.locator("#result")).to_be_visible()
        expect(page.locator("#rating-changes")).to_have_count(0)  # not rated yet
    # The ratings hook (a Celery task in production) runs here; it pushes after its commit.
    assert finalization.run_hook(table.pk, "ratings")
    ratings = answer(table)["ratings"]
    assert not ratings["ann"]["provisional"] and ratings["bob"]["provisional"]
    assert ratings["ann"]["change"] * ratings["bob"]["change"] < 0  # one won, one lost
    # Each one's chance of finishing first, from the ratings before the game: ann's 1600
    # against bob's start.
    odds = win_chances([1600.0, 1500.0])
    chances = {n: f"{round(100 * p)} %" for n, p in zip(["ann", "bob"], odds, strict=True)}
    for page in pages:
        for name, rating in ratings.items():
            new = f"{rating['after']}{'?' if rating['provisional'] else ''}"
            cells = page.locator(f"#rating-changes tr[data-player={name}] td")
            expect(cells).to_have_text([chances[name], signed(rating["change"]), new])
        no_sideways_scroll(page, "#result")
        shoot(page, "game-over-ratings")
    # The seat plates agree with the panel: bob's first game took him from 1500? to his new one.
    after = ratings["bob"]["after"]
    expect(pages[0].locator(".player[data-player=bob] .rating")).to_have_text(f"{after}?")


def no_sideways_scroll(page: Page, panel: str) -> None:
    """Every column of a panel's tables is in view: nothing scrolls sideways."""
    for box in page.locator(f"{panel} .scroll").all():
        assert box.evaluate("b => b.scrollWidth <= b.clientWidth"), panel
