"""Golden scenarios: the engine against hand-computed expectations from the written rules.

Every file in ``tests/data/scenarios/`` is one scenario in the replay format of PROTOCOL.md
("The replay tool") plus two keys of its own: ``description`` (the rule it pins) and ``expect``.
The expectations were written from RULES.md, PROTOCOL.md and docs/engine-decisions.md alone,
never from the engine's code, so this suite is the conformance check of ``games/engine``.

``expect`` holds:

- ``results``: one entry per action; only ``ok`` and ``error`` are compared, never ``message``.
- ``state``: a *subset* of the final full state. A dict matches when every key it lists matches;
  a list matches only with the same length, element by element (recursively).
- ``hands`` (optional): ``{player: [cards]}`` compared as multisets, because neither spec fixes
  the order of the cards in a hand.
- ``hand_sizes``, ``stock_size``, ``discard_size`` (optional): sizes only, for seeded deals and
  reshuffles whose card order depends on the shuffle.
- ``error: true`` instead of all that: the file is inconsistent and must be refused with
  ``ScenarioError`` (the CLI exits non-zero with a message on stderr).
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from games.engine.replay import ScenarioError, run_scenario

ROOT = Path(__file__).resolve().parents[3]
SCENARIOS = ROOT / "tests" / "data" / "scenarios"
FILES = sorted(SCENARIOS.glob("*.json"))
NOT_INPUT = ("expect", "description")


@pytest.fixture(autouse=True)
def _clear_cache() -> None:
    """Override the suite-wide cache reset: the engine needs no Django, so neither do we."""


def load(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text())


def scenario_input(doc: dict[str, Any]) -> dict[str, Any]:
    """The scenario as the replay tool reads it: without our own keys."""
    return {k: v for k, v in doc.items() if k not in NOT_INPUT}


def mismatch(expected: Any, actual: Any, where: str) -> str | None:
    """Where ``actual`` fails to contain ``expected`` (recursive subset), or None."""
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return f"{where}: expected an object, got {actual!r}"
        for key, value in expected.items():
            if key not in actual:
                return f"{where}.{key}: missing (expected {value!r})"
            found = mismatch(value, actual[key], f"{where}.{key}")
            if found:
                return found
        return None
    if isinstance(expected, list):
        if not isinstance(actual, list) or len(actual) != len(expected):
            return f"{where}: expected {expected!r}, got {actual!r}"
        for i, (exp, act) in enumerate(zip(expected, actual, strict=True)):
            found = mismatch(exp, act, f"{where}[{i}]")
            if found:
                return found
        return None
    if expected != actual or isinstance(expected, bool) != isinstance(actual, bool):
        return f"{where}: expected {expected!r}, got {actual!r}"
    return None


def player_hands(state: dict[str, Any]) -> dict[str, list[str]]:
    return {p["name"]: p["hand"] for p in state["players"]}


def check_results(expected: list[dict[str, Any]], actual: list[dict[str, Any]]) -> None:
    got = [{k: r.get(k) for k in ("ok", "error") if k in r} for r in actual]
    want = [{k: r.get(k) for k in ("ok", "error") if k in r} for r in expected]
    for r in got:
        if r.get("ok"):
            r.pop("error", None)
    messages = [r.get("message") for r in actual]
    assert got == want, f"results differ\n want {want}\n got  {got}\n messages {messages}"


def check_outcome(expect: dict[str, Any], outcome: dict[str, Any]) -> None:
    check_results(expect["results"], outcome["results"])
    state = outcome["state"]
    found = mismatch(expect.get("state", {}), state, "state")
    assert found is None, found
    hands = player_hands(state)
    for name, cards in expect.get("hands", {}).items():
        assert Counter(hands[name]) == Counter(cards), f"hand of {name}: {hands[name]} != {cards}"
    for name, size in expect.get("hand_sizes", {}).items():
        assert len(hands[name]) == size, f"hand of {name} has {len(hands[name])} cards, not {size}"
    if "stock_size" in expect:
        stock = state["stock"]
        assert len(stock) == expect["stock_size"], f"stock {stock}"
    if "discard_size" in expect:
        assert len(state["discard"]) == expect["discard_size"], f"discard {state['discard']}"


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_golden_scenario(path: Path) -> None:
    doc = load(path)
    expect = doc["expect"]
    if expect.get("error"):
        with pytest.raises(ScenarioError):
            run_scenario(scenario_input(doc))
        return
    check_outcome(expect, run_scenario(scenario_input(doc)))


def test_there_are_enough_scenarios() -> None:
    assert len(FILES) >= 90


def run_cli(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "games.engine", *args],
        cwd=ROOT,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


CLI_FILES = ["204_deep_pickup_meld_and_discard_top_taken", "812_tie_then_single_leader_wins"]


@pytest.mark.parametrize("name", CLI_FILES)
def test_cli_replay_file_and_stdin(name: str, tmp_path: Path) -> None:
    doc = load(SCENARIOS / f"{name}.json")
    text = json.dumps(scenario_input(doc))
    scenario_file = tmp_path / f"{name}.json"
    scenario_file.write_text(text)

    from_file = run_cli("replay", str(scenario_file))
    assert from_file.returncode == 0, from_file.stderr
    printed = json.loads(from_file.stdout)
    assert set(printed) >= {"results", "state"}
    check_outcome(doc["expect"], printed)

    from_stdin = run_cli("replay", "-", stdin=text)
    assert from_stdin.returncode == 0, from_stdin.stderr
    assert json.loads(from_stdin.stdout) == printed


@pytest.mark.parametrize(
    "name", ["953_error_invalid_meld_in_state", "954_error_turn_unknown_player"]
)
def test_cli_refuses_inconsistent_file(name: str, tmp_path: Path) -> None:
    doc = load(SCENARIOS / f"{name}.json")
    scenario_file = tmp_path / f"{name}.json"
    scenario_file.write_text(json.dumps(scenario_input(doc)))

    done = run_cli("replay", str(scenario_file))
    assert done.returncode != 0
    assert done.stderr.strip(), "the tool must say what is wrong"

    piped = run_cli("replay", "-", stdin=scenario_file.read_text())
    assert piped.returncode != 0
    assert piped.stderr.strip()
