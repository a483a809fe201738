"""Ratings: Elo arithmetic, the finalization hook, leaderboards at scale and the rebuild; prints one
JSON object of figures on stdout.

Run from the repository root: ``python bench/ratings.py [--quick] [--reload] [--profile]
[--players N] [--changes N] [--pg URL]``. It needs PostgreSQL (``--pg``, a server URL); when it
does not answer the bench prints ``{"bench": "ratings", "skipped": reason}`` and exits 0.

- ``rate_table``: ``ratings.elo.rate_table`` on random tables of 8 (and, for scale, 2 and 4),
  CPU time of ``--rate-calls`` calls, ``--rounds`` rounds; the figure is the best round (the least
  disturbed by other processes), as in bench/engine.py.
- ``end_to_end``: in a fresh database (``rummy_ratingsbench``, dropped at the end), ``--e2e-games``
  rated four-seat tables made and played through ``games.services`` by the engine's GreedyBot
  with ``target`` 1 (the first hand that scores ends the game), then the ``ratings`` finalization
  hook run as the worker runs it (``games.finalization.run_hook``). Wall time of the game's last
  action (the one that finishes it, its commit included) and of the hook (its own transaction and
  commit), medians over the games. Nobody watches and no broker is involved: the pushes and
  Celery sends registered after commit are replaced by no-ops.
- ``recompute_equals_incremental``: ``--check-games`` finished games made as rows (2 to 8 players
  from a pool of users, preset rule sets so each counts in two pools, some club tables in three,
  absent and idle players, one table in a hundred that only one player acted at) are rated one
  by one by the hook, every Rating, RatingChange and non-empty RatingBucket row is kept,
  ``ratings_recompute`` rebuilds, and the two are compared exactly (floats to the bit).
- ``recompute``: ``--recompute-games`` such games and their ledger rows, then
  ``ratings.recompute.ratings_recompute()`` in this process, twice (the first has nothing to
  clear, the second deletes the first one's rows): games and changes per second. Aim: at least
  5,000 games a second. ``--profile`` prints a cProfile of the second run to stderr.
- ``leaderboard``: ``--players`` users with a global rating each and ``--changes`` RatingChange
  rows (with the RatedGame and games.Table rows they reference), loaded with COPY into
  ``rummy_ratingsbench_big``, which is kept between runs: it is reused while its row counts and
  loader version match (``--reload`` loads it again). The synthetic population: games per player
  log-normal (median 5, mean ``changes / players``: most players are provisional), tables
  of 2 to 8, each player's history a walk from 1500 ending at a final rating spread with the
  games played (about N(1500, 250) for the established), consistent RatingBucket counts. Then,
  warm, over ``--calls`` calls each: the top 100 as the API gets it (``pool_choice()``,
  ``board_page(Board(choice), 0, 100)``) and the board's count, with and without provisional
  players; "my rank" (``board_position``, the bucket path) for random players (random
  established ones when provisional players are hidden); a player's last 100 changes
  (``rating_history``); and the whole API calls through Django's test client (the leaderboard
  page, the player page, and the page ``around`` a random player: a tenth as many calls, as it
  reads with OFFSET). Median, p95 and max wall ms, and a summary of each query's
  ``EXPLAIN (ANALYZE, BUFFERS)``. Aim: top 100 and "my rank" under 20 ms (p95). Table rows are
  minimal (``rules`` is ``{}``: nothing here reads them); every rating is in the global pool.
  ``hook_at_scale``: the hook on games of established players in that database, inside a
  transaction rolled back at the end (so no commit is timed and the database is left as loaded).

``--quick`` is small: 20,000 players and 200,000 changes, and its databases (``*_quick`` and
``*_quick_board``) are both dropped at the end. Every figure is wall time on a shared machine
unless it says CPU.
"""

from __future__ import annotations

import argparse
import bisect
import contextlib
import cProfile
import io
import json
import math
import os
import platform
import pstats
import random
import re
import statistics
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.tables import fresh_database, service_env, with_path  # noqa: E402
from ratings.elo import (  # noqa: E402  (pure: no Django)
    MASTER_RATING,
    PROVISIONAL_GAMES,
    START,
    k_factor,
    rate_table,
    rated_places,
)

DB_NAME = "rummy_ratingsbench"
BIG_DB = "rummy_ratingsbench_big"
QUICK_DB = "rummy_ratingsbench_quick"
QUICK_BIG_DB = "rummy_ratingsbench_quick_board"
#: Bump when the loaded population changes shape: a kept database of another version is reloaded.
LOADER_VERSION = 2
META_TABLE = "bench_ratings_meta"
BOARD_MS_AIM = 20.0
RECOMPUTE_AIM = 5_000
# Table sizes and their weights: mostly small tables, as a club's evenings and online play are.
SIZES = (2, 3, 4, 5, 6, 7, 8)
SIZE_WEIGHTS = (30, 20, 25, 8, 8, 4, 5)
NOTE = (
    "One shared two-core machine: PostgreSQL and this process share the cores; PostgreSQL runs "
    "with its default settings (shared_buffers 128 MB). Wall-clock figures are a floor."
)


def log(message: str) -> None:
    print(f"[ratings bench] {message}", file=sys.stderr, flush=True)


def unreachable(pg_url: str) -> str | None:
    import psycopg

    try:
        psycopg.connect(with_path(pg_url, "/postgres"), connect_timeout=3).close()
    except Exception as exc:  # any failure means the bench cannot run here
        return f"PostgreSQL at {pg_url} does not answer ({exc})"
    return None


