"""The table page's weight and drawing time: prints one JSON object on stdout.

Run from the repository root: ``python bench/table_page.py [--frames N]``. It needs Debian's
Chromium (``CHROMIUM_PATH`` or ``chromium`` on the PATH) and nothing else: the site runs in this
process on a throwaway SQLite database (embedded mode), with no server listening.

- ``js`` / ``css``: the bytes of what the table page loads, raw and gzipped (level 9): every
  module ``static/js/table.js`` imports, and ``site.css`` with ``table.css``. The budget
  (shared/TABLE_UI.md): at most 60 KB of JavaScript and 20 KB of CSS, gzipped.
- ``draw_ms``: an eight-seat table's page, as the first seat sees it mid-game, opened in Chromium
  with the requests answered from Django's test client and the WebSocket answered by this
  script. ``--frames`` state frames are then pushed, each a newer version with the turn moved on
  and connections changed; the time of each is measured in the page from the socket's message
  event to the end of a forced layout (``performance.now``): median, p95 and max. The budget is
  one frame, 16 ms.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import re
import shutil
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

STATIC = ROOT / "static"
JS_BUDGET = 60 * 1024
CSS_BUDGET = 20 * 1024
BASE = "http://bench.invalid"

# Wrap each socket's message listeners: the time from a message to the page laid out again.
MEASURE = """
window.__draws = [];
const add = EventTarget.prototype.addEventListener;
EventTarget.prototype.addEventListener = function (type, listener, options) {
  // Any socket, the browser's or the test harness's stand-in: it has `send` and `readyState`.
  const socket = "send" in this && "readyState" in this;
  if (type !== "message" || !socket) return add.call(this, type, listener, options);
  return add.call(this, type, (event) => {
    const start = performance.now();
    listener(event);
    void document.body.offsetHeight;  // the layout the new DOM needs
    window.__draws.push(performance.now() - start);
  }, options);
};
"""


def modules(entry: Path) -> list[Path]:
    """``entry`` and every module it imports, transitively."""
    seen: list[Path] = []
    todo = [entry]
    while todo:
        path = todo.pop()
        if path in seen:
            continue
        seen.append(path)
        for name in re.findall(r'from "\./([\w.]+)"', path.read_text()):
            todo.append(path.parent / name)
    return sorted(seen)


def weight(paths: list[Path]) -> dict[str, Any]:
    data = b"".join(p.read_bytes() for p in paths)
    return {
        "files": [str(p.relative_to(ROOT)) for p in paths],
        "raw": len(data),
        "gzip": len(gzip.compress(data, compresslevel=9)),
    }


def eight_seat_page() -> tuple[str, dict[str, Any]]:
    """The page of a started eight-seat table as its first player gets it, and that player's
    state frame, from a fresh SQLite database."""
    from django.core.management import call_command
    from django.test import Client

    from accounts.models import User
    from games import services
    from games.models import Table
    from games.push import state_frame
    from games.selectors import table_seats

    call_command("migrate", verbosity=0)
    users = [User.objects.create_user(f"player{i}", password="x") for i in range(1, 9)]
    table = services.table_create(creator=users[0], ruleset="standard", seats=8)
    for user in users[1:]:
        services.table_join(table_id=table.pk, user=user)
    table = Table.objects.get(pk=table.pk)
    client = Client()
    client.force_login(users[0])
    answer = client.get(f"/tables/{table.pk}/")
    assert answer.status_code == 200, answer.status_code
    html = answer.content.decode()
    frame = state_frame(table, table_seats(table), users[0].username)
    return html, frame


def draw_times(html: str, frame: dict[str, Any], count: int) -> list[float]:
    from playwright.sync_api import Route, WebSocketRoute, sync_playwright

    def static(route: Route) -> None:
        path = STATIC / route.request.url.split("/static/", 1)[1].split("?")[0]
        kind = "text/css" if path.suffix == ".css" else "text/javascript"
        route.fulfill(body=path.read_bytes(), content_type=kind)

    sockets: list[WebSocketRoute] = []
    chromium = os.environ.get("CHROMIUM_PATH") or shutil.which("chromium") or "chromium"
    with sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path=chromium, args=["--no-sandbox", "--disable-gpu"]
        )
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        page.add_init_script(MEASURE)
        if os.environ.get("BENCH_DEBUG"):
            page.on("console", lambda m: print("console:", m.text, file=sys.stderr))
            page.on("pageerror", lambda e: print("pageerror:", e, file=sys.stderr))
            page.on("requestfailed", lambda r: print("failed:", r.url, file=sys.stderr))
        page.route(f"{BASE}/static/**", static)
        page.route(f"{BASE}/tables/**", lambda r: r.fulfill(body=html, content_type="text/html"))
        page.route_web_socket(re.compile(r"/ws/tables/"), lambda ws: sockets.append(ws))
        page.goto(f"{BASE}/tables/1/")
        page.wait_for_function("document.querySelectorAll('.player').length === 8")
        names = [p["name"] for p in frame["view"]["players"]]
        for i in range(count):
            view = dict(frame["view"], turn=names[i % len(names)])
            view["players"] = [
                dict(p, connected=(j + i) % 3 != 0) for j, p in enumerate(view["players"])
            ]
            sockets[0].send(json.dumps(dict(frame, version=frame["version"] + i + 1, view=view)))
        page.wait_for_function(f"window.__draws.length >= {count}")
        times = list(page.evaluate("window.__draws"))
        browser.close()
    return times[-count:]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=200)
    args = parser.parse_args()

    js = weight(modules(STATIC / "js" / "table.js"))
    css = weight([STATIC / "css" / "site.css", STATIC / "css" / "table.css"])

    workdir = tempfile.mkdtemp(prefix="table-page-bench-")
    for name in ("DATABASE_URL", "REDIS_URL"):
        os.environ.pop(name, None)
    os.environ["SQLITE_PATH"] = os.path.join(workdir, "bench.sqlite3")
    os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings.development"
    os.environ.setdefault("DJANGO_SECRET_KEY", "bench-table-page-not-secret")
    os.environ.setdefault("DJANGO_ALLOWED_HOSTS", "testserver,bench.invalid")
    import django

    django.setup()
    try:
        html, frame = eight_seat_page()
        times = sorted(draw_times(html, frame, args.frames))
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    p95 = times[min(len(times) - 1, round(0.95 * (len(times) - 1)))]
    out = {
        "bench": "table_page",
        "js": js,
        "css": css,
        "budget": {"js_gzip": JS_BUDGET, "css_gzip": CSS_BUDGET, "draw_ms": 16},
        "within_budget": js["gzip"] <= JS_BUDGET and css["gzip"] <= CSS_BUDGET,
        "draw_ms": {
            "seats": 8,
            "frames": len(times),
            "median": round(statistics.median(times), 3),
            "p95": round(p95, 3),
            "max": round(times[-1], 3),
        },
    }
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
