"""An event toured through every state (draft, registration open, check-in open, running,
finished) in real browsers as four people: a player who goes on to win, a player knocked out in
the semi-finals, the organizer, and a visitor who is not logged in. At each state each of them
reads the status line, their own box and the buttons it offers, exactly (issue 17: a finished
single elimination once said "Final (finished) · 4 playing", called every player "Playing", told
a knocked-out player "You are playing" with a Withdraw button and a visitor "Log in to
register"). The organizer reorders the seeding before the start, and the create form shows only
the chosen format's fields. Screenshots of every page go to ``test-artifacts/tour/`` at
1280x800 and 390x844."""

from __future__ import annotations

import random

import pytest
from playwright.sync_api import Page, expect

from accounts.models import User
from tests.accounts.factories import UserFactory
from tests.browser.pages import PageFactory, log_in
from tests.browser.test_table import ARTIFACTS
from tests.tournaments.factories import decide_round, round_of, run_hooks
from tournaments.entries import entry_check_in, entry_register
from tournaments.models import Tournament
from tournaments.simulation import play_table

pytestmark = pytest.mark.django_db(transaction=True)

SHOTS = ARTIFACTS / "tour"
SIZES = ((1280, 800), (390, 844))


def shoot(page: Page, name: str) -> None:
    """The page at both sizes, whole, for a person to look at."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    for width, height in SIZES:
        page.set_viewport_size({"width": width, "height": height})
        page.screenshot(path=str(SHOTS / f"{name}-{width}.png"), full_page=True)
    page.set_viewport_size({"width": 1280, "height": 800})


class Tour:
    """The four people's pages, and what each must read."""

    def __init__(self, base: str, pages: dict[str, Page], event: Tournament) -> None:
        self.base, self.pages, self.event = base, pages, event

    def open(self, who: str) -> Page:
        page = self.pages[who]
        page.goto(self.base + self.event.get_absolute_url())
        return page

    def reads(
        self, who: str, state: str, status: str, message: str, buttons: tuple[str, ...] = ()
    ) -> Page:
        """``who``'s page says ``status`` and ``message`` exactly and offers exactly
        ``buttons`` in their own box; a screenshot of it."""
        page = self.open(who)
        expect(page.locator("#status-text")).to_have_text(status)
        expect(page.locator("#you-message")).to_have_text(message)
        expect(page.locator("#you button")).to_have_text(list(buttons))
        login = page.locator("#you-login")
        if who == "visitor" and state == "registration":
            expect(login).to_have_text("Log in to register.")
        else:
            expect(login).to_have_count(0)
        shoot(page, f"event-{state}-{who}")
        return page

    def statuses(self, who: str, expected: dict[str, str]) -> None:
        page = self.pages[who]
        for name, status in expected.items():
            expect(page.locator(f"#entry-{name} .standing")).to_have_text(status)


def test_an_event_reads_right_in_every_state_for_everyone(
    new_page: PageFactory, asgi_server: str
) -> None:
    director = UserFactory(username="director", is_staff=True)
    ann, dan = UserFactory(username="ann"), UserFactory(username="dan")
    others = [UserFactory(username=name) for name in ("bob", "cid")]
    pages = {"visitor": new_page()}
    for who, user in (("ann", ann), ("dan", dan), ("organizer", director)):
        pages[who] = new_page()
        log_in(pages[who], asgi_server, user)

    event = create_from_the_form(pages["organizer"], asgi_server)
    tour = Tour(asgi_server, pages, event)
    draft(tour)
    registration(tour, ann, dan, others)
    check_in(tour, ann, dan, others)
    running(tour, director)
    finished(tour)


def create_from_the_form(page: Page, base: str) -> Tournament:
    """The create form shows only the chosen format's fields: Swiss asks for rounds, a single
    elimination for a third-place match."""
    page.goto(base + "/events/new/")
    page.get_by_label("Name").fill("Tour night")
    page.get_by_label("Target").fill("50")
    page.get_by_label("Format").select_option("swiss")
    expect(page.locator("#field-rounds")).to_be_visible()
    expect(page.locator("#field-third_place")).to_be_hidden()
    expect(page.locator("#field-placement_points")).to_be_hidden()
    shoot(page, "create-swiss")
    page.get_by_label("Format").select_option("round_robin")
    expect(page.locator("#field-double_round")).to_be_visible()
    expect(page.locator("#field-placement_points")).to_be_visible()
    expect(page.locator("#field-rounds")).to_be_hidden()
    shoot(page, "create-round-robin")
    page.get_by_label("Format").select_option("single_elimination")
    expect(page.locator("#field-third_place")).to_be_visible()
    expect(page.locator("#field-rounds")).to_be_hidden()
    expect(page.locator("#field-min_table")).to_be_hidden()
    page.get_by_role("button", name="Create event").click()
    expect(page.locator(".messages")).to_contain_text("Tour night is created, in draft")
    return Tournament.objects.get(name="Tour night")


def draft(tour: Tour) -> None:
    status = "Draft · registration has not opened"
    tour.reads("organizer", "draft", status, "Registration has not opened yet.")
    for who in ("visitor", "ann"):  # a draft is its organizers' only
        response = tour.pages[who].goto(tour.base + tour.event.get_absolute_url())
        assert response is not None and response.status == 404
    page = tour.open("organizer")
    page.get_by_role("button", name="Open registration").click()
    expect(page.locator(".messages")).to_contain_text("Registration is open.")


