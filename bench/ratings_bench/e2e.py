"""The ratings bench's (bench/ratings.py) rating arithmetic and its rated games end to end.

- ``rate_table``: ``ratings.glicko.rate_table`` on random tables of 8 (and, for scale, 2 and 4):
  ratings around 1500, deviations between a settled player's and a newcomer's (each grown by
  ``before_game`` as a game brings them), rated places with ties and absences now and then. CPU
  time of ``--rate-calls`` calls, ``--rounds`` rounds; the figure is the best round (the least
  disturbed by other processes), as in bench/engine.py.
- ``end_to_end``: ``--e2e-games`` rated four-seat tables made and played through
  ``games.services`` by the engine's GreedyBot with ``target`` 1 (the first hand that scores ends
  the game), then the ``ratings`` finalization hook run as the worker runs it
  (``games.finalization.run_hook``). Wall time of the game's last action (the one that finishes
  it, its commit included) and of the hook (its own transaction and commit), medians over the
  games. Nobody watches and no broker is involved: the pushes and Celery sends registered after
  commit are replaced by no-ops.
"""

from __future__ import annotations

import random
import time
from typing import Any

from bench.ratings_bench.common import ms_figures, run_rating_hook
from ratings.elo import START, rated_places
from ratings.glicko import START_DEVIATION, Skill, before_game, rate_table

# --- rate_table --------------------------------------------------------------------------------

#: About a settled player's deviation: random tables draw deviations from it to a newcomer's.
SETTLED_DEVIATION = 100.0

Table = tuple[list[Skill], list[int]]


def random_skill(rng: random.Random) -> Skill:
    """A random player's rating and the deviation they bring to a game (``before_game``)."""
    deviation = rng.uniform(SETTLED_DEVIATION, START_DEVIATION)
    return Skill(rng.gauss(START, 250), before_game(deviation, 0.0))


def random_table(rng: random.Random, n: int) -> Table:
    """The skills brought to one random table of ``n`` and its rated places."""
    skills = [random_skill(rng) for _ in range(n)]
    scores = [rng.randrange(0, 12) * 10 for _ in range(n)]  # ties now and then
    places = [1 + sum(o > s for o in scores) for s in scores]
    absent = [rng.random() < 0.05 for _ in range(n)]
    return skills, rated_places(places, absent)


def round_times(tables: list[Table], rounds: int) -> list[float]:
    """CPU seconds of each round of ``rate_table`` over every table."""
    times = []
    for _ in range(rounds):
        start = time.process_time()
        for skills, places in tables:
            rate_table(skills, places)
        times.append(time.process_time() - start)
    return times


def measure_rate_table(calls: int, rounds: int, seed: int) -> dict[str, Any]:
    """Calls per second of ``rate_table`` (CPU, best round) on random tables."""
    rng = random.Random(seed)
    out: dict[str, Any] = {"calls_per_round": calls, "rounds": rounds}
    for n in (8, 4, 2):
        times = round_times([random_table(rng, n) for _ in range(calls)], rounds)
        best = min(times)
        if n == 8:
            out["players"] = 8
            out["calls_per_s"] = round(calls / best)
            out["calls_per_s_mean"] = round(calls * rounds / sum(times))
            out["us_per_call_best"] = round(1e6 * best / calls, 2)
        else:
            out[f"calls_per_s_{n}_players"] = round(calls / best)
    return out


# --- End to end: games played through the services, then the hook ------------------------------


def e2e_users(count: int) -> list[Any]:
    from accounts.models import User

    users = [User(username=f"e2e{i:02d}") for i in range(count)]
    for user in users:
        user.set_unusable_password()
    return list(User.objects.bulk_create(users))


def new_table(seated: list[Any]) -> Any:
    """A rated standard table of ``seated`` (the first made it), ending at the first score."""
    from games import services

    table = services.table_create(
        creator=seated[0], ruleset="standard", seats=len(seated), overrides={"target": 1}
    )
    for user in seated[1:]:
        services.table_join(table_id=table.pk, user=user)
    table.refresh_from_db()
    return table


def play(table: Any, seated: list[Any], seed: str) -> list[float]:
    """Play the table to its end, a GreedyBot a seat; each action's wall time."""
    from games import services
    from games.engine.bots import GreedyBot
    from games.engine.play import next_move
    from games.selectors import table_state

    by_name = {u.username: u for u in seated}
    state, version = table_state(table), table.version
    bots = {u.username: GreedyBot(seed=f"{seed}:{i}") for i, u in enumerate(seated)}
    seconds: list[float] = []
    while state is not None and state.phase != "game_over":
        name, action = next_move(state, bots)
        start = time.perf_counter()
        done = services.table_apply_action(
            table_id=table.pk, user=by_name[name], action=action.to_dict(), version=version
        )
        seconds.append(time.perf_counter() - start)
        state, version = done.state, done.version
        if done.table.status != "playing":
            break
    return seconds


def end_to_end(games: int, seats: int, seed: int) -> dict[str, Any]:
    from unittest import mock

    from ratings.models import RatedGame, RatingChange

    rng = random.Random(seed)
    users = e2e_users(2 * seats)
    action_ms: list[float] = []
    last_ms: list[float] = []
    hook_ms: list[float] = []
    finish_ms: list[float] = []
    with mock.patch("games.push.on_commit_table"), mock.patch("games.timers.send"):
        for g in range(games):
            seated = rng.sample(users, seats)
            table = new_table(seated)
            actions = play(table, seated, f"{seed}:{g}")
            last = actions[-1] if actions else 0.0
            hook_s = run_rating_hook(table.pk)
            action_ms += actions
            last_ms.append(last)
            hook_ms.append(hook_s)
            finish_ms.append(last + hook_s)
    hook, finish = ms_figures(hook_ms), ms_figures(finish_ms)
    return {
        "games": games,
        "seats": seats,
        "rules": "standard, target 1",
        "actions_per_game_mean": round(len(action_ms) / games, 1),
        "action": ms_figures(action_ms),
        "last_action": ms_figures(last_ms),
        "hook": hook,
        "finish": finish,
        "hook_ms": hook["median_ms"],
        "finish_ms": finish["median_ms"],
        "games_rated": RatedGame.objects.filter(counted=True).count(),
        "changes_written": RatingChange.objects.count(),
    }
