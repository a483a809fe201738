"""The ratings bench's (bench/ratings.py) rebuild: ``ratings_recompute`` against the hook, and its
throughput, on finished games made as rows.

- ``recompute_equals_incremental``: ``--check-games`` finished games made as rows (2 to 8 players
  from a pool of users, preset rule sets so each counts in two pools, some club tables in three,
  absent and idle players, one table in a hundred that only one player acted at) are rated one
  by one by the hook, every Rating, RatingChange and non-empty RatingBucket row is kept
  (``ratings.audit.stored_figures``), ``ratings_recompute`` rebuilds, and the two are compared
  exactly (floats to the bit).
- ``recompute``: ``--recompute-games`` such games and their ledger rows, then
  ``ratings.recompute.ratings_recompute()`` in this process, twice (the first has nothing to
  clear, the second deletes the first one's rows): games and changes per second. Aim: at least
  5,000 games a second. ``--profile`` prints a cProfile of the second run to stderr.
"""

from __future__ import annotations

import cProfile
import io
import json
import pstats
import random
import sys
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from bench.ratings_bench.common import (
    SIZE_WEIGHTS,
    SIZES,
    TABLE_COLUMNS,
    run_rating_hook,
    scalar,
    set_sequences,
    table_row,
)

RECOMPUTE_AIM = 5_000
FIRST_GAME_AT = datetime(2026, 1, 5, 18, 0, tzinfo=UTC)


@dataclass(frozen=True)
class GameRow:
    ruleset: int
    club: int | None
    at: datetime
    placements: list[dict[str, Any]]


def make_users(count: int, prefix: str) -> list[int]:
    from accounts.models import User

    users = [User(username=f"{prefix}{i:05d}", password="!") for i in range(count)]
    return [u.pk for u in User.objects.bulk_create(users, batch_size=5000)]


def placements_of(
    seated: list[int], scores: list[int], absent: list[bool], acted: list[bool]
) -> list[dict[str, Any]]:
    """The result's placements, best score first (equal scores share a place)."""
    order = sorted(range(len(seated)), key=lambda j: -scores[j])
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
    return placements


def random_game(
    rng: random.Random, users: list[int], presets: list[int], clubs: list[int], at: datetime
) -> GameRow:
    n = rng.choices(SIZES, SIZE_WEIGHTS)[0]
    seated = rng.sample(users, n)
    scores = [rng.randrange(-20, 60) * 10 for _ in seated]
    absent = [rng.random() < 0.04 for _ in seated]
    acted = [not (gone and rng.random() < 0.5) for gone in absent]
    if rng.random() < 0.01:
        acted = [j == 0 for j in range(n)]
    placements = placements_of(seated, scores, absent, acted)
    club = rng.choice(clubs) if rng.random() < 0.1 else None
    return GameRow(rng.choice(presets), club, at, placements)


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
    return [
        random_game(rng, users, presets, clubs, start + timedelta(seconds=i)) for i in range(count)
    ]


def write_games(games: list[GameRow], ledger: bool) -> list[int]:
    """The games' tables and results (and ledger rows when asked) by COPY; their table ids."""
    from django.db import connection

    from games.models import RuleSet

    rules = {rs.pk: json.dumps(rs.to_rules({}).to_dict()) for rs in RuleSet.objects.all()}
    with connection.cursor() as cursor:
        first = scalar(cursor, "SELECT COALESCE(MAX(id), 0) FROM games_table") + 1
        rows = list(zip(range(first, first + len(games)), games, strict=True))
        with cursor.copy(f"COPY games_table ({TABLE_COLUMNS}) FROM STDIN") as copy:
            for table_id, g in rows:
                creator, n = g.placements[0]["user"], len(g.placements)
                copy.write_row(
                    table_row(table_id, g.ruleset, rules[g.ruleset], n, g.club, creator, g.at)
                )
        columns = "table_id, winner, ended, placements, hands, finished_at"
        with cursor.copy(f"COPY games_gameresult ({columns}) FROM STDIN") as copy:
            for table_id, g in rows:
                winner = g.placements[0]["player"]
                copy.write_row((table_id, winner, "target", json.dumps(g.placements), "[]", g.at))
        if ledger:
            copy_ledger(cursor, rows)
        set_sequences(cursor, ["games_table"])
        cursor.execute("ANALYZE")
    return [table_id for table_id, _ in rows]


def copy_ledger(cursor: Any, rows: list[tuple[int, GameRow]]) -> None:
    """The games' RatedGame rows: counted when at least two players acted."""
    columns = "table_id, counted, finished_at, rated_at"
    with cursor.copy(f"COPY ratings_ratedgame ({columns}) FROM STDIN") as copy:
        for table_id, g in rows:
            counted = sum(bool(p["acted"]) for p in g.placements) >= 2
            copy.write_row((table_id, counted, g.at, g.at))


def check_recompute(games: int, users: int, seed: int) -> dict[str, Any]:
    """The hook game by game, then the rebuild: the same rows to the bit?"""
    from ratings.audit import stored_figures
    from ratings.models import RatingBucket
    from ratings.recompute import ratings_recompute

    rng = random.Random(seed)
    pool = make_users(users, "check")
    ids = write_games(random_games(rng, games, pool, FIRST_GAME_AT), ledger=False)
    began = time.perf_counter()
    for table_id in ids:
        run_rating_hook(table_id)
    hooks_s = time.perf_counter() - began
    empty_buckets = RatingBucket.objects.filter(players=0, established=0).count()
    incremental = stored_figures()
    summary = ratings_recompute()
    rebuilt = stored_figures()
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


def rebuild(profile: bool) -> tuple[Any, float]:
    """``ratings_recompute()`` once: its summary and wall seconds (a cProfile of it to stderr
    when ``profile``)."""
    from ratings.recompute import ratings_recompute

    prof = cProfile.Profile() if profile else None
    began = time.perf_counter()
    if prof is not None:
        prof.enable()
    summary = ratings_recompute()
    if prof is not None:
        prof.disable()
    seconds = time.perf_counter() - began
    if prof is not None:
        out = io.StringIO()
        stats = pstats.Stats(prof, stream=out)
        stats.sort_stats("tottime").print_stats(30)
        stats.sort_stats("cumulative").print_stats(30)
        print(out.getvalue(), file=sys.stderr)
    return summary, seconds


def measure_recompute(games: int, users: int, seed: int, profile: bool) -> dict[str, Any]:
    from django.db import connection

    rng = random.Random(seed)
    pool = make_users(users, "r")
    made = time.perf_counter()
    write_games(random_games(rng, games, pool, FIRST_GAME_AT), ledger=True)
    setup_s = time.perf_counter() - made
    runs = []
    for attempt in range(2):
        summary, seconds = rebuild(profile and attempt == 1)
        runs.append(
            {
                "s": round(seconds, 3),
                "games_per_s": round(summary.games / seconds),
                "changes_per_s": round(summary.changes / seconds),
                "clears_previous": attempt == 1,
            }
        )
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
