"""The card table played for real: a whole hand by mouse only (two players and a spectator), a
whole hand by keyboard only, the phone's screen, dragging the hand into one's own order, the
help overlay, and an accessibility scan (axe-core, vendored under tests/browser/vendor/)."""

import itertools
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from accounts.models import User
from games.models import Table
from tests.browser.pages import PageFactory, log_in
from tests.browser.test_table import first_melds, press_cards
from tests.games.tables import players, started_table, state_of

pytestmark = pytest.mark.django_db(transaction=True)

AXE = Path(__file__).resolve().parent / "vendor" / "axe-core" / "axe.min.js"
# More turns than a hand can last when nobody melds (13 cards each leave 27 in the stock).
MAX_TURNS = 40
DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}


def open_table(
    new_page: PageFactory, base: str, user: User | None, table: Table, **options: object
) -> Page:
    page = new_page(reduced_motion="reduce", **options)
    if user is not None:
        log_in(page, base, user)
    page.goto(f"{base}/tables/{table.pk}/")
    return page


def scored(page: Page) -> bool:
    return page.locator("#scores tr[data-hand='1']").count() > 0


def next_mover(pages: dict[str, Page]) -> str | None:
    """The player whose page lets them draw now; None once hand 1 is scored."""
    for _ in range(300):
        for name, page in pages.items():
            if scored(page):
                return None
            if page.locator("#draw-stock").is_enabled():
                return name
        next(iter(pages.values())).wait_for_timeout(50)
    raise AssertionError("no page offers a draw and hand 1 is not scored")


def wait_drawn(page: Page) -> bool:
    """After a draw: True with the drawn card marked, False when the draw ended the hand."""
    drawn = page.locator("#hand .card.drawn, #scores tr[data-hand='1']")
    expect(drawn.first).to_be_attached()
    return not scored(page)


def test_a_whole_hand_by_mouse_with_a_spectator(new_page: PageFactory, asgi_server: str) -> None:
    ann, bob = players("ann", "bob")
    table = started_table([ann, bob], overrides={"turn_seconds": 600})
    pages = {
        u.username: open_table(new_page, asgi_server, u, table, viewport=DESKTOP)
        for u in (ann, bob)
    }
    watcher = open_table(new_page, asgi_server, None, table, viewport=DESKTOP)
    expect(watcher.locator(".player")).to_have_count(2)
    turns = 0
    for turns in range(1, MAX_TURNS + 1):
        mover = next_mover(pages)
        if mover is None:
            break
        page = pages[mover]
        page.get_by_role("button", name="Draw from stock").click()
        if not wait_drawn(page):
            break
        cards = page.locator("#hand button.card")
        expect(cards).to_have_count(14)
        drawn = page.locator("#hand button.card.drawn")
        if turns % 2:
            drawn.dblclick()  # a double-click discards the card
        else:
            drawn.click()  # select it, then drag it onto the pile
            expect(drawn).to_have_attribute("aria-pressed", "true")
            drawn.drag_to(page.locator("#pile"))
        expect(cards).to_have_count(13)
        # The spectator follows every discard and is never offered a move.
        top = page.locator("#pile .card").last.get_attribute("data-card")
        expect(watcher.locator("#pile .card").last).to_have_attribute("data-card", top or "")
        expect(watcher.locator("#game button:visible")).to_have_count(0)
    assert turns > 20
    for page in [*pages.values(), watcher]:
        expect(page.locator("#scores tr[data-hand='1']")).to_be_attached()
    table.refresh_from_db()
    assert table.state is not None and table.state["hands"][0]["number"] == 1


def test_a_whole_hand_by_keyboard(new_page: PageFactory, asgi_server: str) -> None:
    ann, bob = players("ann", "bob")
    table = started_table([ann, bob], overrides={"turn_seconds": 600})
    pages = {
        u.username: open_table(new_page, asgi_server, u, table, viewport=DESKTOP)
        for u in (ann, bob)
    }
    took = False
    turns = 0
    for turn in range(1, MAX_TURNS + 1):
        turns = turn
        mover = next_mover(pages)
        if mover is None:
            break
        page = pages[mover]
        cards = page.locator("#hand button.card")
        if not took and page.locator("#take").is_enabled():
            # T focuses the pile at the current depth; Enter takes that card.
            page.keyboard.press("t")
            expect(page.locator("#pile button.card[aria-pressed=true]")).to_be_focused()
            page.keyboard.press("Enter")
            took = True
        else:
            page.keyboard.press("d")
        if not wait_drawn(page):
            break
        expect(cards).to_have_count(14)
        focused = page.locator("#hand button.card:focus")
        if focused.count() == 0:  # nothing had the focus: the draw handed it to the new card
            page.keyboard.press("Tab")
        expect(focused).to_have_count(1)
        page.keyboard.press("ArrowRight")
        page.keyboard.press("ArrowLeft")
        page.keyboard.press("Space")
        expect(page.locator("#hand button.card[aria-pressed=true]")).to_have_count(1)
        if page.locator("#discard").is_disabled():  # the card just taken may not go back
            page.keyboard.press("Escape")
            expect(page.locator("#hand button.card[aria-pressed=true]")).to_have_count(0)
            page.keyboard.press("ArrowRight")
            page.keyboard.press("Space")
        expect(page.locator("#discard")).to_be_enabled()
        page.keyboard.press("x")
        expect(cards).to_have_count(13)
        expect(page.locator("#hand button.card:focus")).to_have_count(1)  # focus kept in the hand
    assert took and turns > 20
    for page in pages.values():
        expect(page.locator("#scores tr[data-hand='1']")).to_be_attached()