def ms_figures(seconds: Sequence[float]) -> dict[str, Any]:
    """Median, nearest-rank p95 and max of wall times, in ms."""
    ms = sorted(1000 * s for s in seconds)
    if not ms:
        return {"n": 0, "median_ms": None, "p95_ms": None, "max_ms": None}
    p95 = ms[max(0, math.ceil(0.95 * len(ms)) - 1)]
    return {
        "n": len(ms),
        "median_ms": round(statistics.median(ms), 3),
        "p95_ms": round(p95, 3),
        "max_ms": round(ms[-1], 3),
    }


# --- rate_table --------------------------------------------------------------------------------


def measure_rate_table(calls: int, rounds: int, seed: int) -> dict[str, Any]:
    """Calls per second of ``rate_table`` (CPU, best round) on random tables."""
    rng = random.Random(seed)
    out: dict[str, Any] = {"calls_per_round": calls, "rounds": rounds}
    for n in (8, 4, 2):
        tables = []
        for _ in range(calls):
            ratings = [rng.gauss(START, 250) for _ in range(n)]
            scores = [rng.randrange(0, 12) * 10 for _ in range(n)]  # ties now and then
            places = [1 + sum(o > s for o in scores) for s in scores]
            absent = [rng.random() < 0.05 for _ in range(n)]
            ks = [
                k_factor(rng.randrange(0, 60), rng.choice((START, MASTER_RATING))) for _ in ratings
            ]
            tables.append((ratings, rated_places(places, absent), ks))
        times = []
        for _ in range(rounds):
            start = time.process_time()
            for ratings, places, ks in tables:
                rate_table(ratings, places, ks)
            times.append(time.process_time() - start)
        best = min(times)
        if n == 8:
            out["players"] = 8
            out["calls_per_s"] = round(calls / best)
            out["calls_per_s_mean"] = round(calls * rounds / sum(times))
            out["us_per_call_best"] = round(1e6 * best / calls, 2)
        else:
            out[f"calls_per_s_{n}_players"] = round(calls / best)
    return out


# --- Django ------------------------------------------------------------------------------------


def setup_django(db_url: str) -> None:
    """Django in this process, on ``db_url``, DEBUG off, no Redis (Celery's in-memory broker;
    nothing is sent to it: the sends are patched out where games finish)."""
    env = service_env(db_url, "")
    env["DJANGO_ALLOWED_HOSTS"] = "localhost"
    os.environ.clear()
    os.environ.update(env)
    import django

    django.setup()


def use_database(name: str) -> None:
    """Point Django's default connection at another database of the same server."""
    from django.contrib.contenttypes.models import ContentType
    from django.db import connections

    connections.close_all()
    connections["default"].settings_dict["NAME"] = name
    ContentType.objects.clear_cache()


def migrations_pending() -> bool:
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor

    executor = MigrationExecutor(connection)
    return bool(executor.migration_plan(executor.loader.graph.leaf_nodes()))


def migrate() -> None:
    from django.core.management import call_command

    call_command("migrate", interactive=False, verbosity=0)


def reset_games() -> None:
    """Empty every table the phases fill, ids restarting at 1 (a fresh start between phases)."""
    from django.db import connection

    from accounts.models import Club, ClubMembership, User
    from games.models import FinalizerRun, GameResult, HandResult, Seat, Table, TableEvent
    from ratings.models import Pool, RatedGame, Rating, RatingBucket, RatingChange

    models: list[Any] = [
        RatingChange,
        Rating,
        RatingBucket,
        RatedGame,
        Pool,
        FinalizerRun,
        GameResult,
    ]
    models += [HandResult, TableEvent, Seat, Table, ClubMembership, Club, User]
    names = ", ".join(connection.ops.quote_name(m._meta.db_table) for m in models)
    with connection.cursor() as cursor:
        cursor.execute(f"TRUNCATE {names} RESTART IDENTITY CASCADE")


def scalar(cursor: Any, sql: str, params: Sequence[Any] = ()) -> Any:
    """The first column of the one row ``sql`` answers."""
    cursor.execute(sql, params)
    return cursor.fetchone()[0]


def set_sequences(cursor: Any, tables: Iterable[str]) -> None:
    """Each table's id sequence continues after its largest id (rows were copied with ids)."""
    for table in tables:
        cursor.execute(
            f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), "
            f"COALESCE(MAX(id), 1), MAX(id) IS NOT NULL) FROM {table}"
        )


# --- End to end: games played through the services, then the hook ------------------------------


def end_to_end(games: int, seats: int, seed: int) -> dict[str, Any]:
    from unittest import mock

    from accounts.models import User
    from games import finalization, services
    from games.engine.bots import GreedyBot
    from games.engine.play import next_move
    from games.selectors import table_state
    from ratings.models import RatedGame, RatingChange

    rng = random.Random(seed)
    users = [User(username=f"e2e{i:02d}") for i in range(2 * seats)]
    for user in users:
        user.set_unusable_password()
    users = User.objects.bulk_create(users)
    by_name = {u.username: u for u in users}
    last_ms: list[float] = []
    hook_ms: list[float] = []
    finish_ms: list[float] = []
    action_ms: list[float] = []
    actions = 0
    with mock.patch("games.push.on_commit_table"), mock.patch("games.timers.send"):
        for g in range(games):
            seated = rng.sample(users, seats)
            table = services.table_create(
                creator=seated[0], ruleset="standard", seats=seats, overrides={"target": 1}
            )
            for user in seated[1:]:
                services.table_join(table_id=table.pk, user=user)
            table.refresh_from_db()
            state, version = table_state(table), table.version
            bots = {u.username: GreedyBot(seed=f"{seed}:{g}:{i}") for i, u in enumerate(seated)}
            spent = 0.0
            while state is not None and state.phase != "game_over":
                name, action = next_move(state, bots)
                start = time.perf_counter()
                done = services.table_apply_action(
                    table_id=table.pk,
                    user=by_name[name],
                    action=action.to_dict(),
                    version=version,
                )
                spent = time.perf_counter() - start
                action_ms.append(spent)
                actions += 1
                state, version = done.state, done.version
                if done.table.status != "playing":
                    break
            last_ms.append(spent)
            start = time.perf_counter()
            ran = finalization.run_hook(table.pk, "ratings")
            hook = time.perf_counter() - start
            if not ran:
                raise RuntimeError(f"the ratings hook did not run for table {table.pk}")
            hook_ms.append(hook)
            finish_ms.append(spent + hook)
    rated = RatedGame.objects.filter(counted=True).count()
    return {
        "games": games,
        "seats": seats,
        "rules": "standard, target 1",
        "actions_per_game_mean": round(actions / games, 1),
        "action": ms_figures(action_ms),
        "last_action": ms_figures(last_ms),
        "hook": ms_figures(hook_ms),
        "finish": ms_figures(finish_ms),
        "hook_ms": ms_figures(hook_ms)["median_ms"],
        "finish_ms": ms_figures(finish_ms)["median_ms"],
        "games_rated": rated,
        "changes_written": RatingChange.objects.count(),
    }


