"""Two players in real browsers: sign up, create and join a table, then play a hand through the
table page's WebSocket.

The ASGI server and the pages come from ``tests/browser/conftest.py`` and ``pages.py``.
"""

import json
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from playwright.sync_api import Page, WebSocketRoute, expect

from games.engine.cards import format_card
from games.engine.scoring import Placement
from games.engine.search import all_melds
from games.engine.state import GameState
from games.models import Table
from games.selectors import table_state
from tests.browser.pages import PageFactory, log_in
from tests.games.tables import play_greedy, players, started_table

pytestmark = pytest.mark.django_db(transaction=True)

PASSWORD = "correct-horse-battery-42"
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
# More turns than a hand can last when nobody melds: 13 cards each leave 27 in the stock, and
# the hand ends at the first draw from the empty stock.
MAX_TURNS = 40


def sign_up(page: Page, base: str, username: str) -> None:
    page.goto(base + "/accounts/signup/")
    page.locator("#id_username").fill(username)
    page.locator("#id_email").fill(f"{username}@example.com")
    page.locator("#id_password1").fill(PASSWORD)
    page.locator("#id_password2").fill(PASSWORD)
    page.get_by_role("button", name="Create account").click()
    expect(page.locator(".who")).to_have_text(username)


def create_table(page: Page, base: str, seats: int) -> str:
    """Create a table through the lobby form; the URL of its page."""
    page.goto(base + "/")
    page.get_by_role("link", name="Tables").click()
    page.locator("#id_ruleset").select_option("standard")
    page.locator("#id_seats").select_option(str(seats))
    page.locator("#id_turn_seconds").fill("600")  # no server-played turn during the test
    page.get_by_role("button", name="Create table").click()
    expect(page).to_have_url(re.compile(r"/tables/\d+/$"))
    return page.url


def join_from_lobby(page: Page, base: str, table_url: str) -> None:
    table_id = re.search(r"/tables/(\d+)/$", table_url).group(1)  # type: ignore[union-attr]
    page.goto(base + "/tables/")
    page.get_by_role("button", name=f"Join table {table_id}").click()
    expect(page).to_have_url(table_url)


def hand_of(page: Page) -> list[str]:
    return page.locator("#hand button.card").evaluate_all("cs => cs.map(c => c.dataset.card)")


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


def play_turn(page: Page) -> None:
    """Draw from the stock, then discard the first card the Discard button allows."""
    page.get_by_role("button", name="Draw from stock").click()
    cards = page.locator("#hand button.card")
    # Fourteen cards, or the hand is over (the stock was empty) and hand 1 is scored.
    drawn = page.locator("#hand button.card:nth-child(14), #scores tr[data-hand='1']")
    expect(drawn.first).to_be_visible()
    if scored(page):
        return
    discard = page.get_by_role("button", name="Discard", exact=True)
    for i in range(cards.count()):
        card = cards.nth(i)
        card.click()
        expect(card).to_have_attribute("aria-pressed", "true")
        if discard.is_enabled():
            discard.click()
            expect(cards).to_have_count(13)
            return
        card.click()
    raise AssertionError("the Discard button allowed no card")


