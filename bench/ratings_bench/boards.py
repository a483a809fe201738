"""The ratings bench's (bench/ratings.py) timings on the population at scale (scale.py here).

- ``leaderboard``: warm, over ``--calls`` calls each: the top 100 as the API gets it
  (``pool_choice()``, ``board_page(Board(choice), 0, 100)``) and the board's count, with and
  without provisional players; "my rank" (``board_position``, the bucket path) for random players
  (random established ones when provisional players are hidden); a player's last 100 changes
  (``rating_history``); and the whole API calls through Django's test client (the leaderboard
  page, the player page, and the page ``around`` a random player: a tenth as many calls, as it
  reads with OFFSET). Median, p95 and max wall ms, and a summary of each query's
  ``EXPLAIN (ANALYZE, BUFFERS)``. Aim: top 100 and "my rank" under 20 ms (p95).
- ``hook_at_scale``: the hook on games of established players in that database, inside a
  transaction rolled back at the end (so no commit is timed and the database is left as loaded).
"""

from __future__ import annotations

import random
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from bench.ratings_bench.common import ms_figures, run_rating_hook
from ratings.glicko import PROVISIONAL_DEVIATION

BOARD_MS_AIM = 20.0
_COST = re.compile(r"\s*\(cost=.*$|\s*\(actual.*$")


def timed(calls: int, fn: Callable[[int], object], warm: int = 5) -> dict[str, Any]:
    for i in range(warm):
        fn(i)
    seconds = []
    for i in range(calls):
        start = time.perf_counter()
        fn(i)
        seconds.append(time.perf_counter() - start)
    return ms_figures(seconds)


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


# --- Leaderboard -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Sample:
    players: int
    established: list[int]
    busiest: int  # the user with the most games
    busiest_games: int
    ids: list[int]  # random players, one a call
    pros: list[int]  # random established players, one a call
    names: dict[int, Any]  # their users by id


def sample_players(calls: int, seed: int) -> Sample:
    from django.db import connection

    from accounts.models import User
    from ratings.models import Rating

    rng = random.Random(seed)
    players = Rating.objects.count()
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT user_id FROM ratings_rating WHERE deviation <= %s", [PROVISIONAL_DEVIATION]
        )
        established = [row[0] for row in cursor.fetchall()]
        cursor.execute(
            "SELECT user_id, games FROM ratings_rating ORDER BY games DESC, user_id LIMIT 1"
        )
        busiest, busiest_games = cursor.fetchone()
    ids = [rng.randrange(1, players + 1) for _ in range(calls + 10)]
    pros = [rng.choice(established) for _ in range(calls + 10)]
    users = User.objects.filter(pk__in={*ids, *pros, busiest}).only("id", "username")
    names = {u.pk: u for u in users}
    return Sample(players, established, busiest, busiest_games, ids, pros, names)


def selector_timings(calls: int, s: Sample) -> dict[str, Any]:
    """The selectors the API calls, one by one."""
    from ratings.selectors import (
        Board,
        board_count,
        board_page,
        board_position,
        pool_choice,
        rating_history,
    )

    def top(provisional: bool) -> Callable[[int], object]:
        return lambda i: board_page(Board(pool_choice(), provisional=provisional), 0, 100)

    def position(who: list[int], provisional: bool) -> Callable[[int], object]:
        def call(i: int) -> object:
            username = s.names[who[i]].username
            found = board_position(Board(pool_choice(), provisional=provisional), username)
            if found is None:
                raise RuntimeError(f"{username} is not on the board")
            return found

        return call

    def count(provisional: bool) -> Callable[[int], object]:
        return lambda i: board_count(Board(pool_choice(), provisional=provisional))

    choice = pool_choice()
    return {
        "top100": timed(calls, top(True)),
        "top100_established": timed(calls, top(False)),
        "my_rank": timed(calls, position(s.ids, True)),
        "my_rank_established": timed(calls, position(s.pros, False)),
        "count": timed(calls, count(True)),
        "count_established": timed(calls, count(False)),
        "history_100": timed(calls, lambda i: rating_history(choice, s.names[s.ids[i]], 100)),
        "history_100_busiest": {
            "games": s.busiest_games,
            **timed(calls, lambda i: rating_history(choice, s.names[s.busiest], 100)),
        },
    }