# --- Finished games as rows ---------------------------------------------------------------------


@dataclass(frozen=True)
class GameRow:
    ruleset: int
    club: int | None
    at: datetime
    placements: list[dict[str, Any]]


TABLE_COLUMNS = (
    "id, ruleset_id, rules, overrides, seats, status, version, deals, turn_seconds, "
    "time_bank_seconds, banks, rated, club_id, creator_id, created_at, started_at, finished_at"
)


def table_row(
    table_id: int, ruleset: int, rules: str, seats: int, club: int | None, creator: int, at: Any
) -> tuple[Any, ...]:
    """A finished rated table with the fewest values its NOT NULL columns need."""
    overrides, deals, banks = "{}", "[]", "{}"
    clock = (60, 0)  # turn_seconds, time_bank_seconds
    head = (table_id, ruleset, rules, overrides, seats, "finished", 0, deals, *clock, banks)
    return (*head, True, club, creator, at, at, at)


def make_users(count: int, prefix: str) -> list[int]:
    from accounts.models import User

    users = [User(username=f"{prefix}{i:05d}", password="!") for i in range(count)]
    return [u.pk for u in User.objects.bulk_create(users, batch_size=5000)]


def random_games(
    rng: random.Random, count: int, users: list[int], start: datetime
) -> list[GameRow]:
    """Finished games among ``users``: preset rule sets (each game counts in the global pool and
    its preset's), one in ten at a club's table (a third pool), some absent or idle players, and
    one in a hundred that only one player ever acted in (in the ledger, not counted)."""
    from accounts.models import Club
    from games.models import RuleSet

    presets = list(RuleSet.objects.filter(is_preset=True).values_list("pk", flat=True))
    clubs = [
        Club.objects.get_or_create(slug=f"club{i}", defaults={"name": f"Club {i}"})[0].pk
        for i in range(5)
    ]
    games = []
    for i in range(count):
        n = rng.choices(SIZES, SIZE_WEIGHTS)[0]
        seated = rng.sample(users, n)
        scores = [rng.randrange(-20, 60) * 10 for _ in seated]
        absent = [rng.random() < 0.04 for _ in seated]
        acted = [not (gone and rng.random() < 0.5) for gone in absent]
        if rng.random() < 0.01:
            acted = [j == 0 for j in range(n)]
        order = sorted(range(n), key=lambda j: -scores[j])
        placements: list[dict[str, Any]] = []
        for rank, j in enumerate(order):
            same = placements and placements[-1]["score"] == scores[j]
            place = placements[-1]["place"] if same else rank + 1
            placements.append(
                {
                    "player": f"u{seated[j]}",
                    "user": seated[j],
                    "place": place,
                    "score": scores[j],
                    "absent": absent[j],
                    "acted": acted[j],
                }
            )
        club = rng.choice(clubs) if rng.random() < 0.1 else None
        games.append(GameRow(rng.choice(presets), club, start + timedelta(seconds=i), placements))
    return games


def write_games(games: list[GameRow], ledger: bool) -> list[int]:
    """The games' tables and results (and ledger rows when asked) by COPY; their table ids."""
    from django.db import connection

    from games.models import RuleSet

    rules = {rs.pk: json.dumps(rs.to_rules({}).to_dict()) for rs in RuleSet.objects.all()}
    with connection.cursor() as cursor:
        first = scalar(cursor, "SELECT COALESCE(MAX(id), 0) FROM games_table") + 1
        ids = list(range(first, first + len(games)))
        with cursor.copy(f"COPY games_table ({TABLE_COLUMNS}) FROM STDIN") as copy:
            for table_id, g in zip(ids, games, strict=True):
                creator = g.placements[0]["user"]
                n = len(g.placements)
                copy.write_row(
                    table_row(table_id, g.ruleset, rules[g.ruleset], n, g.club, creator, g.at)
                )
        columns = "table_id, winner, ended, placements, hands, finished_at"
        with cursor.copy(f"COPY games_gameresult ({columns}) FROM STDIN") as copy:
            for table_id, g in zip(ids, games, strict=True):
                winner = g.placements[0]["player"]
                copy.write_row((table_id, winner, "target", json.dumps(g.placements), "[]", g.at))
        if ledger:
            columns = "table_id, counted, finished_at, rated_at"
            with cursor.copy(f"COPY ratings_ratedgame ({columns}) FROM STDIN") as copy:
                for table_id, g in zip(ids, games, strict=True):
                    counted = sum(bool(p["acted"]) for p in g.placements) >= 2
                    copy.write_row((table_id, counted, g.at, g.at))
        set_sequences(cursor, ["games_table"])
        cursor.execute("ANALYZE")
    return ids