def test_the_phone_fits_a_whole_turn(new_page: PageFactory, asgi_server: str) -> None:
    ann, bob = players("ann", "bob")
    table = started_table([ann, bob])
    mover = [ann, bob][state_of(table).turn or 0]
    page = open_table(new_page, asgi_server, mover, table, viewport=PHONE, has_touch=True)
    page.locator("#draw-stock").tap()
    cards = page.locator("#hand button.card")
    expect(cards).to_have_count(14)
    cards.first.tap()
    for selector in ("#hand", "#discard"):
        box = page.locator(selector).bounding_box()
        assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= PHONE["height"], (
            selector
        )
        assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"], selector
    assert page.evaluate("document.scrollingElement.scrollHeight") <= PHONE["height"]
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    # Each card shows at least 44 px of itself to a finger: the next card starts that far on.
    lefts = cards.evaluate_all(
        "cs => cs.map(c => [c.getBoundingClientRect().left, c.getBoundingClientRect().top])"
    )
    for (x1, y1), (x2, y2) in itertools.pairwise(lefts):
        if abs(y1 - y2) < 1:  # same row (a selected card is raised, a new row wraps)
            assert x2 - x1 >= 44, (x1, x2)
    page.locator("#discard").tap()
    expect(cards).to_have_count(13)
    # The move log and the scores open as a bottom sheet, inside the screen.
    sheet = page.locator("#side")
    expect(sheet).to_be_hidden()
    page.get_by_role("button", name="Moves").tap()
    expect(sheet).to_be_visible()
    expect(page.get_by_role("log", name="Moves")).to_be_visible()
    box = sheet.bounding_box()
    assert box is not None and box["y"] + box["height"] <= PHONE["height"] + 1
    page.get_by_role("button", name="Moves").tap()
    expect(sheet).to_be_hidden()


def test_dragging_reorders_the_hand_and_the_order_stays(
    new_page: PageFactory, asgi_server: str
) -> None:
    ann, bob = players("ann", "bob")
    table = started_table([ann, bob])
    page = open_table(new_page, asgi_server, ann, table, viewport=DESKTOP)
    cards = page.locator("#hand button.card")
    expect(cards).to_have_count(13)
    before = cards.evaluate_all("cs => cs.map(c => c.dataset.key)")
    cards.first.drag_to(cards.last, target_position={"x": 50, "y": 20})  # onto its right half
    after = cards.evaluate_all("cs => cs.map(c => c.dataset.key)")
    assert after == [*before[1:], before[0]]
    expect(page.locator("#sort-suit")).to_have_attribute("aria-pressed", "false")
    page.reload()
    expect(cards).to_have_count(13)
    assert cards.evaluate_all("cs => cs.map(c => c.dataset.key)") == after  # kept in the browser
    page.get_by_role("button", name="By suit").click()
    assert cards.evaluate_all("cs => cs.map(c => c.dataset.key)") == before


def test_the_help_overlay_opens_with_the_question_mark(
    new_page: PageFactory, asgi_server: str
) -> None:
    ann, bob = players("ann", "bob")
    table = started_table([ann, bob])
    page = open_table(new_page, asgi_server, ann, table, viewport=DESKTOP)
    expect(page.locator("#hand button.card")).to_have_count(13)
    page.keyboard.press("?")
    dialog = page.get_by_role("dialog", name="Keyboard")
    expect(dialog).to_be_visible()
    expect(dialog).to_contain_text("draw from the stock")
    page.keyboard.press("Escape")
    expect(dialog).to_be_hidden()
    page.get_by_role("button", name="?").click()
    expect(dialog).to_be_visible()
    dialog.get_by_role("button", name="Close").click()
    expect(dialog).to_be_hidden()


