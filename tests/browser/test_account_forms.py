"""The sign-up and log-in pages look like the rest of the site (the lobby's table form: the
same buttons, errors in red, a refusal of the whole form in a box), at a desktop's size and a
phone's, and the signed-in user's name in the header leads to their player page."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.accounts.factories import UserFactory
from tests.browser.pages import PageFactory, log_in
from tests.browser.test_table import ARTIFACTS

pytestmark = pytest.mark.django_db(transaction=True)

SIZES = {"desktop": (1280, 800), "phone": (390, 844)}


def shoot(page: Page, name: str) -> None:
    """A screenshot for a person to look at (test-artifacts/ is ignored by git)."""
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


def look(page: Page, selector: str) -> dict[str, str]:
    return page.locator(selector).first.evaluate(
        """el => { const s = getComputedStyle(el);
                   return {background: s.backgroundColor, color: s.color,
                           radius: s.borderRadius, font: s.fontSize}; }"""
    )


def fits(page: Page) -> bool:
    """Nothing wider than the window: no sideways scrolling."""
    root = "document.documentElement"
    return bool(page.evaluate(f"{root}.scrollWidth <= {root}.clientWidth"))


@pytest.mark.parametrize("size", SIZES)
def test_the_account_forms_look_like_the_lobbys(
    new_page: PageFactory, asgi_server: str, size: str
) -> None:
    width, height = SIZES[size]
    ann = UserFactory(username="ann")
    page = new_page(viewport={"width": width, "height": height})
    log_in(page, asgi_server, ann)
    page.goto(asgi_server + "/tables/")
    lobby_button = look(page, "form.create-table button[type=submit]")
    page.get_by_role("button", name="Log out").click()

    page.goto(asgi_server + "/accounts/login/")
    page.locator("#id_username").fill("ann")
    page.locator("#id_password").fill("not her password")
    page.get_by_role("button", name="Log in").click()
    refusal = page.locator("form.site-form .errorlist.nonfield")
    expect(refusal).to_be_visible()
    assert look(page, "form.site-form button[type=submit]") == lobby_button
    assert look(page, "form.site-form .errorlist.nonfield")["background"] == "rgb(254, 226, 226)"
    assert fits(page)
    shoot(page, f"account-login-refused-{size}")

    page.goto(asgi_server + "/accounts/signup/")
    page.locator("#id_username").fill("ann")  # taken
    page.locator("#id_email").fill("ann@example.com")
    page.locator("#id_password1").fill("a long enough password 1")
    page.locator("#id_password2").fill("a different password 2")
    page.get_by_role("button", name="Create account").click()
    errors = page.locator("form.site-form .errorlist")
    expect(errors.first).to_be_visible()
    assert errors.count() == 2  # the name taken, the passwords unequal
    assert look(page, "form.site-form .errorlist")["color"] == "rgb(185, 28, 28)"
    assert look(page, "form.site-form button[type=submit]") == lobby_button
    # Every field keeps its label.
    for field in ("id_username", "id_email", "id_password1", "id_password2"):
        expect(page.locator(f"label[for={field}]")).to_be_visible()
    assert fits(page)
    shoot(page, f"account-signup-refused-{size}")


def test_the_name_in_the_header_leads_to_the_players_page(
    new_page: PageFactory, asgi_server: str
) -> None:
    ann = UserFactory(username="ann")
    page = new_page()
    log_in(page, asgi_server, ann)
    page.get_by_role("link", name="ann", exact=True).click()
    expect(page).to_have_url(asgi_server + "/players/ann/")
    expect(page.get_by_role("heading", level=1)).to_contain_text("ann")