def registration(tour: Tour, ann: User, dan: User, others: list[User]) -> None:
    for user in [*others, dan]:
        entry_register(event_id=tour.event.pk, user=user)
    status = "Registration open · 3 registered"
    tour.reads("visitor", "registration", status, "Registration is open.")
    page = tour.reads("ann", "registration", status, "Registration is open.", ("Register",))
    page.get_by_role("button", name="Register").click()
    expect(page.locator(".messages")).to_contain_text("You are registered for Tour night.")
    status = "Registration open · 4 registered"
    tour.reads(
        "ann",
        "registration-registered",
        status,
        "You are registered; check-in opens before the start.",
        ("Withdraw",),
    )
    tour.reads("organizer", "registration", status, "Registration is open.", ("Register",))
    seeding(tour)


def seeding(tour: Tour) -> None:
    """Seeded by rating (all equal: in the order they registered); the organizer moves ann up,
    so the semi-finals are bob against dan and cid against ann."""
    page = tour.open("organizer")
    rows = page.locator("#seeding .seed-list li .name")
    expect(rows).to_have_text(["bob", "cid", "dan", "ann"])
    shoot(page, "seeding-editor")
    page.get_by_role("button", name="Move ann up").click()
    expect(page.locator(".messages")).to_contain_text("ann is seed 3 now.")
    expect(rows).to_have_text(["bob", "cid", "ann", "dan"])
    expect(page.locator("#seeding h3")).to_have_text("Seeding by hand")
    shoot(page, "seeding-moved")


def check_in(tour: Tour, ann: User, dan: User, others: list[User]) -> None:
    page = tour.open("organizer")
    page.get_by_role("button", name="Open check-in").click()
    expect(page.locator(".messages")).to_contain_text("Check-in is open")
    status = "Check-in open · 4 registered, 0 checked in"
    closed = "Registration is closed: check-in is open to the registered players."
    tour.reads("visitor", "check-in", status, closed)
    prompt = "Check in to play: whoever has not checked in when the event starts is left out."
    page = tour.reads("ann", "check-in", status, prompt, ("Check in", "Withdraw"))
    page.get_by_role("button", name="Check in").click()
    expect(page.locator(".messages")).to_contain_text("You are checked in.")
    for user in [*others, dan]:
        entry_check_in(event_id=tour.event.pk, user=user)
    status = "Check-in open · 4 registered, 4 checked in"
    waiting = "You are checked in: your first table opens here at the start."
    tour.reads("ann", "check-in-checked-in", status, waiting, ("Withdraw",))
    tour.reads("dan", "check-in", status, waiting, ("Withdraw",))
    tour.reads("organizer", "check-in", status, closed)


def running(tour: Tour, director: User) -> None:
    page = tour.open("organizer")
    page.get_by_role("button", name="Start the event").click()
    expect(page.locator(".messages")).to_contain_text("The event has started.")
    status = "Running · Semi-finals: running · 4 playing"
    under_way = "Registration is closed: the event is under way."
    tour.reads("visitor", "running", status, under_way)
    tour.reads("ann", "running", status, "You are playing.", ("Withdraw",))
    tour.reads("dan", "running", status, "You are playing.", ("Withdraw",))
    tour.statuses("dan", dict.fromkeys(("ann", "bob", "cid", "dan"), "Playing"))
    tour.reads("organizer", "running", status, under_way)
    decide_round(tour.event, 1, director)  # alphabetical order wins: bob and ann go through
    status = "Running · Final: running · 2 playing, 2 knocked out"
    out = "You are knocked out: the event goes on without you."
    tour.reads("visitor", "running-final", status, under_way)
    tour.reads("ann", "running-final", status, "You are playing.", ("Withdraw",))
    tour.reads("dan", "running-final", status, out)
    expected = {"ann": "Playing", "bob": "Playing", "cid": "Knocked out", "dan": "Knocked out"}
    tour.statuses("dan", expected)
    tour.reads("organizer", "running-final", status, under_way)


def finished(tour: Tour) -> None:
    """The final is played out by bots: its game points go into the bracket."""
    final = round_of(tour.event, 2).tables.get()
    assert final.table is not None
    play_table(final.table, random.Random(5))
    run_hooks(final.table.pk)
    tour.event.refresh_from_db()
    assert tour.event.champion is not None
    champion = tour.event.champion.username
    second = "bob" if champion == "ann" else "ann"
    status = f"Finished · won by {champion} · 4 players"
    tour.reads("visitor", "finished", status, "This event is finished.")
    mine = "You won the event." if champion == "ann" else "You finished in 2nd place."
    tour.reads("ann", "finished", status, mine)
    tour.reads("dan", "finished", status, "You finished in 3rd place.")
    tour.reads("organizer", "finished", status, "This event is finished.")
    expected = {champion: "Winner", second: "2nd place", "cid": "3rd place", "dan": "3rd place"}
    tour.statuses("organizer", expected)
    page = tour.pages["organizer"]
    scores = page.locator("#match-W2-1 .score")
    expect(scores).to_have_count(2)
    points = sorted(int(s) for s in scores.all_text_contents())
    assert points[-1] >= 50  # the winner's total reached the target
    shoot(page, "bracket-scores")