def snapshot() -> dict[str, Any]:
    """Every stored rating figure, keyed so that row ids do not matter."""
    from ratings.models import RatedGame, Rating, RatingBucket, RatingChange

    return {
        "ratings": sorted(
            Rating.objects.values_list(
                "pool_id", "user_id", "rating", "games", "peak", "last_played_at"
            )
        ),
        "changes": sorted(
            RatingChange.objects.values_list(
                "game_id",
                "table_id",
                "pool_id",
                "user_id",
                "before",
                "after",
                "k",
                "place",
                "table_size",
                "at",
            )
        ),
        "buckets": sorted(
            RatingBucket.objects.exclude(players=0, established=0).values_list(
                "pool_id", "bucket", "players", "established"
            )
        ),
        "ledger": list(RatedGame.objects.order_by("id").values_list("id", "table_id", "counted")),
    }


def check_recompute(games: int, users: int, seed: int) -> dict[str, Any]:
    """The hook game by game, then the rebuild: the same rows to the bit?"""
    from games import finalization
    from ratings.models import RatingBucket
    from ratings.recompute import ratings_recompute

    rng = random.Random(seed)
    pool = make_users(users, "check")
    start = datetime(2026, 1, 5, 18, 0, tzinfo=UTC)
    ids = write_games(random_games(rng, games, pool, start), ledger=False)
    began = time.perf_counter()
    for table_id in ids:
        if not finalization.run_hook(table_id, "ratings"):
            raise RuntimeError(f"the ratings hook did not run for table {table_id}")
    hooks_s = time.perf_counter() - began
    empty_buckets = RatingBucket.objects.filter(players=0, established=0).count()
    incremental = snapshot()
    summary = ratings_recompute()
    rebuilt = snapshot()
    differ = [key for key in incremental if incremental[key] != rebuilt[key]]
    return {
        "games": games,
        "users": users,
        "equal": not differ,
        "differing": differ,
        "ratings": len(rebuilt["ratings"]),
        "changes": len(rebuilt["changes"]),
        "buckets": len(rebuilt["buckets"]),
        "pools": summary.pools,
        "empty_buckets_left_by_the_hook": empty_buckets,
        "hook_ms_mean": round(1000 * hooks_s / games, 3),
    }


def measure_recompute(games: int, users: int, seed: int, profile: bool) -> dict[str, Any]:
    from django.db import connection

    from ratings.recompute import ratings_recompute

    rng = random.Random(seed)
    pool = make_users(users, "r")
    start = datetime(2026, 1, 5, 18, 0, tzinfo=UTC)
    made = time.perf_counter()
    write_games(random_games(rng, games, pool, start), ledger=True)
    setup_s = time.perf_counter() - made
    runs = []
    for attempt in range(2):
        prof = cProfile.Profile() if profile and attempt == 1 else None
        began = time.perf_counter()
        if prof is not None:
            prof.enable()
        summary = ratings_recompute()
        if prof is not None:
            prof.disable()
        seconds = time.perf_counter() - began
        runs.append(
            {
                "s": round(seconds, 3),
                "games_per_s": round(summary.games / seconds),
                "changes_per_s": round(summary.changes / seconds),
                "clears_previous": attempt == 1,
            }
        )
        if prof is not None:
            out = io.StringIO()
            stats = pstats.Stats(prof, stream=out)
            stats.sort_stats("tottime").print_stats(30)
            stats.sort_stats("cumulative").print_stats(30)
            print(out.getvalue(), file=sys.stderr)
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")
    slowest = min(r["games_per_s"] for r in runs)
    return {
        "games": summary.games,
        "counted": summary.counted,
        "changes": summary.changes,
        "players": summary.players,
        "users": users,
        "pools": len(summary.pools),
        "games_setup_s": round(setup_s, 2),
        "runs": runs,
        "games_per_s": slowest,
        "changes_per_s": min(r["changes_per_s"] for r in runs),
        "aim_games_per_s": RECOMPUTE_AIM,
        "aim_met": slowest >= RECOMPUTE_AIM,
    }


# --- The population at scale --------------------------------------------------------------------


@dataclass(frozen=True)
class Scale:
    players: int
    changes: int
    seed: int

    def meta(self) -> dict[str, int]:
        return {
            "loader": LOADER_VERSION,
            "players": self.players,
            "changes": self.changes,
            "seed": self.seed,
        }


def games_per_player(rng: random.Random, players: int, changes: int) -> list[int]:
    """Games each player has played (index 0 unused): log-normal, at least one each, summing to
    exactly ``changes``."""
    if changes < 2 * players:
        raise ValueError("give at least two changes per player")
    mean = changes / players
    sigma = 1.3
    mu = math.log(mean - 1) - sigma * sigma / 2
    raw = [1 + rng.lognormvariate(mu, sigma) for _ in range(players)]
    factor = changes / sum(raw)
    games = [0] + [min(5000, max(1, round(r * factor))) for r in raw]
    diff = changes - sum(games)
    while diff:
        pid = rng.randrange(1, players + 1)
        if diff > 0:
            games[pid] += 1
            diff -= 1
        elif games[pid] > 1:
            games[pid] -= 1
            diff += 1
    return games


def final_ratings(rng: random.Random, games: list[int]) -> list[float]:
    """Each player's rating now: the spread grows with the games played (a newcomer is near
    1500, the established spread about N(1500, 250))."""
    out = [START]
    for g in games[1:]:
        spread = min(250.0, 28.0 * math.sqrt(g))
        out.append(min(2800.0, max(700.0, rng.gauss(START, spread))))
    return out