def test_two_players_create_join_and_play_a_hand(new_page: PageFactory, asgi_server: str) -> None:
    base = asgi_server
    pages = {"ann": new_page(), "bob": new_page()}
    ann, bob = pages["ann"], pages["bob"]
    sign_up(ann, base, "ann")
    sign_up(bob, base, "bob")
    table_url = create_table(ann, base, seats=2)
    expect(ann.locator("#seat-list")).to_have_text("ann")
    expect(ann.locator("#seat-count")).to_have_text("1 of 2 seats taken.")

    join_from_lobby(bob, base, table_url)
    # The table is full, so it starts; ann's page turns into the game without a reload.
    for page in pages.values():
        expect(page.locator("#game")).to_be_visible()
        expect(page.locator("#waiting")).to_be_hidden()
        expect(page.locator("#hand button.card")).to_have_count(13)
    first = ann.locator(".player.turn").get_attribute("data-player")

    movers = []
    for _ in range(MAX_TURNS):
        mover = next_mover(pages)
        if mover is None:
            break
        movers.append(mover)
        play_turn(pages[mover])
        if len(movers) == 1:  # the turn indicator moved to the other player on both pages
            other = "bob" if mover == "ann" else "ann"
            for page in pages.values():
                expect(page.locator(".player.turn")).to_have_attribute("data-player", other)
    assert movers[0] == first
    assert len(set(movers)) == 2 and len(movers) > 20

    table = Table.objects.get()
    state = table.state
    assert state is not None and state["hands"][0]["number"] == 1
    hands = {p["name"]: p["hand"] for p in state["players"]}
    ARTIFACTS.mkdir(exist_ok=True)
    for name, page in pages.items():
        expect(page.locator("#scores tr[data-hand='1']")).to_be_visible()
        header = page.locator("#scores thead th")
        expect(header).to_have_text(["Hand", "ann", "bob"])
        expect(page.locator("#scores tr[data-hand='1'] td")).to_have_count(2)
        # Each page shows its own hand (of hand 2, dealt at once) and nothing of the other's.
        expect(page.locator("#hand button.card")).to_have_count(13)
        assert sorted(hand_of(page)) == sorted(hands[name])
        other = hands["bob" if name == "ann" else "ann"]
        # The break's summary of hand 1 shows the cards left in its hands, scored in the open
        # (RULES.md): public, and as likely as any to be in the other's new hand.
        shown = page.locator("[data-card]:not(#break *)").evaluate_all(
            "cs => cs.map(c => c.dataset.card)"
        )
        assert not set(other) - {"*"} & set(shown)
        page.screenshot(path=str(ARTIFACTS / f"table-{name}.png"), full_page=True)


def test_the_waiting_room_updates_live_and_the_creator_starts(
    new_page: PageFactory, asgi_server: str
) -> None:
    base = asgi_server
    ann, bob = new_page(), new_page()
    sign_up(ann, base, "ann")
    sign_up(bob, base, "bob")
    table_url = create_table(ann, base, seats=3)
    start = ann.get_by_role("button", name="Start the game")
    expect(start).to_be_hidden()  # alone at the table

    join_from_lobby(bob, base, table_url)
    expect(ann.locator("#seat-list li")).to_have_text(["ann", "bob"])
    expect(bob.get_by_role("button", name="Leave")).to_be_visible()
    expect(bob.get_by_role("button", name="Start the game")).to_be_hidden()
    start.click()
    for page in (ann, bob):
        expect(page.locator("#game")).to_be_visible()
        expect(page.locator(".player")).to_have_count(2)
        expect(page.locator(".player.turn .clock")).to_have_text(re.compile(r"^\d+:\d\d left$"))


def test_a_spectator_sees_hand_sizes_and_no_action_button(
    new_page: PageFactory, asgi_server: str
) -> None:
    base = asgi_server
    ann, bob, eve = new_page(), new_page(), new_page()
    sign_up(ann, base, "ann")
    sign_up(bob, base, "bob")
    table_url = create_table(ann, base, seats=2)
    eve.goto(table_url)  # anonymous
    expect(eve.locator("#seat-list li")).to_have_text(["ann"])
    join_from_lobby(bob, base, table_url)
    expect(eve.locator("#game")).to_be_visible()
    expect(eve.locator(".player .meta").first).to_contain_text("13 cards")
    expect(eve.locator("#hand-panel")).to_be_hidden()
    expect(eve.locator("#game button:visible")).to_have_count(0)


