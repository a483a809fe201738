"""bench/tables.py: the bots' choices, the figures, the echo consumer. A whole run needs
PostgreSQL and Redis and a minute or more: ``python bench/tables.py --quick``, or ``make bench``."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from channels.testing import WebsocketCommunicator

from bench import echo_asgi, tables

ROOT = Path(__file__).resolve().parent.parent.parent
DRAW = {"type": "draw", "source": "stock"}
PICKUP = {"type": "draw", "source": "discard", "count": 1}
MELD = {"type": "meld", "cards": ["7S", "8S", "9S"]}


def test_a_bot_draws_from_the_stock_then_discards() -> None:
    assert tables.choose({"legal": [PICKUP, DRAW]}) == DRAW
    discards = [{"type": "discard", "card": "KD"}, {"type": "discard", "card": "2C"}]
    assert tables.choose({"legal": [MELD, *discards]}) == discards[0]


def test_after_a_refusal_a_bot_tries_the_next_legal_action() -> None:
    legal = [MELD, {"type": "discard", "card": "KD"}]
    assert [tables.choose({"legal": legal}, attempt) for attempt in range(3)] == [
        legal[1],
        MELD,
        legal[1],
    ]
    assert tables.choose({"legal": []}) is None
    assert tables.choose({}) is None


def test_percentiles_are_nearest_rank() -> None:
    ms = [float(n) for n in range(1, 101)]
    assert [tables.percentile(ms, p) for p in (50, 95, 99, 100)] == [50, 95, 99, 100]
    assert tables.percentile([7.0], 99) == 7
    assert tables.percentile([], 50) is None


def test_ratios_and_targets() -> None:
    out: dict[str, Any] = {
        "human_pace": {"tables": 500, "rtt_ms": {"p50": 10.0, "p99": 80.0}},
        "echo": {"rtt_ms": {"p50": 2.0, "p99": 8.0}},
        "flat_out": {"actions_per_s": 320.0, "rtt_ms": {"p50": 30.0}},
        "echo_flat_out": {"messages_per_s": 1600.0, "rtt_ms": {"p50": 3.0}},
    }
    assert tables.ratios(out) == {
        "ratio_p99": 10.0,
        "ratio_p50": 5.0,
        "ratio_flat_out_p50": 10.0,
        "ratio_flat_out_per_s": 0.2,
    }
    assert tables.targets(out)["human_pace_met"] and tables.targets(out)["flat_out_met"]
    out["human_pace"]["rtt_ms"]["p99"] = 100.0
    assert not tables.targets(out)["human_pace_met"]


def test_phases_left_out_give_no_figures() -> None:
    assert set(tables.ratios({}).values()) == {None}
    assert not any(v for k, v in tables.targets({}).items() if k.endswith("_met"))


def test_quick_is_small_and_max_is_the_aim() -> None:
    quick = tables.arguments(["--quick"])
    assert (quick.tables, quick.flat_tables, quick.duration) == (4, 2, 3.0)
    assert tables.arguments(["--max"]).tables == 500
    assert tables.arguments(["--compression", "none"]).compression is None


def test_human_pace_gaps_vary_about_the_pace_so_tables_drift_out_of_step() -> None:
    group = tables.TableBots(tables.Run(pace=2.0), "ws://test", 1, ["k"] * tables.SEATS)
    gaps = []
    for _ in range(1000):
        group.next_slot = at = time.perf_counter() + 1000  # booked ahead: the slot is exact
        group.slot()
        gaps.append(group.next_slot - at)
    assert 1.0 <= min(gaps) < max(gaps) <= 3.0
    assert 1.8 < sum(gaps) / len(gaps) < 2.2


def test_tables_seated_together_start_at_random_within_one_pace() -> None:
    run = tables.Run(pace=2.0)
    groups = [tables.TableBots(run, "ws://test", n, ["k"] * tables.SEATS) for n in range(50)]
    tables.stagger(list(groups), 100.0, 2.0)
    firsts = [g.next_slot for g in groups]
    assert all(100.0 <= t <= 102.0 for t in firsts)
    assert len(set(firsts)) > 40


async def test_the_echo_consumer_answers_each_message(settings: Any) -> None:
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    communicator = WebsocketCommunicator(echo_asgi.application, echo_asgi.ECHO_PATH)
    connected, _ = await communicator.connect()
    assert connected
    for n in (1, 2):
        await communicator.send_to(text_data=json.dumps({"seq": n}))
        assert json.loads(await communicator.receive_from()) == {"seq": n}
    await communicator.disconnect()