def seat_tables(rng: random.Random, slots: list[int]) -> list[int]:
    """Cut the shuffled seats into tables of 2 to 8 with no player twice at one table (a repeat
    is swapped with a seat elsewhere); the tables' start offsets, the end last."""
    total = len(slots)
    starts = [0]
    p = 0
    sizes = rng.choices(SIZES, SIZE_WEIGHTS, k=total // 2 + 1)
    for n in sizes:
        if p >= total:
            break
        left = total - p
        if n > left:
            n = left
        elif left - n == 1:
            n = n - 1 if n > 2 else n + 1
        end = p + n
        here = set()
        for q in range(p, end):
            x = slots[q]
            while x in here:
                r = rng.randrange(total)
                if p <= r < end:
                    continue
                y = slots[r]
                if y in here or y in slots[q + 1 : end]:
                    continue
                if r < p:
                    t = bisect.bisect_right(starts, r)
                    if x in slots[starts[t - 1] : starts[t]]:
                        continue
                slots[q], slots[r] = y, x
                x = y
            here.add(x)
        p = end
        starts.append(p)
    return starts


def load_population(url: str, scale: Scale) -> dict[str, Any]:
    """Fill the empty, migrated database at ``url`` (see the module docstring)."""
    import psycopg

    from games.models import RuleSet

    began = time.perf_counter()
    parts: dict[str, float] = {}
    mark = time.perf_counter()

    def lap(name: str) -> None:
        nonlocal mark
        now = time.perf_counter()
        parts[name] = round(now - mark, 1)
        mark = now
        log(f"{name}: {parts[name]} s")

    rng = random.Random(scale.seed)
    games = games_per_player(rng, scale.players, scale.changes)
    ratings = final_ratings(rng, games)
    slots = [pid for pid in range(1, scale.players + 1) for _ in range(games[pid])]
    rng.shuffle(slots)
    starts = seat_tables(rng, slots)
    tables = len(starts) - 1
    lap("population")

    standard = RuleSet.objects.get(slug="standard")
    rules = "{}"  # minimal rows: nothing here reads a table's rules (a real row holds ~700 bytes)
    now = datetime.now(UTC).replace(microsecond=0)
    first = now - timedelta(days=730)
    step = (now - first) / tables

    def at_of(t: int) -> datetime:
        return first + step * t

    loaded = ["accounts_user", "games_table", "ratings_ratedgame", "ratings_ratingchange"]
    loaded += ["ratings_rating", "ratings_ratingbucket", "ratings_pool"]
    with psycopg.connect(url) as conn, conn.cursor() as cur:
        cur.execute("SET maintenance_work_mem = '512MB'")
        saved = drop_secondary(cur, loaded)
        lap("drop_indexes")
        # The migrations make the global pool (it is also the ledger lock).
        pool = scalar(cur, "SELECT id FROM ratings_pool WHERE kind = 'global'")
        with cur.copy(
            "COPY accounts_user (id, password, is_superuser, username, first_name, last_name, "
            "email, is_staff, is_active, date_joined) FROM STDIN"
        ) as copy:
            for pid in range(1, scale.players + 1):
                copy.write_row((pid, "!", False, f"p{pid:07d}", "", "", "", False, True, first))
        lap("copy_users")
        with cur.copy(f"COPY games_table ({TABLE_COLUMNS}) FROM STDIN") as copy:
            for t in range(1, tables + 1):
                a, b = starts[t - 1], starts[t]
                copy.write_row(table_row(t, standard.pk, rules, b - a, None, slots[a], at_of(t)))
        lap("copy_tables")
        with cur.copy(
            "COPY ratings_ratedgame (id, table_id, counted, finished_at, rated_at) FROM STDIN"
        ) as copy:
            for t in range(1, tables + 1):
                at = at_of(t)
                copy.write_row((t, t, True, at, at))
        lap("copy_rated_games")
        peaks, lasts = copy_changes(cur, rng, pool, slots, starts, games, ratings, at_of)
        lap("copy_changes")
        with cur.copy(
            "COPY ratings_rating (id, pool_id, user_id, rating, games, peak, last_played_at) "
            "FROM STDIN"
        ) as copy:
            for pid in range(1, scale.players + 1):
                row = (pid, pool, pid, ratings[pid], games[pid], peaks[pid], at_of(lasts[pid]))
                copy.write_row(row)
        counts: dict[int, list[int]] = {}
        for pid in range(1, scale.players + 1):
            c = counts.setdefault(math.floor(ratings[pid]), [0, 0])
            c[0] += 1
            c[1] += games[pid] >= PROVISIONAL_GAMES
        with cur.copy(
            "COPY ratings_ratingbucket (pool_id, bucket, players, established) FROM STDIN"
        ) as copy:
            for b, (n, e) in sorted(counts.items()):
                copy.write_row((pool, b, n, e))
        lap("copy_ratings_buckets")
        set_sequences(cur, loaded)
        restore_secondary(cur, saved)
        lap("indexes_and_foreign_keys")
        cur.execute(f"CREATE TABLE {META_TABLE} (meta jsonb NOT NULL)")
        cur.execute(f"INSERT INTO {META_TABLE} VALUES (%s)", [json.dumps(scale.meta())])
    with psycopg.connect(url, autocommit=True) as conn:
        for table in loaded:
            conn.execute(f"VACUUM (ANALYZE) {table}")
    lap("vacuum_analyze")
    return {
        "loaded_now": True,
        "load_s": round(time.perf_counter() - began, 1),
        "load_parts_s": parts,
        "tables": tables,
    }


def copy_changes(
    cur: Any,
    rng: random.Random,
    pool: int,
    slots: list[int],
    starts: list[int],
    games: list[int],
    ratings: list[float],
    at_of: Callable[[int], datetime],
) -> tuple[list[float], list[int]]:
    """Every table's RatingChange rows, in order: each player's rating walks from 1500 to their
    final rating over their games; places follow the table's changes (the biggest gain first);
    K is ``k_factor`` of the games and peak before. Returns each player's peak and last table."""
    players = len(games)
    cur_rating = [START] * players
    done = [0] * players
    peak = [START] * players
    last = [0] * players
    gauss = rng.gauss
    change_id = 0
    columns = "id, game_id, table_id, pool_id, user_id, before, after, k, place, table_size, at"
    with cur.copy(f"COPY ratings_ratingchange ({columns}) FROM STDIN") as copy:
        write = copy.write_row
        for t in range(1, len(starts)):
            a, b = starts[t - 1], starts[t]
            n = b - a
            at = at_of(t)
            moves = []
            for pid in slots[a:b]:
                i = done[pid]
                left = games[pid] - i
                before = cur_rating[pid]
                if left == 1:
                    after = ratings[pid]
                else:
                    after = before + (ratings[pid] - before) / left + gauss(0.0, 6.0)
                moves.append((after - before, pid, before, after, k_factor(i, peak[pid])))
                cur_rating[pid] = after
                done[pid] = i + 1
                if after > peak[pid]:
                    peak[pid] = after
                last[pid] = t
            moves.sort(reverse=True)
            for place, (_, pid, before, after, k) in enumerate(moves, 1):
                change_id += 1
                write((change_id, t, t, pool, pid, before, after, k, place, n, at))
    return peak, last


def drop_secondary(cur: Any, tables: Sequence[str]) -> list[str]:
    """Drop the tables' foreign keys and the indexes no constraint owns (they are built once
    after the load, much faster than kept up row by row); the statements that restore them."""
    names = list(tables)
    cur.execute(
        "SELECT conrelid::regclass::text, conname, pg_get_constraintdef(oid) FROM pg_constraint "
        "WHERE contype = 'f' AND conrelid::regclass::text = ANY(%s)",
        [names],
    )
    foreign = cur.fetchall()
    cur.execute(
        "SELECT i.indexname, i.indexdef FROM pg_indexes i WHERE i.tablename = ANY(%s) "
        "AND i.schemaname = current_schema() AND NOT EXISTS (SELECT 1 FROM pg_constraint c "
        "WHERE c.conindid = (quote_ident(i.schemaname) || '.' || quote_ident(i.indexname))"
        "::regclass)",
        [names],
    )
    indexes = cur.fetchall()
    for table, name, _ in foreign:
        cur.execute(f'ALTER TABLE {table} DROP CONSTRAINT "{name}"')
    for name, _ in indexes:
        cur.execute(f'DROP INDEX "{name}"')
    restore = [definition for _, definition in indexes]
    restore += [f'ALTER TABLE {t} ADD CONSTRAINT "{n}" {d}' for t, n, d in foreign]
    return restore


def restore_secondary(cur: Any, statements: list[str]) -> None:
    for statement in statements:
        cur.execute(statement)


def kept_population(url: str, scale: Scale) -> bool:
    """Whether the database at ``url`` holds a complete load of ``scale`` (the loader writes its
    meta row last, in the load's own transaction)."""
    import psycopg

    with psycopg.connect(url) as conn, conn.cursor() as cur:
        if not scalar(cur, "SELECT to_regclass(%s) IS NOT NULL", [META_TABLE]):
            return False
        cur.execute(f"SELECT meta FROM {META_TABLE}")
        row = cur.fetchone()
        if row is None or row[0] != scale.meta():
            return False
        changes = scalar(cur, "SELECT COUNT(*) FROM ratings_ratingchange")
        ratings = scalar(cur, "SELECT COUNT(*) FROM ratings_rating")
        users = scalar(cur, "SELECT COUNT(*) FROM accounts_user")
    return (changes, ratings, users) == (scale.changes, scale.players, scale.players)


@contextlib.contextmanager
def board_database(pg_url: str, name: str, keep: bool, reload: bool) -> Iterator[tuple[str, bool]]:
    """``(url, created)``: a database kept between runs (made when missing or ``reload``), or
    with ``keep`` off a fresh one dropped at the end."""
    if not keep:
        with fresh_database(pg_url, name) as url:
            yield url, True
        return
    import psycopg
    from psycopg import sql

    with psycopg.connect(with_path(pg_url, "/postgres"), autocommit=True) as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone()
        if exists and reload:
            conn.execute(sql.SQL("DROP DATABASE {} WITH (FORCE)").format(sql.Identifier(name)))
            exists = None
        if not exists:
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    yield with_path(pg_url, f"/{name}"), not exists


def recreate(pg_url: str, name: str) -> None:
    import psycopg
    from psycopg import sql

    with psycopg.connect(with_path(pg_url, "/postgres"), autocommit=True) as conn:
        conn.execute(
            sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
        )
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))