def test_the_game_over_lists_the_places_the_server_gave(
    new_page: PageFactory, asgi_server: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The page draws the view's ``placements`` as the server gives them, and places nobody by
    itself: here the server is made to place everyone first, in reverse seat order."""
    users = players("ann", "bob", "cid")
    table = started_table(users, overrides={"target": 60, "turn_seconds": 600})
    play_greedy(table, users, until=lambda t: t.status == Table.Status.FINISHED)
    state = table_state(table)
    assert state is not None and state.phase == "game_over"
    given = [Placement(p.name, 1, p.score) for p in reversed(state.players)]
    monkeypatch.setattr("games.engine.views.game_placements", lambda _: given)
    page = new_page()
    page.goto(asgi_server + table.get_absolute_url())
    expect(page.locator("#result")).to_be_visible()
    items = page.locator("#placements li")
    points = {1: "point", -1: "point"}  # "1 point", "-1 point"; else "points"
    expect(items).to_have_text(
        [f"{p.player}: {p.score} {points.get(p.score, 'points')}" for p in given]
    )
    assert items.evaluate_all("lis => lis.map(li => li.value)") == [1, 1, 1]


def test_the_table_fits_a_phone_screen(new_page: PageFactory, asgi_server: str) -> None:
    base = asgi_server
    phone = {"viewport": {"width": 360, "height": 740}}
    ann, bob = new_page(**phone), new_page(**phone)
    sign_up(ann, base, "ann")
    sign_up(bob, base, "bob")
    table_url = create_table(ann, base, seats=2)
    join_from_lobby(bob, base, table_url)
    for page in (ann, bob):
        expect(page.locator("#hand button.card")).to_have_count(13)
        assert page.evaluate("document.documentElement.scrollWidth") <= 360
    ann.goto(base + "/tables/")
    assert ann.evaluate("document.documentElement.scrollWidth") <= 360


# --- Playing with the keyboard, and a lost connection ----------------------------------------


def first_melds(state: GameState) -> tuple[list[str], list[str]] | None:
    """Two card-disjoint three-card melds in the first player's hand, as hand card strings:
    one of naturals only, one with a joker; None when the hand has no such pair."""
    rules, hand = state.rules, state.players[0].hand
    melds = [m for m in all_melds(hand, rules, state.decks) if len(m) == 3]
    jokers = sum(1 for c in hand if c.rank == 0)
    for natural in (m for m in melds if all(c.rank for c, _ in m)):
        for wild in (m for m in melds if sum(c.rank == 0 for c, _ in m) == 1 and jokers):
            if not {c for c, _ in natural} & {c for c, _ in wild}:
                return [format_card(c) for c, _ in natural], [format_card(c) for c, _ in wild]
    return None


def press_cards(page: Page, codes: list[str]) -> None:
    """Select hand cards from the keyboard: focus each and press Space."""
    seen: dict[str, int] = {}
    for code in codes:
        seen[code] = seen.get(code, -1) + 1
        card = page.locator(f'#hand button[data-key="hand:{code}#{seen[code]}"]')
        card.focus()
        page.keyboard.press("Space")
        expect(card).to_have_attribute("aria-pressed", "true")
        expect(card).to_be_focused()  # the re-render gave the focus back to the same card


def test_melding_and_discarding_with_the_keyboard(new_page: PageFactory, asgi_server: str) -> None:
    ann, bob = players("ann", "bob")
    table = started_table([ann, bob], wanted=lambda g: first_melds(g) is not None)
    state = table_state(table)
    assert state is not None and state.turn == 0  # ann, seated first, plays first
    melds = first_melds(state)
    assert melds is not None
    natural, wild = melds
    page = new_page()
    log_in(page, asgi_server, ann)
    page.goto(f"{asgi_server}/tables/{table.pk}/")

    draw = page.get_by_role("button", name="Draw from stock")
    expect(draw).to_be_enabled()  # once the socket is open
    draw.focus()
    page.keyboard.press("Enter")
    hand = page.locator("#hand button.card")
    expect(hand).to_have_count(14)

    meld = page.get_by_role("button", name="Meld", exact=True)
    discard = page.get_by_role("button", name="Discard", exact=True)
    press_cards(page, natural[:2])
    focus_ring = "getComputedStyle(document.activeElement).outlineStyle"
    assert page.evaluate(focus_ring) == "solid"  # the focused card shows it
    expect(meld).to_be_disabled()  # two cards make no meld
    press_cards(page, natural[2:])
    expect(discard).to_be_disabled()  # three cards are not one discard
    expect(meld).to_be_enabled()
    meld.focus()
    page.keyboard.press("Enter")
    expect(page.locator("#melds .meld")).to_have_count(1)
    expect(hand).to_have_count(11)
    expect(page.locator("#melds .meld .by").first).to_have_text("ann")

    press_cards(page, wild)  # the joker's card is the one the legal list names first
    meld.click()
    expect(page.locator("#melds .meld")).to_have_count(2)
    joker = page.locator("#melds .meld").nth(1).locator(".card.joker")
    expect(joker.locator(".rank")).to_have_text("*")
    expect(joker.locator(".as")).to_have_text(re.compile(r"^(10|[2-9AJQK])[SHDC]$"))

    press_cards(page, [hand.first.get_attribute("data-card") or ""])
    discard.click()
    expect(hand).to_have_count(7)
    expect(page.locator(".player.turn")).to_have_attribute("data-player", "bob")
    table.refresh_from_db()
    assert table.state is not None
    played = [sorted(c["card"] for c in m["cards"]) for m in table.state["melds"]]
    assert played == [sorted(natural), sorted(wild)]


def test_a_server_restart_close_reconnects_at_once(new_page: PageFactory, asgi_server: str) -> None:
    """1012 (service restart, config/restart.py) is answered within half a second; any other
    close waits the first second of the back-off. The page's clock is Playwright's, moved by
    hand, so no real time is measured."""
    ann, bob = players("ann", "bob")
    table = started_table([ann, bob])
    page = new_page()
    sockets: list[WebSocketRoute] = []

    def through(ws: WebSocketRoute) -> None:
        ws.connect_to_server()
        sockets.append(ws)

    page.route_web_socket(re.compile(r"/ws/tables/\d+/(\?chat=1)?$"), through)
    log_in(page, asgi_server, bob)
    page.clock.install()
    page.goto(f"{asgi_server}/tables/{table.pk}/")
    expect(page.locator(".player[data-player=bob] .dot.on")).to_have_count(1)
    page.clock.pause_at(datetime.now(UTC) + timedelta(hours=1))

    sockets[0].close(code=1012, reason="service restart")
    expect(page.locator("#connection")).to_have_text("Reconnecting\u2026")
    page.clock.run_for(500)
    expect(page.locator("#connection")).to_be_hidden()
    assert len(sockets) == 2

    sockets[1].close(code=1000)
    expect(page.locator("#connection")).to_have_text("Reconnecting\u2026")
    page.clock.run_for(500)
    assert len(sockets) == 2, "an ordinary close waits a second"
    page.clock.run_for(600)
    expect(page.locator("#connection")).to_be_hidden()
    assert len(sockets) == 3


def test_a_lost_connection_reconnects_and_resyncs(new_page: PageFactory, asgi_server: str) -> None:
    ann, bob = players("ann", "bob")
    table = started_table([ann, bob])
    page = new_page()
    sockets: list[WebSocketRoute] = []
    sent: list[str] = []

    def through(ws: WebSocketRoute) -> None:
        server = ws.connect_to_server()

        def forward(message: str | bytes) -> None:
            sent.append(str(message))
            server.send(message)

        ws.on_message(forward)
        sockets.append(ws)

    page.route_web_socket(re.compile(r"/ws/tables/\d+/(\?chat=1)?$"), through)
    log_in(page, asgi_server, bob)
    page.goto(f"{asgi_server}/tables/{table.pk}/")
    expect(page.locator(".player[data-player=bob] .dot.on")).to_have_count(1)
    assert sent == []  # the server sends the state on connect unasked

    sockets[0].close()
    expect(page.locator("#connection")).to_have_text("Reconnecting\u2026")
    expect(page.locator("#connection")).to_be_hidden()  # back after the first 1 s wait
    assert len(sockets) == 2 and json.loads(sent[0]) == {"type": "sync"}

    error = {"type": "error", "client_id": None, "error": "not_your_turn", "message": "wait"}
    sockets[1].send(json.dumps(error))
    expect(page.locator("#toast")).to_have_text("wait")
    expect(page.locator("#hand button.card")).to_have_count(13)
