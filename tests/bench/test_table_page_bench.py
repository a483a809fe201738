"""bench/table_page.py: the table page's weight within its budget, and a quick run of the drawing
time at an eight-seat table (wall-clock figures are reported, never asserted)."""

from __future__ import annotations

import os
import shutil

import pytest

from bench import table_page
from tests.bench.services import run_bench


def test_the_weight_counts_every_module_the_page_loads() -> None:
    files = {p.name for p in table_page.modules(table_page.STATIC / "js" / "table.js")}
    assert {
        "table.js",
        "cards.js",
        "render.js",
        "clock.js",
        "socket.js",
        "keys.js",
        "drag.js",
    } <= files
    assert {"log.js", "sounds.js"} <= files
    assert "event.js" not in files  # another page's


def test_a_quick_run() -> None:
    chromium = os.environ.get("CHROMIUM_PATH") or shutil.which("chromium")
    if not chromium:
        assert os.environ.get("REQUIRE_SERVICES") != "1", "no Chromium for the table page bench"
        pytest.skip("no Chromium on this machine")
    out = run_bench("table_page.py", "--frames", "20")
    assert out["js"]["gzip"] <= out["budget"]["js_gzip"] == 60 * 1024
    assert out["css"]["gzip"] <= out["budget"]["css_gzip"] == 20 * 1024
    assert out["within_budget"] is True
    draw = out["draw_ms"]
    assert (draw["seats"], draw["frames"]) == (8, 20)
    assert 0 < draw["median"] <= draw["p95"] <= draw["max"]