def api_timings(calls: int, s: Sample) -> dict[str, Any]:
    """The whole API calls, through Django's test client."""
    from django.test import Client

    client = Client(SERVER_NAME="localhost")

    def get(path: Callable[[int], str]) -> Callable[[int], object]:
        def call(i: int) -> object:
            answer = client.get(path(i))
            if answer.status_code != 200:
                raise RuntimeError(f"{path(i)}: HTTP {answer.status_code}")
            return answer

        return call

    board = "/api/leaderboard/?limit=100"
    return {
        "api_top100": timed(calls, get(lambda i: board)),
        "api_top100_established": timed(calls, get(lambda i: f"{board}&provisional=false")),
        # Fewer calls: the page around a player is read with OFFSET, slow deep in a big board.
        "api_around": timed(
            max(10, calls // 10),
            get(lambda i: f"{board}&around={s.names[s.ids[i]].username}"),
            warm=2,
        ),
        "api_player": timed(calls, get(lambda i: f"/api/players/{s.names[s.ids[i]].username}/")),
    }


def explained(s: Sample) -> dict[str, Any]:
    """The plans of the statements the selectors run (one call each)."""
    from ratings import selectors as sel

    choice = sel.pool_choice()
    middle = s.names[s.ids[0]].username
    return {
        "top100": plans(lambda: sel.board_page(sel.Board(sel.pool_choice()), 0, 100)),
        "top100_established": plans(
            lambda: sel.board_page(sel.Board(sel.pool_choice(), provisional=False), 0, 100)
        ),
        "my_rank": plans(lambda: sel.board_position(sel.Board(sel.pool_choice()), middle)),
        "count": plans(lambda: sel.board_count(sel.Board(sel.pool_choice()))),
        "history_100": plans(lambda: sel.rating_history(choice, s.names[s.ids[0]], 100)),
    }


def measure_boards(calls: int, seed: int) -> dict[str, Any]:
    from ratings.models import RatingChange

    s = sample_players(calls, seed)
    out: dict[str, Any] = {
        "players": s.players,
        "established": len(s.established),
        "changes": RatingChange.objects.count(),
        "calls": calls,
    }
    out.update(selector_timings(calls, s))
    out.update(api_timings(calls, s))
    out["explain"] = explained(s)
    top100 = max(out["top100"]["p95_ms"], out["top100_established"]["p95_ms"])
    rank = max(out["my_rank"]["p95_ms"], out["my_rank_established"]["p95_ms"])
    out["aims"] = {
        "p95_ms_under": BOARD_MS_AIM,
        "top100_met": top100 < BOARD_MS_AIM,
        "my_rank_met": rank < BOARD_MS_AIM,
    }
    return out


# --- The hook at scale -------------------------------------------------------------------------


def finished_table(standard: Any, rules: dict[str, Any], seated: list[int]) -> int:
    """A finished standard table of ``seated`` and its result (placed in seat order); its id."""
    from games.models import GameResult, Table

    now = datetime.now(UTC)
    table = Table.objects.create(
        ruleset=standard,
        rules=rules,
        seats=len(seated),
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
        winner=f"p{seated[0]:07d}",
        ended="target",
        placements=placements,
        hands=[],
        finished_at=now,
    )
    return int(table.pk)


def hook_at_scale(games: int, seats: int, seed: int) -> dict[str, Any]:
    """The hook on games of established players in the big database, rolled back at the end."""
    from django.db import connection, transaction

    from games.models import RuleSet

    rng = random.Random(seed)
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT user_id FROM ratings_rating WHERE deviation <= %s ORDER BY user_id",
            [PROVISIONAL_DEVIATION],
        )
        established = [row[0] for row in cursor.fetchall()]
    standard = RuleSet.objects.get(slug="standard")
    rules = standard.to_rules({}).to_dict()
    seconds = []
    with transaction.atomic():
        for _ in range(games):
            table_id = finished_table(standard, rules, rng.sample(established, seats))
            seconds.append(run_rating_hook(table_id))
        transaction.set_rollback(True)
    return {"games": games, "seats": seats, "committed": False, **ms_figures(seconds)}
