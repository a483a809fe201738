"""Browser tests: Playwright driving the system's Chromium against pytest-django's live server.

The browser is Debian's ``chromium`` package (or ``CHROMIUM_PATH``); nothing is downloaded. On a
machine without it these tests are deselected with a notice, except under ``REQUIRE_SERVICES=1``
(CI), where a missing browser stops the run: CI installs Chromium, so nothing passes silently.

pytest-django's ``live_server`` speaks WSGI only, so ``asgi_server`` serves the ASGI application
with uvicorn in a thread of the test process: the thread shares the test database (a file under
SQLite, see config/settings/test.py) and the in-memory channel layer.
"""

import asyncio
import os
import shutil
import socket
import threading
from collections.abc import Iterator

import pytest
from channels.layers import channel_layers
from playwright.sync_api import Browser, BrowserContext, Page

from config.push import set_server_loop
from tests.browser.pages import PageFactory

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


async def _settle() -> None:
    """Cancels and awaits every other task of the running loop, then waits for the database
    calls its threads still make."""
    leftover = asyncio.all_tasks() - {asyncio.current_task()}
    for task in leftover:
        task.cancel()
    await asyncio.gather(*leftover, return_exceptions=True)
    await asyncio.get_running_loop().shutdown_default_executor()


@pytest.fixture
def asgi_server(transactional_db: None) -> Iterator[str]:
    """The project's ASGI application (HTTP and WebSocket) on a free local port."""
    import uvicorn

    from config.asgi import application

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    config = uvicorn.Config(
        application, lifespan="off", log_level="warning", ws="websockets-sansio"
    )
    server = uvicorn.Server(config)
    loop = asyncio.new_event_loop()
    # Pushes made in this thread (tables set up by a test) go to the server's loop, where the
    # in-memory layer's queues live; this thread's own loop is Playwright's.
    set_server_loop(loop)

    def serve() -> None:
        # The loop is closed in its own thread: channels-redis flushes its layer when a loop
        # closes, running it to completion, which cannot happen from Playwright's thread.
        try:
            loop.run_until_complete(server.serve(sockets=[sock]))
        finally:
            # What the server left behind ends before the loop does: tasks it did not await
            # are cancelled and awaited, and the loop's threads finish their database calls,
            # so nothing of this test still runs when its database is flushed.
            loop.run_until_complete(_settle())
            loop.close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    started = threading.Event()
    for _ in range(200):  # uvicorn sets `started` once it listens
        if server.started:
            break
        started.wait(0.05)
    assert server.started, "uvicorn did not start"
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(timeout=60)
    sock.close()
    # The server's loop is gone: later pushes must not be handed to it, and the in-memory
    # layer's queues belonged to it.
    set_server_loop(None)
    channel_layers.backends.clear()


@pytest.fixture
def new_page(browser: Browser, asgi_server: str) -> Iterator[PageFactory]:
    """Pages in fresh browser contexts (a visitor each), closed while the server still runs so
    their sockets' disconnects are handled before the database is flushed."""
    contexts: list[BrowserContext] = []

    def make(**options: object) -> Page:
        context = browser.new_context(**options)
        contexts.append(context)
        page = context.new_page()
        page.set_default_timeout(15_000)
        return page

    yield make
    for context in contexts:
        context.close()
