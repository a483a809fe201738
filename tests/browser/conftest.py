"""Browser tests: Playwright driving the system's Chromium against pytest-django's live server.

The browser is Debian's ``chromium`` package (or ``CHROMIUM_PATH``); nothing is downloaded. On a
machine without it these tests are deselected with a notice, except under ``REQUIRE_SERVICES=1``
(CI), where a missing browser stops the run: CI installs Chromium, so nothing passes silently.
"""

import os
import shutil
from collections.abc import Iterator

import pytest

BROWSER_DIR = os.path.dirname(__file__)
# Chromium as root on a closed network: no sandbox, and no background calls to outside hosts.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def chromium_path() -> str | None:
    configured = os.environ.get("CHROMIUM_PATH")
    if configured:
        return configured if os.access(configured, os.X_OK) else None
    return shutil.which("chromium") or shutil.which("chromium-browser")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    browser_items = [i for i in items if str(i.path).startswith(BROWSER_DIR)]
    if not browser_items or chromium_path():
        return
    if os.environ.get("REQUIRE_SERVICES") == "1":
        raise pytest.UsageError("REQUIRE_SERVICES=1 but no Chromium found (set CHROMIUM_PATH)")
    config.hook.pytest_deselected(items=browser_items)
    items[:] = [i for i in items if i not in browser_items]
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None:
        reporter.write_line(
            f"browser tests: {len(browser_items)} deselected, no Chromium on this machine "
            "(apt-get install chromium, or set CHROMIUM_PATH)"
        )


# Module scope, not session: Playwright's sync API keeps an event loop running in this thread
# while it is open, and the async tests that follow need the thread's loop free again.
@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    # Playwright's sync API runs an event loop in this thread; the ORM calls the tests make
    # between page steps are still plain synchronous ones.
    os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser: object) -> Iterator[object]:
    context = browser.new_context()  # type: ignore[attr-defined]
    pg = context.new_page()
    pg.set_default_timeout(15_000)
    yield pg
    context.close()
