"""What the table page draws from the issue's added fields (the move log, the break between hands,
rating changes and the rematch), each only when its field is in the frame: here the server's own
frames pass through a routed socket, and copies with the fields added are sent after them."""

import json
import re
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone
from playwright.sync_api import Page, WebSocketRoute, expect

from accounts.models import User
from games.models import Table
from tests.browser.pages import PageFactory, log_in
from tests.browser.test_table_shots import SHOTS
from tests.games.tables import play_greedy, players, started_table

pytestmark = pytest.mark.django_db(transaction=True)


class Wire:
    """The page's socket, passed through: what the server sent, what the page sent."""

    def __init__(self, page: Page) -> None:
        self.frames: list[dict[str, Any]] = []
        self.sent: list[dict[str, Any]] = []
        self.route: WebSocketRoute | None = None
        page.route_web_socket(re.compile(r"/ws/tables/\d+/(\?chat=1)?$"), self.through)

    def through(self, ws: WebSocketRoute) -> None:
        server = ws.connect_to_server()
        self.route = ws

        def down(message: str | bytes) -> None:
            self.frames.append(json.loads(message))
            ws.send(message)

        def up(message: str | bytes) -> None:
            self.sent.append(json.loads(message))
            server.send(message)

        server.on_message(down)
        ws.on_message(up)

    def last_state(self) -> dict[str, Any]:
        """The last ``state`` frame the server sent (chat frames come between them)."""
        return next(f for f in reversed(self.frames) if f.get("type") == "state")

    def push(self, **fields: Any) -> None:
        """The last state frame again, with `fields` added."""
        assert self.route is not None
        self.route.send(json.dumps({**self.last_state(), **fields}))


def open_wired(new_page: PageFactory, base: str, user: User, table: Table) -> tuple[Page, Wire]:
    page = new_page(viewport={"width": 1280, "height": 800})
    wire = Wire(page)
    log_in(page, base, user)
    page.goto(f"{base}/tables/{table.pk}/")
    expect(page.locator(f".player[data-player={user.username}] .dot.on")).to_have_count(1)
    return page, wire


def move(version: int, kind: str, text: str, player: str = "ann", **more: Any) -> dict[str, Any]:
    return {"version": version, "hand": 1, "kind": kind, "player": player, "text": text, **more}


def test_the_move_log_appends_by_version_and_syncs_on_a_gap(
    new_page: PageFactory, asgi_server: str
) -> None:
    ann, bob = players("ann", "bob")
    table = started_table([ann, bob])
    page, wire = open_wired(new_page, asgi_server, ann, table)
    log = page.get_by_role("log", name="Moves")
    served = [m for f in wire.frames if f.get("type") == "state" for m in f.get("moves", [])]
    assert served and served[0]["kind"] == "deal"  # the server's own moves, drawn as they came
    expect(log.locator("li")).to_have_count(len(served))
    shown, v = len(served), max(m["version"] for m in served) + 1

    drew, threw = move(v, "draw", "you drew 7\u2663"), move(v + 1, "discard", "you threw 7\u2663")
    wire.push(moves=[drew, threw], moves_since=v - 1)
    expect(log.locator("li").nth(shown)).to_have_text("you drew 7\u2663")
    wire.push(moves=[threw, move(v + 2, "draw", "bob drew", "bob")], moves_since=v)
    expect(log.locator("li")).to_have_count(shown + 3)  # version v + 1 is not drawn twice
    ended = move(v + 3, "hand_over", "hand 1: ann went out (+45, bob -30)")
    wire.push(moves=[ended], moves_since=v + 2)
    expect(log.locator("li.end")).to_have_text("hand 1: ann went out (+45, bob -30)")
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "desktop-moves.png"))

    before = len(wire.sent)
    missed = move(v + 9, "draw", "bob drew from the stock", "bob")
    wire.push(moves=[missed], moves_since=v + 7)  # v + 4 to v + 7 never came
    expect(log.locator("li")).to_have_count(shown + 4)
    for _ in range(50):
        if {"type": "sync"} in wire.sent[before:]:
            break
        page.wait_for_timeout(50)
    assert {"type": "sync"} in wire.sent[before:]

    timeout = move(v + 4, "timeout", "your time ran out: the server drew and discarded 7\u2663")
    wire.push(moves=[timeout], moves_since=v + 3)
    expect(page.locator("#notice")).to_have_text(timeout["text"])