# --- Leaderboard queries -----------------------------------------------------------------------


def timed(calls: int, fn: Callable[[int], object], warm: int = 5) -> dict[str, Any]:
    for i in range(warm):
        fn(i)
    seconds = []
    for i in range(calls):
        start = time.perf_counter()
        fn(i)
        seconds.append(time.perf_counter() - start)
    return ms_figures(seconds)


_COST = re.compile(r"\s*\(cost=.*$|\s*\(actual.*$")


def plan_summary(sql: str) -> dict[str, Any]:
    """The nodes of ``EXPLAIN (ANALYZE, BUFFERS)`` of one statement, outermost first, its
    execution time and the shared buffers it read (hit, and read from outside the cache)."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("EXPLAIN (ANALYZE, BUFFERS) " + sql)
        lines = [row[0] for row in cursor.fetchall()]
    nodes = []
    hit = read = 0
    for line in lines:
        text = line.strip()
        if text.startswith("->"):
            text = text[2:].strip()
        if "(cost=" in text:
            nodes.append(_COST.sub("", text))
        if text.startswith("Buffers:") and not hit and not read:  # the top node's: the total
            hit = int(m.group(1)) if (m := re.search(r"hit=(\d+)", text)) else 0
            read = int(m.group(1)) if (m := re.search(r"read=(\d+)", text)) else 0
    execution = next((ln for ln in lines if ln.startswith("Execution Time")), "")
    ms = float(re.findall(r"[\d.]+", execution)[0]) if execution else None
    return {
        "statement": sql[:70] + ("..." if len(sql) > 70 else ""),
        "plan": " > ".join(nodes),
        "execution_ms": ms,
        "buffers_hit": hit,
        "buffers_read": read,
    }


def plans(fn: Callable[[], object]) -> list[dict[str, Any]]:
    """Every statement ``fn`` runs, explained."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as captured:
        fn()
    return [plan_summary(q["sql"]) for q in captured.captured_queries]


