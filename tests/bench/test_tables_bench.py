"""bench/tables.py: the bots' choices, the figures, the echo consumer, a quick run of the
connection storm and one of the embedded mode under daphne (``make run``). A whole run needs
PostgreSQL and Redis and a few minutes: ``python bench/tables.py --quick``, or ``make bench``."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from channels.testing import WebsocketCommunicator

from bench import echo_asgi, tables
from tests.bench.services import run_bench, service_args, skipped

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
    out["storm"] = {"tables": 100, "settle_s": 1.9, "server_ms_per_connection": 5.0}
    assert tables.targets(out)["storm_met"]
    for unmet in ({"settle_s": None}, {"settle_s": 2.1}, {"server_ms_per_connection": 5.1}):
        assert not tables.targets({"storm": {**out["storm"], **unmet}})["storm_met"]


def test_phases_left_out_give_no_figures() -> None:
    assert set(tables.ratios({}).values()) == {None}
    assert not any(v for k, v in tables.targets({}).items() if k.endswith("_met"))


def test_quick_is_small_and_max_is_the_aim() -> None:
    quick = tables.arguments(["--quick"])
    assert (quick.tables, quick.flat_tables, quick.duration) == (4, 2, 3.0)
    assert tables.arguments(["--max"]).tables == 500
    assert tables.arguments(["--compression", "none"]).compression is None


def test_each_mode_has_its_server_and_one_process_where_it_must() -> None:
    full = tables.arguments([])
    assert (full.mode, full.server, full.workers, full.debug) == ("full", "uvicorn", 2, False)
    assert full.redis is not None
    embedded = tables.arguments(["--mode", "embedded"])
    # As make run: daphne, one process, DEBUG off (make dev turns it on).
    assert (embedded.server, embedded.workers, embedded.debug) == ("daphne", 1, False)
    assert embedded.redis is None  # no services of its own to meter
    assert tables.arguments(["--mode", "embedded", "--server", "uvicorn"]).workers == 1
    assert tables.arguments(["--server", "daphne"]).workers == 1
    assert tables.arguments(["--mode", "embedded", "--debug", "on"]).debug


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["--server", "daphne", "--workers", "2"], "daphne runs one process"),
        (["--mode", "embedded", "--server", "uvicorn", "--workers", "2"], "in-memory"),
        (["--workers", "0"], "at least 1"),
    ],
)
def test_more_than_one_process_is_refused_where_it_cannot_work(
    argv: list[str], says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit):
        tables.arguments(argv)
    assert says in capsys.readouterr().err


def test_the_embedded_environment_is_make_runs_on_a_file_of_its_own(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    for name, value in [
        ("DATABASE_URL", "postgres://x/y"),
        ("REDIS_URL", "redis://x/1"),
        ("CELERY_BROKER_URL", "redis://x/2"),
        ("DJANGO_ENV", "production"),
    ]:
        monkeypatch.setenv(name, value)
    env = tables.embedded_env(tmp_path / "b.sqlite3", debug=True)
    assert not {"DATABASE_URL", "REDIS_URL", "CELERY_BROKER_URL", "DJANGO_ENV"} & set(env)
    assert env["SQLITE_PATH"] == str(tmp_path / "b.sqlite3")
    assert env["DJANGO_DEBUG"] == "true"
    assert tables.embedded_env(tmp_path / "b.sqlite3", debug=False)["DJANGO_DEBUG"] == "false"


def test_daphne_is_started_as_make_run_starts_it() -> None:
    command = tables.server_command("daphne", 8123, 1, tables.APP)
    assert command[1:] == ["-m", "daphne", "-b", "127.0.0.1", "-p", "8123", tables.APP]
    assert "--workers" in tables.server_command("uvicorn", 8123, 2, tables.APP)
    with pytest.raises(ValueError, match="one process"):
        tables.server_command("daphne", 8123, 2, tables.APP)


def test_phases_choose_the_tables_made() -> None:
    every = tables.arguments([])
    assert every.phases == tables.PHASES and every.storm_tables == 100
    warm = tables.WARM_TABLES
    assert tables.table_counts(every) == (20, 100, 100 + warm, 100)
    assert tables.arguments(["--quick"]).storm_tables == 8
    storm = tables.arguments(["--phases", "storm", "--tables", "30", "--storm-tables", "50"])
    assert storm.phases == ("storm",)
    assert tables.table_counts(storm) == (0, 30, 0, 50)  # the live tables, then the storm's
    echo = tables.arguments(["--phases", "echo_flat_out,storm_alone"])
    assert tables.table_counts(echo) == (20, 0, 100 + warm, 0)


def test_unknown_phases_are_refused(capsys: pytest.CaptureFixture[str]) -> None:
    for phases in ("storm,strom", ","):
        with pytest.raises(SystemExit):
            tables.arguments(["--phases", phases])
    assert "strom" in capsys.readouterr().err


def test_live_round_trips_are_cut_into_windows_by_the_time_sent() -> None:
    run = tables.WindowRun(pace=2.0)
    for sent in (1.0, 1.5, 2.0, 2.5):
        run.done(sent, sent + 0.01 * sent)
    run.missed(2.2)  # unanswered: counts as LOST_SECONDS
    quiet, storm = run.window(1.0, 2.0), run.window(2.0, 3.0)
    assert (quiet["actions"], storm["actions"]) == (2, 3)
    assert quiet["rtt_ms"] == {"p50": 10.0, "p95": 15.0, "p99": 15.0, "max": 15.0}
    assert storm["rtt_ms"]["max"] == 1000 * tables.LOST_SECONDS
    assert storm["seconds"] == 1.0


def test_a_storm_is_charged_what_the_server_spent_beyond_the_live_play() -> None:
    windows = ({"seconds": 10.0, "actions": 200}, {"seconds": 15.0, "actions": 150})
    quiet, stormy = {"server_workers_s": 2.0}, {"server_workers_s": 15.0}
    costs = tables.storm_costs(quiet, stormy, windows, sockets=400)
    # 15 s spent while the storm window's 150 live actions cost 10 ms each: 13.5 s for 400.
    assert costs == {"server_ms_per_connection": 33.75, "server_ms_per_connection_gross": 37.5}
    idle = ({"seconds": 10.0, "actions": 0}, {"seconds": 15.0, "actions": 0})
    costs = tables.storm_costs(quiet, stormy, idle, sockets=400)  # no live play: per second
    assert costs["server_ms_per_connection"] == 30.0


def test_a_quick_storm_run_opens_every_socket_at_once_and_settles() -> None:
    phases = "storm_alone,storm"
    out = run_bench("tables.py", "--quick", "--phases", phases, *service_args(redis_db=9))
    if skipped(out):
        return
    assert set(out) & {*tables.PHASES} == {"storm_alone", "storm"}
    for storm in (out["storm_alone"], out["storm"]):
        assert (storm["tables"], storm["sockets"], storm["failed"]) == (8, 32, 0)
        first_state = storm["first_state_ms"]
        assert 0 < first_state["p50"] <= first_state["max"]
        assert abs(storm["settle_s"] - first_state["max"] / 1000) < 0.002  # the last socket's
        assert storm["handshake_ms"]["max"] >= storm["handshake_ms"]["p50"] > 0
        assert storm["server_ms_per_connection"] > 0
        assert storm["closed_by_server"] == {}
        assert sum(storm["connections_per_worker"]) >= 32
    assert out["storm_alone"]["warm_up_connections_per_worker"]
    live = out["storm"]["live"]
    assert live["tables"] == 4 and live["lost"] == 0 and live["closed_by_server"] == {}
    assert live["quiet"]["actions"] > 0 and live["storm"]["actions"] > 0
    assert live["storm"]["seconds"] >= 3.0  # --duration, or longer when settling took longer


def test_a_quick_embedded_run_under_daphne_measures_make_runs_one_process() -> None:
    """Needs no service: SQLite, the in-memory layer and the embedded worker, in one daphne."""
    phases = "flat_out,echo_flat_out,storm_alone"
    out = run_bench("tables.py", "--quick", "--mode", "embedded", "--phases", phases)
    assert set(out) & {*tables.PHASES} == {"flat_out", "echo_flat_out", "storm_alone"}
    assert out["server"] == tables.DAPHNE and out["mode"].startswith("embedded")
    assert out["compression"] == "deflate"
    assert out["compression_negotiated"] == "none"  # daphne declines permessage-deflate
    flat, echo = out["flat_out"], out["echo_flat_out"]
    for figures, unit in ((flat, "actions"), (echo, "messages")):
        assert figures[unit] > 0 and figures["lost"] == 0 and figures["errors"] == {}
        assert figures["closed_by_server"] == {}
        cpu = figures["cpu"]
        assert cpu["connections_per_worker"] == [8]  # one process holds every socket
        assert cpu["server_ms_per_message"] > 0
        assert cpu["redis_commands_per_message"] is None and cpu["postgres_redis_s"] == 0
    storm = out["storm_alone"]
    assert (storm["sockets"], storm["failed"], storm["closed_by_server"]) == (32, 0, {})
    assert storm["connections_per_worker"] == [32]
    assert storm["server_ms_per_connection"] > 0


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
