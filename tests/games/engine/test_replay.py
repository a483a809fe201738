import json
import subprocess
import sys
from pathlib import Path

import pytest

from games.engine import Rules, ScenarioError, commitment, run_scenario
from games.engine.__main__ import main, verify_deal

ROOT = Path(__file__).resolve().parents[3]


def test_seeded_replay_matches_verify_deal() -> None:
    out = run_scenario({"players": ["ann", "bob", "cid"], "deal": {"seed": 7}, "actions": []})
    deal = verify_deal("7", ["ann", "bob", "cid"], 1, Rules())
    state = out["state"]
    assert deal["hands"]["ann"] == state["players"][0]["hand"]
    assert deal["stock"] == state["stock"] and deal["discard"] == state["discard"]
    assert deal["commitment"] == commitment("7") and deal["dealer"] == "cid"


def test_refused_action_changes_nothing_and_replay_goes_on() -> None:
    out = run_scenario(
        {
            "players": ["ann", "bob"],
            "deal": {"seed": "s"},
            "actions": [
                {"player": "ann", "type": "discard", "card": "AS"},
                {"type": "draw", "source": "stock"},
                {"player": "ann", "type": "draw", "source": "stock"},
            ],
        }
    )
    assert out["results"][0]["error"] == "wrong_phase"
    assert out["results"][1]["error"] == "bad_request"
    assert out["results"][2] == {"ok": True}


def test_deck_deals_players_in_order_and_next_hand_from_decks() -> None:
    deck = ["5S", "2C", "6S", "3C", "7S", "4C", "9D", "KH"]
    out = run_scenario(
        {
            "rules": {"hand_size_two": 3},
            "players": ["ann", "bob"],
            "deal": {"decks": [deck, list(reversed(deck))]},
            "actions": [
                {"player": "ann", "type": "draw", "source": "stock"},
                {"player": "ann", "type": "meld", "cards": ["5S", "7S", "6S"]},
                {"player": "ann", "type": "discard", "card": "KH"},
            ],
        }
    )
    state = out["state"]
    assert out["results"] == [{"ok": True}] * 3
    assert state["hand_number"] == 2 and state["dealer"] == "ann" and state["turn"] == "bob"
    assert state["hands"][0]["went_out"] == "ann"
    assert state["players"][1]["hand"] == ["KH", "4C", "3C"]


@pytest.mark.parametrize(
    "scenario",
    [
        [],
        {"players": ["ann", "bob"], "deal": {}},
        {"players": ["ann"], "deal": {"seed": 1}},
        {"players": ["ann", "bob"], "deal": {"seed": 1}, "rules": {"target": 0}},
        {"players": ["ann", "bob"], "deal": {"deck": ["AS", "AS"]}},
        {"players": ["ann", "bob"], "deal": {"state": {"players": []}}},
        {"players": ["ann", "bob"], "deal": {"seed": 1}, "actions": {}},
        {"players": ["ann", "bob"], "deal": {"seed": 1}, "extra": 1},
    ],
)
def test_inconsistent_scenarios_raise(scenario: object) -> None:
    with pytest.raises(ScenarioError):
        run_scenario(scenario)  # type: ignore[arg-type]


def test_cli_replay_and_verify_deal(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "s.json"
    f.write_text(json.dumps({"players": ["a", "b"], "deal": {"seed": 3}, "actions": []}))
    assert main(["replay", str(f)]) == 0
    assert json.loads(capsys.readouterr().out)["state"]["phase"] == "draw"
    assert main(["verify-deal", "3", "4", "2", "--preset", "no-jokers"]) == 0
    deal = json.loads(capsys.readouterr().out)
    assert deal["dealer"] == "p1" and len(deal["hands"]["p2"]) == 7
    assert main(["verify-deal", "3", "a,b", "1", "--rules", '{"hand_size_two": 5}']) == 0
    assert len(json.loads(capsys.readouterr().out)["hands"]["a"]) == 5
    f.write_text("{}")
    assert main(["replay", str(f)]) == 1
    assert "error:" in capsys.readouterr().err


def test_cli_runs_as_module_from_stdin() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "games.engine", "replay", "-"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        input=json.dumps({"players": ["a", "b"], "deal": {"seed": 1}}),
        check=False,
    )
    assert proc.returncode == 0 and json.loads(proc.stdout)["results"] == []


def test_cli_refuses_deep_nesting_and_non_json_constants(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    f = tmp_path / "s.json"
    f.write_text("[" * 100_000 + "]" * 100_000)
    assert main(["replay", str(f)]) == 1
    assert "nested too deeply" in capsys.readouterr().err
    f.write_text('{"players": ["a", "b"], "deal": {"seed": NaN}}')
    assert main(["replay", str(f)]) == 1
    assert "NaN is not JSON" in capsys.readouterr().err
    assert main(["verify-deal", "3", "a,b", "1", "--rules", '{"target": Infinity}']) == 1
    assert "Infinity is not JSON" in capsys.readouterr().err
    assert main(["verify-deal", "3", "99999999999999", "1"]) == 1
    assert "99999999999999 players" in capsys.readouterr().err
