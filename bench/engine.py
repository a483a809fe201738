"""Rules-engine benchmark: prints one JSON object of figures on stdout.

Run from the repository root: ``python bench/engine.py [--games N] [--quick] [--profile]``.

- Whole games: four ``GreedyBot`` players to 500 under the ``standard`` preset, CPU time
  (``time.process_time``) per game, bots' thinking included.
- ``apply``: the recorded actions of those games replayed from their seeds, ``--rounds`` times;
  the figure is the best round (the least disturbed by other processes), the mean is given too.
  The few ``deal_next_hand`` calls between hands are inside the timed loop.
- ``legal_actions``: called on every recorded state for the player who acted in it.
- Bytes per state, over every recorded state: the full state as compact JSON, the pickled
  ``GameState``, and a deep ``sys.getsizeof`` (each object counted once; the interned cards and the
  shared ``Rules`` count once per state).

Targets (the engine issue): a four-player game to 500 in under 100 ms of CPU, and at least 20,000
applied actions per second on one core. ``--profile`` prints the top of a cProfile of one batch of
games to stderr.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import pickle
import platform
import pstats
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from games.engine import (
    Action,
    GameState,
    Rules,
    Transition,
    apply,
    deal_next_hand,
    full_state,
    legal_actions,
    new_game,
)
from games.engine.bots import GreedyBot, hand_seed, play_game

PLAYERS = ("ann", "bob", "cid", "dee")
Record = list[tuple[str, Action]]


def play(seed: int) -> tuple[GameState, Record]:
    """One four-player greedy game to 500, with its actions."""
    record: Record = []

    def on_action(before: GameState, player: str, action: Action, t: Transition) -> None:
        record.append((player, action))

    bots = {name: GreedyBot(seed=f"{seed}:{i}") for i, name in enumerate(PLAYERS)}
    end = play_game(Rules(), bots, seed, on_action=on_action)
    return end, record


def replay(seed: int, record: Record, states: list[tuple[GameState, str]] | None) -> GameState:
    """Re-apply ``record`` from the game's seeds; collect the states acted in when asked."""
    state = new_game(Rules(), PLAYERS, seed=hand_seed(seed, 1))
    for player, action in record:
        if state.phase == "hand_over":
            state = deal_next_hand(state, seed=hand_seed(seed, state.hand_number + 1))
        if states is not None:
            states.append((state, player))
        state = apply(state, player, action).state
    return state


def deep_size(obj: object, seen: set[int] | None = None) -> int:
    """``sys.getsizeof`` of ``obj`` and everything it refers to, each object once."""
    seen = set() if seen is None else seen
    if id(obj) in seen:
        return 0
    seen.add(id(obj))
    size = sys.getsizeof(obj)
    if isinstance(obj, dict):
        size += sum(deep_size(k, seen) + deep_size(v, seen) for k, v in obj.items())
    elif isinstance(obj, tuple | list | set | frozenset):
        size += sum(deep_size(x, seen) for x in obj)
    elif hasattr(obj, "__slots__"):
        for cls in type(obj).__mro__:
            for name in getattr(cls, "__slots__", ()):
                if hasattr(obj, name):
                    size += deep_size(getattr(obj, name), seen)
    return size


def measure_games(games: int) -> tuple[dict[str, Any], list[tuple[int, Record]]]:
    records: list[tuple[int, Record]] = []
    times: list[float] = []
    hands = winners_scores = 0
    for seed in range(games):
        start = time.process_time()
        end, record = play(seed)
        times.append(time.process_time() - start)
        records.append((seed, record))
        hands += end.hand_number
        winners_scores += end.players[end.winner or 0].score
    total = sum(times)
    actions = sum(len(r) for _, r in records)
    figures = {
        "games": games,
        "games_per_second": round(games / total, 2),
        "cpu_ms_per_game_mean": round(1000 * total / games, 2),
        "cpu_ms_per_game_median": round(1000 * statistics.median(times), 2),
        "cpu_ms_per_game_max": round(1000 * max(times), 2),
        "actions_per_game_mean": round(actions / games, 1),
        "hands_per_game_mean": round(hands / games, 2),
        "winner_score_mean": round(winners_scores / games, 1),
    }
    return figures, records