def measure_boards(calls: int, seed: int) -> dict[str, Any]:
    from django.db import connection
    from django.test import Client

    from accounts.models import User
    from ratings.models import Rating, RatingChange
    from ratings.selectors import (
        Board,
        board_count,
        board_page,
        board_position,
        pool_choice,
        rating_history,
    )

    rng = random.Random(seed)
    players = Rating.objects.count()
    with connection.cursor() as cursor:
        cursor.execute("SELECT user_id FROM ratings_rating WHERE games >= %s", [PROVISIONAL_GAMES])
        established = [row[0] for row in cursor.fetchall()]
        cursor.execute(
            "SELECT user_id, games FROM ratings_rating ORDER BY games DESC, user_id LIMIT 1"
        )
        busiest, busiest_games = cursor.fetchone()
    ids = [rng.randrange(1, players + 1) for _ in range(calls + 10)]
    pros = [rng.choice(established) for _ in range(calls + 10)]
    names = {
        u.pk: u for u in User.objects.filter(pk__in={*ids, *pros, busiest}).only("id", "username")
    }
    choice = pool_choice()
    out: dict[str, Any] = {
        "players": players,
        "established": len(established),
        "changes": RatingChange.objects.count(),
        "calls": calls,
    }

    def top(provisional: bool) -> Callable[[int], object]:
        return lambda i: board_page(Board(pool_choice(), provisional=provisional), 0, 100)

    def position(who: list[int], provisional: bool) -> Callable[[int], object]:
        def call(i: int) -> object:
            found = board_position(
                Board(pool_choice(), provisional=provisional), names[who[i]].username
            )
            if found is None:
                raise RuntimeError(f"{names[who[i]].username} is not on the board")
            return found

        return call

    def count(provisional: bool) -> Callable[[int], object]:
        return lambda i: board_count(Board(pool_choice(), provisional=provisional))

    out["top100"] = timed(calls, top(True))
    out["top100_established"] = timed(calls, top(False))
    out["my_rank"] = timed(calls, position(ids, True))
    out["my_rank_established"] = timed(calls, position(pros, False))
    out["count"] = timed(calls, count(True))
    out["count_established"] = timed(calls, count(False))
    out["history_100"] = timed(calls, lambda i: rating_history(choice, names[ids[i]], 100))
    out["history_100_busiest"] = {
        "games": busiest_games,
        **timed(calls, lambda i: rating_history(choice, names[busiest], 100)),
    }
    client = Client(SERVER_NAME="localhost")

    def get(path: Callable[[int], str]) -> Callable[[int], object]:
        def call(i: int) -> object:
            answer = client.get(path(i))
            if answer.status_code != 200:
                raise RuntimeError(f"{path(i)}: HTTP {answer.status_code}")
            return answer

        return call

    out["api_top100"] = timed(calls, get(lambda i: "/api/leaderboard/?limit=100"))
    out["api_top100_established"] = timed(
        calls, get(lambda i: "/api/leaderboard/?limit=100&provisional=false")
    )
    # Fewer calls: the page around a player is read with OFFSET, slow deep in a big board.
    out["api_around"] = timed(
        max(10, calls // 10),
        get(lambda i: f"/api/leaderboard/?limit=100&around={names[ids[i]].username}"),
        warm=2,
    )
    out["api_player"] = timed(calls, get(lambda i: f"/api/players/{names[ids[i]].username}/"))
    middle = names[ids[0]].username
    out["explain"] = {
        "top100": plans(lambda: board_page(Board(pool_choice()), 0, 100)),
        "top100_established": plans(
            lambda: board_page(Board(pool_choice(), provisional=False), 0, 100)
        ),
        "my_rank": plans(lambda: board_position(Board(pool_choice()), middle)),
        "count": plans(lambda: board_count(Board(pool_choice()))),
        "history_100": plans(lambda: rating_history(choice, names[ids[0]], 100)),
    }
    top100 = max(out["top100"]["p95_ms"], out["top100_established"]["p95_ms"])
    rank = max(out["my_rank"]["p95_ms"], out["my_rank_established"]["p95_ms"])
    out["aims"] = {
        "p95_ms_under": BOARD_MS_AIM,
        "top100_met": top100 < BOARD_MS_AIM,
        "my_rank_met": rank < BOARD_MS_AIM,
    }
    return out


def hook_at_scale(games: int, seats: int, seed: int) -> dict[str, Any]:
    """The hook on games of established players in the big database, rolled back at the end."""
    from django.db import connection, transaction

    from games import finalization
    from games.models import GameResult, RuleSet, Table

    rng = random.Random(seed)
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT user_id FROM ratings_rating WHERE games >= %s ORDER BY user_id",
            [PROVISIONAL_GAMES],
        )
        established = [row[0] for row in cursor.fetchall()]
    standard = RuleSet.objects.get(slug="standard")
    rules = standard.to_rules({}).to_dict()
    seconds = []
    with transaction.atomic():
        for _ in range(games):
            seated = rng.sample(established, seats)
            now = datetime.now(UTC)
            table = Table.objects.create(
                ruleset=standard,
                rules=rules,
                seats=seats,
                status=Table.Status.FINISHED,
                creator_id=seated[0],
                started_at=now,
                finished_at=now,
            )
            placements = [
                {"player": f"p{u:07d}", "user": u, "place": i + 1, "score": 100 - i}
                | {"absent": False, "acted": True}
                for i, u in enumerate(seated)
            ]
            GameResult.objects.create(
                table=table,
                winner=placements[0]["player"],
                ended="target",
                placements=placements,
                hands=[],
                finished_at=now,
            )
            start = time.perf_counter()
            if not finalization.run_hook(table.pk, "ratings"):
                raise RuntimeError(f"the ratings hook did not run for table {table.pk}")
            seconds.append(time.perf_counter() - start)
        transaction.set_rollback(True)
    return {"games": games, "seats": seats, "committed": False, **ms_figures(seconds)}


