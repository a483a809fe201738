""" "Anyone can check the deal": the documented shuffle, re-implemented from the text alone.

docs/engine-decisions.md ("Fair shuffle") describes the shuffle precisely enough for an outsider
to rebuild it: an HMAC-SHA256 byte stream keyed by the seed, read as big-endian 64-bit integers,
rejection sampling, Fisher-Yates over the canonical deck. This file implements exactly that
without looking at the engine and checks the replay tool (``{"seed": S}``) and
``python -m games.engine verify-deal`` against it, for hand 1 and for a later hand.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from games.engine.replay import run_scenario

ROOT = Path(__file__).resolve().parents[3]
RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
NAMES = ["ann", "bob", "cid", "dan", "eve", "fay", "gus", "hal"]


@pytest.fixture(autouse=True)
def _clear_cache() -> None:
    """Override the suite-wide cache reset: the engine needs no Django, so neither do we."""


def canonical_deck(decks: int, jokers: int) -> list[str]:
    """For each deck in turn: suits S H D C, each A 2 ... K, then that deck's jokers."""
    cards: list[str] = []
    for _ in range(decks):
        cards += [rank + suit for suit in "SHDC" for rank in RANKS]
        cards += ["*"] * jokers
    return cards


def stream(seed: str, message: str) -> Iterator[int]:
    """HMAC-SHA256(key=seed, msg=f"{message}:block:{i}") for i = 0, 1, ..., as uint64 BE."""
    block = 0
    while True:
        msg = f"{message}:block:{block}".encode()
        digest = hmac.new(seed.encode("utf-8"), msg, hashlib.sha256).digest()
        for at in range(0, len(digest), 8):
            yield int.from_bytes(digest[at : at + 8], "big")
        block += 1


def fisher_yates(cards: list[str], numbers: Iterator[int]) -> list[str]:
    out = list(cards)
    for i in range(len(out) - 1, 0, -1):
        bound = i + 1
        limit = 2**64 - (2**64 % bound)
        x = next(numbers)
        while x >= limit:
            x = next(numbers)
        j = x % bound
        out[i], out[j] = out[j], out[i]
    return out


def shuffled_deck(seed: str, hand: int, decks: int = 1, jokers: int = 2) -> list[str]:
    return fisher_yates(canonical_deck(decks, jokers), stream(seed, f"rummy500:hand:{hand}"))


def deal(order: list[str], players: list[str], hand: int, size: int) -> dict[str, Any]:
    """Dealer of hand 1 is the last player, moving one seat left per hand; dealing starts at
    the dealer's left, one card at a time; then one discard; the rest is the stock."""
    n = len(players)
    dealer = (n - 1 + hand - 1) % n
    seats = [players[(dealer + 1 + k) % n] for k in range(n)]
    hands: dict[str, list[str]] = {p: [] for p in players}
    for k in range(size * n):
        hands[seats[k % n]].append(order[k])
    return {
        "dealer": players[dealer],
        "turn": seats[0],
        "hands": hands,
        "discard": [order[size * n]],
        "stock": order[size * n + 1 :],
    }


def hands_of(state: dict[str, Any]) -> dict[str, Counter[str]]:
    return {p["name"]: Counter(p["hand"]) for p in state["players"]}