def measure_apply(records: list[tuple[int, Record]], rounds: int) -> dict[str, Any]:
    """Replay every recorded game ``rounds`` times; the best round is the least disturbed."""
    calls = sum(len(r) for _, r in records)
    times = []
    for _ in range(rounds):
        start = time.process_time()
        for seed, record in records:
            replay(seed, record, None)
        times.append(time.process_time() - start)
    return {
        "apply_calls_per_round": calls,
        "apply_rounds": rounds,
        "apply_per_second": round(calls / min(times)),
        "apply_per_second_mean": round(calls * rounds / sum(times)),
        "apply_us_best": round(1e6 * min(times) / calls, 2),
    }


def measure_legal(states: list[tuple[GameState, str]]) -> dict[str, Any]:
    out: dict[str, Any] = {"legal_actions_calls": len(states)}
    by_phase: dict[str, list[tuple[GameState, str]]] = {}
    for s, p in states:
        by_phase.setdefault(s.phase, []).append((s, p))
    start = time.process_time()
    for s, p in states:
        legal_actions(s, p)
    elapsed = time.process_time() - start
    out["legal_actions_per_second"] = round(len(states) / elapsed)
    for phase, group in sorted(by_phase.items()):
        start = time.process_time()
        for s, p in group:
            legal_actions(s, p)
        out[f"legal_actions_us_mean_{phase}"] = round(
            1e6 * (time.process_time() - start) / len(group), 1
        )
    return out


def measure_sizes(states: list[tuple[GameState, str]]) -> dict[str, Any]:
    sample = [s for s, _ in states[:: max(1, len(states) // 2000)]]
    n = len(sample)
    json_bytes = sum(len(json.dumps(full_state(s), separators=(",", ":"))) for s in sample)
    pickle_bytes = sum(len(pickle.dumps(s, protocol=pickle.HIGHEST_PROTOCOL)) for s in sample)
    deep = sum(deep_size(s) for s in sample)
    return {
        "states_sized": n,
        "bytes_per_state_full_state_json": round(json_bytes / n),
        "bytes_per_state_pickle": round(pickle_bytes / n),
        "bytes_per_state_deep_getsizeof": round(deep / n),
    }


def profile(games: int) -> None:
    prof = cProfile.Profile()
    prof.enable()
    for seed in range(games):
        play(seed)
    prof.disable()
    out = io.StringIO()
    stats = pstats.Stats(prof, stream=out)
    stats.sort_stats("tottime").print_stats(25)
    stats.sort_stats("cumulative").print_stats(40)
    print(out.getvalue(), file=sys.stderr)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=30, help="whole games to play (default 30)")
    parser.add_argument("--rounds", type=int, default=3, help="replays of the recorded games")
    parser.add_argument("--quick", action="store_true", help="5 games, 2 replay rounds")
    parser.add_argument("--profile", action="store_true", help="cProfile the games to stderr")
    args = parser.parse_args(argv)
    games, rounds = (5, 2) if args.quick else (args.games, args.rounds)

    result: dict[str, Any] = {
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "preset": "standard",
        "players": len(PLAYERS),
        "bots": "GreedyBot",
    }
    figures, records = measure_games(games)
    result.update(figures)
    result.update(measure_apply(records, rounds))
    states: list[tuple[GameState, str]] = []
    for seed, record in records:
        replay(seed, record, states)
    result.update(measure_legal(states))
    result.update(measure_sizes(states))
    # The greedy bots call legal_actions once per decision, so per game the engine's own share is
    # about (apply + legal_actions) x actions; the rest of the game's CPU is the bots' planning.
    per_game = result["actions_per_game_mean"]
    apply_ms = per_game * result["apply_us_best"] / 1000
    legal_ms = per_game * 1000 / result["legal_actions_per_second"]
    result["engine_apply_ms_per_game_est"] = round(apply_ms, 2)
    result["engine_legal_actions_ms_per_game_est"] = round(legal_ms, 2)
    result["targets"] = {
        "cpu_ms_per_game_under": 100,
        "apply_per_second_at_least": 20_000,
        "game_target_met": result["cpu_ms_per_game_mean"] < 100,
        "apply_target_met": result["apply_per_second"] >= 20_000,
    }
    print(json.dumps(result))
    if args.profile:
        profile(games)


if __name__ == "__main__":
    main()
