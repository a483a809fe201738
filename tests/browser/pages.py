"""Helpers of the browser tests: the page factory's type and logging a factory user in."""

from collections.abc import Callable

from playwright.sync_api import Page, expect

from accounts.models import User
from tests.accounts.factories import PASSWORD as FACTORY_PASSWORD

# ``new_page(**context_options)``: a page in a fresh browser context (conftest.py).
PageFactory = Callable[..., Page]


def log_in(page: Page, base: str, user: User) -> None:
    page.goto(base + "/accounts/login/")
    page.locator("#id_username").fill(user.username)
    page.locator("#id_password").fill(FACTORY_PASSWORD)
    page.get_by_role("button", name="Log in").click()
    expect(page.locator(".who")).to_have_text(user.username)