def verify_deal(seed: str, players: list[str], hand: int, *extra: str) -> dict[str, Any]:
    args = ["verify-deal", seed, ",".join(players), str(hand), *extra]
    done = subprocess.run(
        [sys.executable, "-m", "games.engine", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    printed: dict[str, Any] = json.loads(done.stdout)
    return printed


def test_stream_and_fisher_yates_are_deterministic() -> None:
    first = shuffled_deck("7", 1)
    assert first == shuffled_deck("7", 1)
    assert Counter(first) == Counter(canonical_deck(1, 2))
    assert first != shuffled_deck("7", 2)
    assert first != shuffled_deck("8", 1)


CASES = [
    (7, 3, 1, 7),  # replay seed given as an integer: it becomes the string "7"
    ("abc", 2, 1, 13),
    ("club-night-42", 4, 1, 7),
    (12345, 5, 2, 7),  # five players: two decks, four jokers
]


@pytest.mark.parametrize(("seed", "n", "decks", "size"), CASES, ids=lambda v: str(v))
def test_replay_seed_matches_documented_shuffle(seed: Any, n: int, decks: int, size: int) -> None:
    players = NAMES[:n]
    want = deal(shuffled_deck(str(seed), 1, decks), players, 1, size)
    got = run_scenario(
        {"rules": {"preset": "standard"}, "players": players, "deal": {"seed": seed}, "actions": []}
    )["state"]
    assert got["dealer"] == want["dealer"]
    assert got["turn"] == want["turn"]
    assert got["discard"] == want["discard"]
    assert got["stock"] == want["stock"]
    assert hands_of(got) == {p: Counter(h) for p, h in want["hands"].items()}


@pytest.mark.parametrize(("seed", "n", "decks", "size"), CASES, ids=lambda v: str(v))
def test_verify_deal_matches_documented_shuffle(seed: Any, n: int, decks: int, size: int) -> None:
    players = NAMES[:n]
    want = deal(shuffled_deck(str(seed), 1, decks), players, 1, size)
    printed = verify_deal(str(seed), players, 1)
    assert printed["commitment"] == hashlib.sha256(str(seed).encode("utf-8")).hexdigest()
    assert printed["dealer"] == want["dealer"]
    assert printed["discard"] == want["discard"]
    assert printed["stock"] == want["stock"]
    assert {p: Counter(h) for p, h in printed["hands"].items()} == {
        p: Counter(h) for p, h in want["hands"].items()
    }


def test_second_hand_is_shuffled_with_hand_number_two() -> None:
    """Two players, one card each: both draw and throw the drawn card back until the stock is
    empty (we know every stock card from our own shuffle); the next stock draw ends hand 1
    (stock_out end), and hand 2 is dealt by seed "s2" and hand number 2: dealer ann, bob first."""
    seed, players = "s2", ["ann", "bob"]
    rules = {"preset": "standard", "hand_size_two": 1}
    first = deal(shuffled_deck(seed, 1), players, 1, 1)
    actions: list[dict[str, Any]] = []
    for k, card in enumerate(first["stock"]):
        who = players[k % 2]
        actions.append({"player": who, "type": "draw", "source": "stock"})
        actions.append({"player": who, "type": "discard", "card": card})
    actions.append({"player": players[len(first["stock"]) % 2], "type": "draw", "source": "stock"})
    out = run_scenario(
        {"rules": rules, "players": players, "deal": {"seed": seed}, "actions": actions}
    )
    assert all(r["ok"] for r in out["results"]), [r for r in out["results"] if not r["ok"]][:1]
    state = out["state"]
    assert state["hands"][0]["went_out"] is None
    want = deal(shuffled_deck(seed, 2), players, 2, 1)
    assert state["hand_number"] == 2
    assert (state["dealer"], state["turn"]) == ("ann", "bob")
    assert state["discard"] == want["discard"]
    assert state["stock"] == want["stock"]
    assert hands_of(state) == {p: Counter(h) for p, h in want["hands"].items()}

    printed = verify_deal(seed, players, 2, "--rules", json.dumps({"hand_size_two": 1}))
    assert printed["dealer"] == "ann"
    assert printed["stock"] == want["stock"]
    assert printed["discard"] == want["discard"]


def test_reshuffle_uses_documented_stream() -> None:
    """stock_out reshuffle from a state loaded without a seed (seed ""): the pile except its top
    card, taken bottom first, is shuffled with msg "rummy500:hand:1:reshuffle:1"; ann draws the
    top of the new stock. (Reading: the pile is fed to Fisher-Yates in its bottom-first order.)"""
    pile = ["2C", "5D", "9H", "KS", "4H", "JD"]
    new_stock = fisher_yates(pile[:-1], stream("", "rummy500:hand:1:reshuffle:1"))
    out = run_scenario(
        {
            "rules": {"preset": "standard", "stock_out": "reshuffle"},
            "players": ["ann", "bob"],
            "deal": {
                "state": {
                    "players": [{"name": "ann", "hand": ["3S"]}, {"name": "bob", "hand": ["7D"]}],
                    "turn": "ann",
                    "phase": "draw",
                    "stock": [],
                    "discard": pile,
                    "melds": [],
                }
            },
            "actions": [{"player": "ann", "type": "draw", "source": "stock"}],
        }
    )
    assert out["results"] == [{"ok": True}]
    state = out["state"]
    assert state["discard"] == ["JD"]
    assert state["stock"] == new_stock[1:]
    assert Counter(state["players"][0]["hand"]) == Counter(["3S", new_stock[0]])