# --- Running -----------------------------------------------------------------------------------


def arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=1_000_000, help="rated players (1M)")
    parser.add_argument("--changes", type=int, default=10_000_000, help="rating changes (10M)")
    parser.add_argument("--reload", action="store_true", help="load the kept database again")
    parser.add_argument("--calls", type=int, default=300, help="timed calls per query (300)")
    parser.add_argument("--rate-calls", type=int, default=20_000, help="rate_table calls (20000)")
    parser.add_argument("--rounds", type=int, default=5, help="rate_table rounds (5)")
    parser.add_argument("--e2e-games", type=int, default=30, help="games played (30)")
    parser.add_argument("--check-games", type=int, default=500, help="hook vs recompute (500)")
    parser.add_argument("--recompute-games", type=int, default=20_000, help="rebuilt (20000)")
    parser.add_argument("--recompute-users", type=int, default=3_000, help="their users (3000)")
    parser.add_argument("--scale-hook-games", type=int, default=50, help="hook at scale (50)")
    parser.add_argument("--seed", type=int, default=500)
    parser.add_argument("--quick", action="store_true", help="small and fast: a smoke run")
    parser.add_argument("--profile", action="store_true", help="cProfile the rebuild to stderr")
    parser.add_argument("--pg", default="postgres://postgres@127.0.0.1:5432/")
    args = parser.parse_args(argv)
    if args.quick:
        args.players, args.changes, args.calls = 20_000, 200_000, 40
        args.rate_calls, args.rounds, args.e2e_games = 5_000, 3, 4
        args.check_games, args.recompute_games, args.recompute_users = 200, 1_000, 300
        args.scale_hook_games = 10
    return args


def run(args: argparse.Namespace) -> dict[str, Any]:
    from django.db import connections

    result: dict[str, Any] = {}
    result["rate_table"] = measure_rate_table(args.rate_calls, args.rounds, args.seed)
    log("rate_table done")
    with fresh_database(args.pg, QUICK_DB if args.quick else DB_NAME) as url:
        setup_django(url)
        try:
            migrate()
            result["end_to_end"] = end_to_end(args.e2e_games, 4, args.seed)
            log("end_to_end done")
            reset_games()
            result["recompute_equals_incremental"] = check_recompute(
                args.check_games, max(30, args.check_games // 10), args.seed
            )
            log("recompute check done")
            reset_games()
            result["recompute"] = measure_recompute(
                args.recompute_games, args.recompute_users, args.seed, args.profile
            )
            log("recompute done")
        finally:
            connections.close_all()
    scale = Scale(args.players, args.changes, args.seed)
    name = QUICK_BIG_DB if args.quick else BIG_DB
    with board_database(args.pg, name, keep=not args.quick, reload=args.reload) as (url, made):
        use_database(name)
        try:
            if not made and (migrations_pending() or not kept_population(url, scale)):
                log(f"{name} is out of date: loading it again")
                connections.close_all()
                recreate(args.pg, name)
                made = True
            if made:
                migrate()
                log(f"loading {scale.players} players and {scale.changes} changes into {name}")
                load = load_population(url, scale)
            else:
                load = {"loaded_now": False}
            result["leaderboard"] = {
                "database": name,
                **load,
                **measure_boards(args.calls, args.seed),
            }
            log("leaderboard done")
            result["hook_at_scale"] = hook_at_scale(args.scale_hook_games, 4, args.seed)
        finally:
            connections.close_all()
    return result


def main(argv: list[str] | None = None) -> None:
    args = arguments(argv)
    result: dict[str, Any] = {"bench": "ratings"}
    reason = unreachable(args.pg)
    if reason:
        print(json.dumps({**result, "skipped": reason}))
        return
    started = time.perf_counter()
    result.update(run(args))
    board, recompute = result["leaderboard"], result["recompute"]
    result["aims"] = {
        "leaderboard_p95_ms_under": BOARD_MS_AIM,
        "top100_met": board["aims"]["top100_met"],
        "my_rank_met": board["aims"]["my_rank_met"],
        "recompute_games_per_s_at_least": RECOMPUTE_AIM,
        "recompute_met": recompute["aim_met"],
    }
    result["quick"] = args.quick
    result["run_s"] = round(time.perf_counter() - started, 1)
    result["mode"] = "PostgreSQL, DEBUG off, no Redis (pushes and Celery sends are no-ops)"
    result["python"] = platform.python_version()
    result["cpu_count"] = os.cpu_count()
    result["note"] = NOTE
    print(json.dumps(result))


if __name__ == "__main__":
    main()