def test_the_break_shows_the_last_hand_and_counts_down(
    new_page: PageFactory, asgi_server: str
) -> None:
    ann, bob = players("ann", "bob")
    table = started_table([ann, bob])
    page, wire = open_wired(new_page, asgi_server, ann, table)
    expect(page.locator("#break")).to_be_hidden()
    last_hand = {
        "number": 1,
        "went_out": "ann",
        "melds": [
            {
                "id": 1,
                "kind": "set",
                "cards": [{"card": c, "by": "ann"} for c in ("7S", "7H", "7D")],
            },
        ],
        "left": {"ann": [], "bob": ["KD", "*"]},
        "scores": {
            "ann": {"melded": 21, "in_hand": 0, "net": 21},
            "bob": {"melded": 0, "in_hand": 25, "net": -25},
        },
        "totals": {"ann": 21, "bob": -25},
    }
    ends = (timezone.now() + timedelta(seconds=6)).isoformat()
    clock = {**wire.last_state()["clock"], "break_ends": ends, "between_hands_seconds": 8}
    wire.push(last_hand=last_hand, clock=clock)
    panel = page.locator("#break")
    expect(panel).to_be_visible()
    expect(panel.locator("h2")).to_have_text("Hand 1 is over: ann went out")
    expect(panel.locator("#break-countdown")).to_have_text(
        re.compile(r"next hand starts in \d seconds")
    )
    row = panel.locator("tr[data-player=bob] td")
    expect(row).to_have_text(["", re.compile("K"), "0", "\u221225", "-25", "-25"])
    expect(panel.locator("tr[data-player=ann] .badge.out")).to_have_text("went out")
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "desktop-break.png"))
    expect(panel).to_be_hidden(timeout=10_000)  # the break is over


def test_game_over_shows_rating_changes_and_answers_a_rematch(
    new_page: PageFactory, asgi_server: str
) -> None:
    users = players("gus", "hal", "ivy")
    table = started_table(users, overrides={"target": 60, "turn_seconds": 600})
    play_greedy(table, users, until=lambda t: t.status == Table.Status.FINISHED)
    page, wire = open_wired(new_page, asgi_server, users[1], table)
    expect(page.locator("#result")).to_be_visible()
    # An unrated table's ratings are null: no table of changes; no offer yet: Rematch only.
    expect(page.locator("#rating-changes")).to_have_count(0)
    expect(page.locator("#rematch button")).to_have_text(["Rematch"])

    ratings = {
        "gus": {"before": 1500, "after": 1512, "change": 12, "provisional": True},
        "hal": {"before": 1500, "after": 1497, "change": -3, "provisional": True},
        "ivy": {"before": 1500, "after": 1491, "change": -9, "provisional": False},
    }
    expires = (timezone.now() + timedelta(seconds=60)).isoformat()
    offer = {"accepted": ["gus"], "declined": [], "expires": expires, "table": None}
    wire.push(ratings=ratings, rematch=offer)
    changes = page.locator("#rating-changes")
    # Chance: of finishing first, from the ratings before the game (all three new: even).
    expect(changes.locator("tr[data-player=gus] td")).to_have_text(["33 %", "+12", "1512?"])
    expect(changes.locator("tr[data-player=ivy] td")).to_have_text(["33 %", "-9", "1491"])
    expect(changes.get_by_role("link", name="hal")).to_have_attribute("href", "/players/hal/")
    expect(page.locator(".rematch-state")).to_contain_text("accepted: gus")
    page.screenshot(path=str(SHOTS / "desktop-game-over-rematch.png"))
    page.get_by_role("button", name="Decline").click()
    for _ in range(50):
        if any(m.get("type") == "rematch" for m in wire.sent):
            break
        page.wait_for_timeout(50)
    sent = next(m for m in wire.sent if m.get("type") == "rematch")
    assert sent["accept"] is False

    wire.push(ratings=ratings, rematch={**offer, "declined": ["hal"]})
    expect(page.locator(".rematch-state")).to_contain_text("the rematch is off")
    expect(page.locator("#rematch button")).to_have_count(0)

    expect(page.get_by_role("link", name="Replay")).to_have_attribute(
        "href", f"/tables/{table.pk}/replay/"
    )
    again = started_table(players("gus2", "hal2"))  # stands for the rematch's new table
    wire.push(
        ratings=ratings, rematch={**offer, "accepted": ["gus", "hal", "ivy"], "table": again.pk}
    )
    expect(page).to_have_url(re.compile(rf"/tables/{again.pk}/$"))  # every open page goes there
