"""bench/tournaments.py: its seeded history, and quick runs' JSON shape: the pairing part (no
database) and the simulate part (a database of its own: PostgreSQL where it answers, else
SQLite). The times are reported, never asserted."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from bench import tournaments
from tournaments.formats import Settings

ROOT = Path(__file__).resolve().parent.parent.parent
ROUND = {"round", "tables", "next_round_ms", "standings_ms"}


def run_bench(*args: str) -> dict[str, Any]:
    command = [sys.executable, "bench/tournaments.py", *args]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    figures: dict[str, Any] = json.loads(done.stdout)
    return figures


def test_the_history_is_seeded_and_as_long_as_asked() -> None:
    entrants = tournaments.field(64)
    assert sorted(e.seed for e in entrants) == list(range(1, 65))
    settings = Settings()
    first = tournaments.history("swiss", entrants, settings, 3)
    again = tournaments.history("swiss", entrants, settings, 3)
    assert len(first) == 3 and first == again


def test_a_quick_run_times_every_format() -> None:
    result = run_bench("--quick", "--part", "pairing")
    assert result["players"] == 1_000 and result["repeats"] == 3
    pairing = result["pairing"]
    names = [name for name, *_ in tournaments.CASES]
    assert list(pairing["formats"]) == names
    for name, slug, settings, later in tournaments.CASES:
        figures = pairing["formats"][name]
        assert figures["format"] == slug and figures["table_size"] == settings.table_size
        assert set(figures["first"]) == ROUND and set(figures["later"]) == ROUND
        assert figures["first"]["round"] == 1 and figures["later"]["round"] == later
        assert figures["first"]["tables"] > 0 and figures["later"]["tables"] > 0
        assert all(figures[r][k] >= 0 for r in ("first", "later") for k in ROUND)
    assert isinstance(pairing["target_met"], bool)
    assert pairing["target_next_round_ms_under"] == 1000.0


def test_a_part_can_be_chosen() -> None:
    result = run_bench("--quick", "--part", "pairing")
    assert set(result) == {"python", "implementation", "players", "repeats", "pairing"}


def test_a_quick_simulation_plays_both_four_seat_formats_to_a_champion() -> None:
    result = run_bench("--quick", "--part", "simulate")
    figures = result["simulate"]
    assert (figures["players"], figures["table_size"], figures["target"]) == (16, 4, 100)
    assert figures["database"] in ("postgresql", "sqlite")
    for slug in tournaments.SIMULATED:
        run = figures[slug]
        assert run["champion_found"] is True and run["rounds"] >= 2 and run["tables"] >= 4
        assert run["wall_s"] > 0 and run["s_per_table"] > 0
