"""The waiting table's Join, Leave and Start forms appear and vanish as the server says: each
frame's ``actions`` (the services' own checks, per viewer), never a guess of the page's."""

import pytest
from playwright.sync_api import Locator, Page, expect

from accounts.models import Club, ClubMembership, User
from games import services
from games.models import Table
from tests.browser.pages import PageFactory, log_in
from tests.games.tables import players

pytestmark = pytest.mark.django_db(transaction=True)


def watch(page: Page, base: str, user: User, table: Table) -> Page:
    log_in(page, base, user)
    page.goto(f"{base}/tables/{table.pk}/")
    return page


def forms(page: Page) -> dict[str, Locator]:
    return {name: page.locator(f"#{name}-form") for name in ("join", "leave", "start")}


def expect_offers(page: Page, *shown: str) -> None:
    for name, form in forms(page).items():
        if name in shown:
            expect(form).to_be_visible()
        else:
            expect(form).to_be_hidden()


def test_the_forms_follow_the_server_as_seats_change_hands(
    new_page: PageFactory, asgi_server: str
) -> None:
    ann, bob, cid = players("ann", "bob", "cid")
    table = services.table_create(creator=ann, ruleset="standard", seats=3)
    services.table_join(table_id=table.pk, user=bob)
    at_bob = watch(new_page(), asgi_server, bob, table)
    at_cid = watch(new_page(), asgi_server, cid, table)
    expect_offers(at_bob, "leave")  # seated, not the creator
    expect_offers(at_cid, "join")

    # The creator leaves: the table is Bob's now, but one seated cannot start it.
    services.table_leave(table_id=table.pk, user=ann)
    expect(at_bob.locator("#seat-list li")).to_have_text(["bob"])
    expect_offers(at_bob, "leave")

    at_cid.get_by_role("button", name="Join").click()
    expect(at_cid.locator("#seat-list li")).to_have_text(["bob", "cid"])
    expect_offers(at_cid, "leave")
    # Bob was handed the table after his page loaded: the server's word, not the page's memory
    # of who created it, shows him Start.
    expect_offers(at_bob, "leave", "start")

    at_bob.get_by_role("button", name="Start the game").click()
    for page in (at_bob, at_cid):
        expect(page.locator("#game")).to_be_visible()
        expect(page.locator("#waiting")).to_be_hidden()


def test_a_club_table_offers_a_seat_to_its_members_only(
    new_page: PageFactory, asgi_server: str
) -> None:
    ann, dan, eve = players("ann", "dan", "eve")
    club = Club.objects.create(name="Hearts", slug="hearts")
    for member in (ann, dan):
        ClubMembership.objects.create(club=club, user=member)
    table = services.table_create(creator=ann, ruleset="standard", seats=4, club=club)
    at_dan = watch(new_page(), asgi_server, dan, table)
    at_eve = watch(new_page(), asgi_server, eve, table)
    expect_offers(at_dan, "join")
    expect_offers(at_eve)  # the service refuses an outsider: the page offers nothing

    # Eve joins the club; the next change of the table tells her page she may sit.
    ClubMembership.objects.create(club=club, user=eve)
    services.table_join(table_id=table.pk, user=dan)
    expect(at_eve.locator("#seat-list li")).to_have_text(["ann", "dan"])
    expect_offers(at_eve, "join")
    expect_offers(at_dan, "leave")