def test_sounds_are_off_until_switched_on_and_stay_on(
    new_page: PageFactory, asgi_server: str
) -> None:
    ann, bob = players("ann", "bob")
    table = started_table([ann, bob])
    page = open_table(new_page, asgi_server, ann, table, viewport=DESKTOP)
    page.get_by_text("Settings").click()
    sound = page.get_by_label("Sounds")
    expect(sound).not_to_be_checked()
    sound.check()
    page.reload()
    page.get_by_text("Settings").click()
    expect(page.get_by_label("Sounds")).to_be_checked()
    for name in ("turn", "low"):  # served by this site
        answer = page.request.get(f"{asgi_server}/static/sounds/{name}.wav")
        assert answer.ok and answer.body()[:4] == b"RIFF"


def serious_violations(page: Page) -> list[str]:
    page.add_script_tag(content=AXE.read_text())
    found = page.evaluate(
        """async () => {
          const result = await axe.run(document, {resultTypes: ["violations"]});
          return result.violations
            .filter(v => v.impact === "serious" || v.impact === "critical")
            .map(v => `${v.id}: ${v.nodes.map(n => n.target.join(" ")).join(", ")}`);
        }"""
    )
    return list(found)


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_no_serious_accessibility_violation(
    new_page: PageFactory, asgi_server: str, viewport: dict[str, int]
) -> None:
    users = players("ann", "bob", "cid")
    table = started_table(users)
    mover = users[state_of(table).turn or 0]
    # The scan is injected as a script of the page's own, which the site's policy forbids.
    page = open_table(new_page, asgi_server, mover, table, viewport=viewport, bypass_csp=True)
    page.locator("#draw-stock").click()
    cards = page.locator("#hand button.card")
    expect(cards).to_have_count(8)
    cards.first.click()
    cards.nth(2).click()
    assert serious_violations(page) == []
    page.keyboard.press("?")
    expect(page.locator("#help")).to_be_visible()
    assert serious_violations(page) == []


def test_keys_meld_and_choose_a_meld_to_lay_off_on(new_page: PageFactory, asgi_server: str) -> None:
    ann, bob = players("ann", "bob")
    table = started_table([ann, bob], wanted=lambda g: first_melds(g) is not None)
    melds = first_melds(state_of(table))
    assert melds is not None and state_of(table).turn == 0
    page = open_table(new_page, asgi_server, ann, table, viewport=DESKTOP)
    expect(page.locator("#draw-stock")).to_be_enabled()
    page.keyboard.press("d")
    expect(page.locator("#hand button.card")).to_have_count(14)
    press_cards(page, melds[0])
    page.keyboard.press("m")
    expect(page.locator("#melds .meld")).to_have_count(1)
    meld_id = page.locator("#melds .meld").first.get_attribute("data-meld")
    page.keyboard.press("l")
    expect(page.locator("#notice")).to_have_text("Lay off on which meld? Type its number.")
    page.keyboard.press(str(meld_id))
    # Nothing selected fits it, so nothing is sent; the meld is chosen for the next lay-off.
    expect(page.locator("#layoff")).to_have_text(f"Lay off on #{meld_id}")
    page.keyboard.press("Escape")
    expect(page.locator("#layoff")).to_have_text("Lay off")


def test_cards_js_says_why_a_selection_fits_nothing(
    new_page: PageFactory, asgi_server: str
) -> None:
    page = new_page()
    page.goto(asgi_server + "/")
    said = page.evaluate(
        """async () => {
          const { why, plural } = await import("/static/js/cards.js");
          const play = { legal: [{ type: "discard", card: "KD" }], phase: "play", mine: true };
          return [
            why(["7S", "9S", "JS"], play),
            why(["7S", "7H", "7D", "7C", "7S"], play),
            why(["7S", "8H", "JD"], play),
            why(["7S", "8H"], play),
            why(["KD"], play),
            why(["7S"], { ...play, mine: false }),
            why(["7S"], { ...play, phase: "draw" }),
            why(["2C"], { legal: [], phase: "play", mine: true, required: "2C" }),
            plural(1, "card"), plural(2, "card"), plural(-1, "point"), plural(0, "point"),
          ];
        }"""
    )
    assert said == [
        "a run needs three or more cards of one suit in sequence",
        "a set needs three or four cards of one rank",
        "a set needs three or four cards of one rank; a run, three or more of one suit in sequence",
        "a meld needs three or more cards; choose one card to discard",
        "",  # a legal discard: nothing to explain
        "wait for your turn",
        "draw first: from the stock or the discard pile",
        "meld the 2 of clubs you took before you discard",
        "1 card",
        "2 cards",
        "-1 point",
        "0 points",
    ]
