"""A newcomer's path through the pages in a real browser: home, account pages, API docs, and
the error pages."""

import re
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from accounts.models import User
from tests.browser.pages import PageFactory
from tests.browser.test_account_forms import SIZES, fits, look, shoot

pytestmark = pytest.mark.django_db(transaction=True)

PASSWORD = "correct-horse-battery-42"
NEW_PASSWORD = "staple-orbit-lantern-77"


def sign_up(page: Page, base: str, username: str) -> None:
    page.goto(base + "/")
    page.get_by_role("link", name="Sign up").first.click()
    expect(page).to_have_url(re.compile(r"/accounts/signup/$"))
    page.locator("#id_username").fill(username)
    page.locator("#id_email").fill(f"{username}@example.com")
    page.locator("#id_password1").fill(PASSWORD)
    page.locator("#id_password2").fill(PASSWORD)
    page.get_by_role("button", name="Create account").click()


def log_in(page: Page, base: str, username: str, password: str) -> None:
    page.goto(base + "/accounts/login/")
    page.locator("#id_username").fill(username)
    page.locator("#id_password").fill(password)
    page.get_by_role("button", name="Log in").click()


def test_home_page_links_everywhere_a_newcomer_needs(page: Page, live_server) -> None:
    page.goto(live_server.url + "/")
    expect(page.get_by_role("heading", level=1)).to_contain_text("Rummy 500")
    for name in ("Sign up", "Log in", "API documentation", "Administration"):
        expect(page.get_by_role("link", name=name).first).to_be_visible()
    # The stylesheet is served (WhiteNoise in the app, static files in the live server).
    css = page.request.get(
        live_server.url + page.locator("link[rel=stylesheet]").first.get_attribute("href")
    )
    assert css.ok


def test_sign_up_log_out_log_in_and_change_password(page: Page, live_server) -> None:
    base = live_server.url
    sign_up(page, base, "ann")
    expect(page.locator(".who")).to_have_text("ann")
    assert User.objects.get(username="ann").email == "ann@example.com"

    page.get_by_role("button", name="Log out").click()
    expect(page.get_by_role("link", name="Log in").first).to_be_visible()

    log_in(page, base, "ann", PASSWORD)
    expect(page.locator(".who")).to_have_text("ann")

    page.get_by_role("link", name="Change password").click()
    page.locator("#id_old_password").fill(PASSWORD)
    page.locator("#id_new_password1").fill(NEW_PASSWORD)
    page.locator("#id_new_password2").fill(NEW_PASSWORD)
    page.get_by_role("button", name="Change password").click()
    expect(page).to_have_url(re.compile(r"/accounts/password/done/$"))
    assert User.objects.get(username="ann").check_password(NEW_PASSWORD)


def test_sign_up_refuses_a_taken_name_and_a_weak_password(page: Page, live_server) -> None:
    User.objects.create_user("bob", "bob@example.com", PASSWORD)
    sign_up(page, live_server.url, "bob")
    expect(page.locator("main")).to_contain_text("already exists")

    page.locator("#id_username").fill("cid")
    page.locator("#id_password1").fill("123")
    page.locator("#id_password2").fill("123")
    page.get_by_role("button", name="Create account").click()
    expect(page.locator("main")).to_contain_text("too short")
    assert not User.objects.filter(username="cid").exists()


def test_wrong_password_keeps_the_visitor_logged_out(page: Page, live_server) -> None:
    User.objects.create_user("dee", "dee@example.com", PASSWORD)
    log_in(page, live_server.url, "dee", "not-the-password")
    expect(page.locator("main")).to_contain_text("correct username and password")
    expect(page.locator(".who")).to_have_count(0)


def test_api_docs_render_from_local_assets_only(page: Page, live_server) -> None:
    requested: list[str] = []
    page.on("request", lambda request: requested.append(request.url))
    page.goto(live_server.url + "/api/docs/")
    # Swagger UI builds the operation list from /api/schema/ in the browser; building the schema
    # took over the default 5 s once while the whole suite ran in parallel, so it gets 30 s.
    expect(page.locator(".opblock-summary-path").first).to_be_visible(timeout=30_000)
    expect(page.locator("body")).to_contain_text("/api/auth/register/")
    outside = [url for url in requested if not url.startswith(live_server.url)]
    assert outside == [], f"the docs page fetched from outside the service: {outside}"


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize(
    ("path", "status", "heading"),
    [("/no-such-page/", 404, "Page not found"), ("/broken/", 500, "Something went wrong")],
)
def test_the_error_pages_look_like_the_site(
    new_page: PageFactory,
    asgi_server: str,
    settings: Any,
    size: str,
    path: str,
    status: int,
    heading: str,
) -> None:
    settings.ROOT_URLCONF = "tests.config.broken_urls"  # the site's routes and a failing page
    width, height = SIZES[size]
    page = new_page(viewport={"width": width, "height": height})
    page.goto(asgi_server + "/")
    site_header = look(page, ".site-header")
    response = page.goto(asgi_server + path)
    assert response is not None and response.status == status
    expect(page.get_by_role("heading", level=1)).to_have_text(heading)
    assert look(page, ".site-header") == site_header
    expect(page.get_by_role("link", name="Rummy 500")).to_be_visible()
    assert fits(page)
    shoot(page, f"error-{status}-{size}")
