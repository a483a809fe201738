"""The ratings bench's (bench/ratings.py) population at scale and its load.

``--players`` users with a global rating each and ``--changes`` RatingChange rows (with the
RatedGame and games.Table rows they reference), loaded with COPY into ``rummy_ratingsbench_big``,
which is kept between runs (kept.py here). The synthetic population: games per player
log-normal (median 5, mean ``changes / players``), tables of 2 to 8 spread evenly over two
years, each player's history a walk from 1500 ending at a final rating spread with the games played
(about N(1500, 250) for the busiest), consistent RatingBucket counts. Each player's deviation
follows ratings/glicko.py's arithmetic along their games: ``before_game`` grows it by one game's
drift and the days since their last table, and a table of N takes it down by what a table of N
equals with deviations of ``TYPICAL_DEVIATION`` would (``table_information``). So, as in the
service, only players who play often (every two or three weeks or more) are established and most
are provisional. K is ``effective_k`` of the deviation after. Table rows are minimal (``rules``
is ``{}``: nothing here reads them); every rating is in the global pool. What is timed on it is
in boards.py here.
"""

from __future__ import annotations

import bisect
import json
import math
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from accounts.usernames import canonical, skeleton
from bench.ratings_bench.common import (
    SIZE_WEIGHTS,
    SIZES,
    TABLE_COLUMNS,
    log,
    scalar,
    set_sequences,
    table_row,
)
from ratings.elo import START
from ratings.glicko import (
    START_DEVIATION,
    Skill,
    before_game,
    effective_k,
    provisional,
    rate_table,
)

#: Bump when the loaded population changes shape: a kept database of another version is reloaded.
LOADER_VERSION = 3
#: The deviation of the opponents a synthetic player's deviation is worked out against.
TYPICAL_DEVIATION = 150.0
META_TABLE = "bench_ratings_meta"
LOADED = (
    "accounts_user",
    "games_table",
    "ratings_ratedgame",
    "ratings_ratingchange",
    "ratings_rating",
    "ratings_ratingbucket",
    "ratings_pool",
)


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


@dataclass(frozen=True)
class Population:
    games: list[int]  # each player's games (index 0 unused)
    ratings: list[float]  # each player's rating now
    slots: list[int]  # the seats of every table, table after table
    starts: list[int]  # each table's first slot, the end last
    first: datetime  # table 1 is this long before the last one, played now (two years)
    step: timedelta

    @property
    def tables(self) -> int:
        return len(self.starts) - 1

    def at_of(self, table: int) -> datetime:
        return self.first + self.step * table


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


def population(rng: random.Random, scale: Scale) -> Population:
    games = games_per_player(rng, scale.players, scale.changes)
    ratings = final_ratings(rng, games)
    slots = [pid for pid in range(1, scale.players + 1) for _ in range(games[pid])]
    rng.shuffle(slots)
    starts = seat_tables(rng, slots)
    now = datetime.now(UTC).replace(microsecond=0)
    first = now - timedelta(days=730)
    return Population(games, ratings, slots, starts, first, (now - first) / (len(starts) - 1))


def table_information(n: int) -> float:
    """What one table of ``n`` adds to ``1 / deviation ** 2`` (points): ``rate_table``'s
    information for a player among equals whose deviations are ``TYPICAL_DEVIATION`` (at equal
    ratings it does not depend on the player's own deviation)."""
    brought = [Skill(START, START_DEVIATION)] + [Skill(START, TYPICAL_DEVIATION)] * (n - 1)
    after = rate_table(brought, [1] * n)[0].deviation
    return 1.0 / (after * after) - 1.0 / (START_DEVIATION * START_DEVIATION)


def next_deviation(deviation: float, days_away: float, information: float) -> tuple[float, float]:
    """The deviation brought to a table after ``days_away`` and the one it leaves."""
    brought = before_game(deviation, days_away)
    return brought, 1.0 / math.sqrt(1.0 / (brought * brought) + information)


class Laps:
    """Seconds of each part of the load, logged as it ends."""

    def __init__(self) -> None:
        self.parts: dict[str, float] = {}
        self.mark = time.perf_counter()

    def __call__(self, name: str) -> None:
        now = time.perf_counter()
        self.parts[name] = round(now - self.mark, 1)
        self.mark = now
        log(f"{name}: {self.parts[name]} s")


def load_population(url: str, scale: Scale) -> dict[str, Any]:
    """Fill the empty, migrated database at ``url`` (see the module docstring)."""
    import psycopg

    from games.models import RuleSet

    began = time.perf_counter()
    lap = Laps()
    rng = random.Random(scale.seed)
    pop = population(rng, scale)
    lap("population")
    # Read through Django before the load's transaction takes its locks (dropping a foreign key
    # locks the table it references too).
    standard = RuleSet.objects.get(slug="standard").pk
    with psycopg.connect(url) as conn, conn.cursor() as cur:
        cur.execute("SET maintenance_work_mem = '512MB'")
        saved = drop_secondary(cur, LOADED)
        lap("drop_indexes")
        copy_rows(cur, rng, pop, standard, lap)
        set_sequences(cur, LOADED)
        restore_secondary(cur, saved)
        lap("indexes_and_foreign_keys")
        cur.execute(f"CREATE TABLE {META_TABLE} (meta jsonb NOT NULL)")
        cur.execute(f"INSERT INTO {META_TABLE} VALUES (%s)", [json.dumps(scale.meta())])
    with psycopg.connect(url, autocommit=True) as conn:
        for table in LOADED:
            conn.execute(f"VACUUM (ANALYZE) {table}")
    lap("vacuum_analyze")
    return {
        "loaded_now": True,
        "load_s": round(time.perf_counter() - began, 1),
        "load_parts_s": lap.parts,
        "tables": pop.tables,
    }


def copy_rows(cur: Any, rng: random.Random, pop: Population, standard: int, lap: Laps) -> None:
    """Every row of the population, table by table of the database (``standard``: the rule
    set's id)."""
    # The migrations make the global pool (it is also the ledger lock).
    pool = scalar(cur, "SELECT id FROM ratings_pool WHERE kind = 'global'")
    players = range(1, len(pop.games))
    with cur.copy(
        "COPY accounts_user (id, password, is_superuser, username, first_name, last_name, "
        "email, is_staff, is_active, date_joined, username_key, username_skeleton) FROM STDIN"
    ) as copy:
        for pid in players:
            name = f"p{pid:07d}"
            row = (pid, "!", False, name, "", "", "", False, True, pop.first)
            copy.write_row((*row, canonical(name), skeleton(name)))
    lap("copy_users")
    rules = "{}"  # minimal rows: nothing here reads a table's rules (a real row holds ~700 bytes)
    with cur.copy(f"COPY games_table ({TABLE_COLUMNS}) FROM STDIN") as copy:
        for t in range(1, pop.tables + 1):
            a, b = pop.starts[t - 1], pop.starts[t]
            copy.write_row(table_row(t, standard, rules, b - a, None, pop.slots[a], pop.at_of(t)))
    lap("copy_tables")
    with cur.copy(
        "COPY ratings_ratedgame (id, table_id, counted, finished_at, rated_at) FROM STDIN"
    ) as copy:
        for t in range(1, pop.tables + 1):
            at = pop.at_of(t)
            copy.write_row((t, t, True, at, at))
    lap("copy_rated_games")
    ends = copy_changes(cur, rng, pool, pop)
    lap("copy_changes")
    copy_ratings(cur, pool, pop, ends)
    lap("copy_ratings_buckets")


@dataclass(frozen=True)
class Ends:
    """Where each player's history ends (index 0 unused): peak, last table, deviation."""

    peaks: list[float]
    lasts: list[int]
    deviations: list[float]


def copy_changes(cur: Any, rng: random.Random, pool: int, pop: Population) -> Ends:
    """Every table's RatingChange rows, in order: each player's rating walks from 1500 to their
    final rating over their games; places follow the table's changes (the biggest gain first);
    the deviation as the module docstring says, K ``effective_k`` of the deviation after.
    Returns where each player's history ends. One loop over every change, kept in
    one function: it writes ten million rows."""
    games, ratings, slots, starts = pop.games, pop.ratings, pop.slots, pop.starts
    players = len(games)
    cur_rating = [START] * players
    deviation = [START_DEVIATION] * players
    done = [0] * players
    peak = [START] * players
    last = [0] * players
    gauss = rng.gauss
    step_days = pop.step.total_seconds() / 86400.0
    information = {n: table_information(n) for n in SIZES}
    change_id = 0
    columns = (
        "id, game_id, table_id, pool_id, user_id, before, after, k, place, table_size, at, "
        "deviation_before, deviation_after"
    )
    with cur.copy(f"COPY ratings_ratingchange ({columns}) FROM STDIN") as copy:
        write = copy.write_row
        for t in range(1, len(starts)):
            a, b = starts[t - 1], starts[t]
            n = b - a
            at = pop.at_of(t)
            moves = []
            for pid in slots[a:b]:
                i = done[pid]
                left = games[pid] - i
                before = cur_rating[pid]
                if left == 1:
                    after = ratings[pid]
                else:
                    after = before + (ratings[pid] - before) / left + gauss(0.0, 6.0)
                away = (t - last[pid]) * step_days if i else 0.0
                dev_before, dev_after = next_deviation(deviation[pid], away, information[n])
                k = effective_k(dev_after, n)
                moves.append((after - before, pid, before, after, k, dev_before, dev_after))
                cur_rating[pid] = after
                deviation[pid] = dev_after
                done[pid] = i + 1
                if after > peak[pid]:
                    peak[pid] = after
                last[pid] = t
            moves.sort(reverse=True)
            for place, (_, pid, before, after, k, dev_before, dev_after) in enumerate(moves, 1):
                change_id += 1
                row = (change_id, t, t, pool, pid, before, after, k, place, n, at)
                write((*row, dev_before, dev_after))
    return Ends(peak, last, deviation)


def copy_ratings(cur: Any, pool: int, pop: Population, ends: Ends) -> None:
    """Each player's Rating row and the RatingBucket counts they make (established: a
    deviation no longer provisional)."""
    games, ratings = pop.games, pop.ratings
    with cur.copy(
        "COPY ratings_rating (id, pool_id, user_id, rating, games, peak, last_played_at, "
        "deviation) FROM STDIN"
    ) as copy:
        for pid in range(1, len(games)):
            at = pop.at_of(ends.lasts[pid])
            row = (pid, pool, pid, ratings[pid], games[pid], ends.peaks[pid], at)
            copy.write_row((*row, ends.deviations[pid]))
    counts: dict[int, list[int]] = {}
    for pid in range(1, len(games)):
        c = counts.setdefault(math.floor(ratings[pid]), [0, 0])
        c[0] += 1
        c[1] += not provisional(ends.deviations[pid])
    with cur.copy(
        "COPY ratings_ratingbucket (pool_id, bucket, players, established) FROM STDIN"
    ) as copy:
        for b, (n, e) in sorted(counts.items()):
            copy.write_row((pool, b, n, e))


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
