"""Rebuilding ratings from the finished games (DESIGN.md: the log is the truth).

The replay walks the ledger in its order, which is the order the finalization hook rated the
games in, and applies ``ratings.compute.rate_game`` exactly as the hook does, so it reproduces
the incremental ratings to the last bit. Finished rated games missing from the ledger (their hook
never ran, or the ledger was emptied) join it first, in the order they finished.

The whole rebuild is one transaction holding the ledger lock: readers see the old ratings or the
new, never half, and no game is rated incrementally in between.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from django.db import connection, transaction

from accounts.models import Club
from games.models import GameResult, RuleSet, Table
from ratings.compute import Change, Game, Key, Player, Standing, bucket_deltas, rate_game
from ratings.elo import START
from ratings.models import Pool, RatedGame, Rating, RatingBucket, RatingChange
from ratings.services import lock_ledger, played, pool_for

#: Rows written per batch: big enough that per-statement costs vanish, small enough to keep
#: memory flat over millions of changes.
BATCH = 20_000


@dataclass
class Summary:
    pools: list[str]
    games: int = 0
    counted: int = 0
    changes: int = 0
    players: int = 0
    added_to_ledger: int = 0
    by_pool: dict[str, int] = field(default_factory=dict)


def ratings_recompute(pool_key: str | None = None) -> Summary:
    """Rebuild the ratings of one pool (``global``, ``ruleset:<slug>``, ``club:<slug>``) or of
    every pool, from the finished games.

    :raises ValueError: an unknown pool name.
    """
    with transaction.atomic():
        ledger = lock_ledger()
        only = None if pool_key is None else find_pool(pool_key)
        added = _fill_ledger()
        summary = _replay(ledger, only)
        summary.added_to_ledger = added
    return summary


def find_pool(key: str) -> Pool:
    """The pool a name gives, created if it is a real preset's or club's not seen yet."""
    kind, _, slug = key.partition(":")
    if key == "global":
        return pool_for("global")
    if kind == "ruleset" and (ruleset := RuleSet.objects.filter(slug=slug, is_preset=True).first()):
        return pool_for("ruleset", ruleset_id=ruleset.pk)
    if kind == "club" and (club := Club.objects.filter(slug=slug).first()):
        return pool_for("club", club_id=club.pk)
    raise ValueError(f"no pool {key!r}: use global, ruleset:<preset slug> or club:<club slug>")


def _fill_ledger() -> int:
    missing = (
        GameResult.objects.filter(
            table__rated=True, table__status=Table.Status.FINISHED, table__rated_game__isnull=True
        )
        .order_by("finished_at", "table_id")
        .values_list("table_id", "finished_at", "placements", "ended")
    )
    rows = [
        RatedGame(table_id=t, finished_at=at, counted=played(ended) and _counted(placements))
        for t, at, placements, ended in missing
    ]
    RatedGame.objects.bulk_create(rows, batch_size=BATCH)
    return len(rows)


def _counted(placements: list[dict[str, Any]]) -> bool:
    return len(placements) >= 2 and sum(bool(p["acted"]) for p in placements) >= 2


def _replay(ledger: Pool, only: Pool | None) -> Summary:
    pools = _Pools(ledger)
    scope = None if only is None else {only.pk}
    _clear(scope)
    standings: dict[Key, Standing] = {}
    summary = Summary(pools=[])
    with _Writer() as writer:
        for rated_id, game in _games(pools):
            summary.games += 1
            if scope is not None:
                game = Game(
                    game.table,
                    game.finished_at,
                    tuple(p for p in game.pools if p in scope),
                    game.players,
                    game.played,
                )
            changes = rate_game(game, standings)
            summary.counted += game.counted
            for change in changes:
                standings[(change.pool, change.user)] = change.after
            writer.add(rated_id, game.table, changes)
        writer.finish(standings)
    summary.changes = writer.written
    summary.players = len({user for _, user in standings})
    summary.pools = sorted(pools.key(p) for p in {pool for pool, _ in standings})
    for pool, _ in standings:
        key = pools.key(pool)
        summary.by_pool[key] = summary.by_pool.get(key, 0) + 1
    return summary


def _clear(scope: set[int] | None) -> None:
    for model in (RatingChange, Rating, RatingBucket):
        rows = model.objects.all() if scope is None else model.objects.filter(pool_id__in=scope)
        rows._raw_delete(rows.db)  # no signals, no cascades to collect: plain DELETEs


class _Pools:
    """Each game's pools, found once per rule set and club rather than once per game."""

    def __init__(self, ledger: Pool) -> None:
        self.global_id = ledger.pk
        self.rulesets: dict[int, int] = {}
        self.clubs: dict[int, int] = {}
        self.keys: dict[int, str] = {}

    def of(self, ruleset_id: int, is_preset: bool, club_id: int | None) -> tuple[int, ...]:
        pools = [self.global_id]
        if is_preset:
            if ruleset_id not in self.rulesets:
                self.rulesets[ruleset_id] = pool_for("ruleset", ruleset_id=ruleset_id).pk
            pools.append(self.rulesets[ruleset_id])
        if club_id is not None:
            if club_id not in self.clubs:
                self.clubs[club_id] = pool_for("club", club_id=club_id).pk
            pools.append(self.clubs[club_id])
        return tuple(pools)

    def key(self, pool_id: int) -> str:
        if pool_id not in self.keys:
            self.keys[pool_id] = Pool.objects.select_related("ruleset", "club").get(pk=pool_id).key
        return self.keys[pool_id]


def _games(pools: _Pools) -> Iterator[tuple[int, Game]]:
    rows = (
        RatedGame.objects.order_by("id")
        .values_list(
            "id",
            "table_id",
            "finished_at",
            "table__result__placements",
            "table__result__ended",
            "table__ruleset_id",
            "table__ruleset__is_preset",
            "table__club_id",
        )
        .iterator(chunk_size=BATCH)
    )
    for rated_id, table_id, at, placements, ended, ruleset_id, preset, club_id in rows:
        players = tuple(
            Player(p["user"], p["place"], bool(p["absent"]), bool(p["acted"])) for p in placements
        )
        game_pools = pools.of(ruleset_id, preset, club_id)
        yield rated_id, Game(table_id, at, game_pools, players, played(ended))


#: ``RatingChange`` columns as the replay writes them, in the order of its rows.
CHANGE_FIELDS = (
    "game_id",
    "table_id",
    "pool_id",
    "user_id",
    "before",
    "after",
    "deviation_before",
    "deviation_after",
    "k",
    "place",
    "table_size",
    "at",
)
RATING_FIELDS = ("pool_id", "user_id", "rating", "games", "peak", "last_played_at", "deviation")
BUCKET_FIELDS = ("pool_id", "bucket", "players", "established")


class _Writer:
    """Buffers the replay's rows as plain tuples, the values ``ratings.services.change_row`` and
    ``rating_row`` store, field for field (no model instances: making them was most of the
    replay's time), and writes them in batches: COPY on PostgreSQL (several times faster than
    INSERT for millions of rows), ``bulk_create`` elsewhere.

    On PostgreSQL most of a rebuild's time is the server's (each change updates seven indexes
    and checks four foreign keys), so a helper thread runs each batch's COPY on the same
    connection, in the same transaction, while the replay computes the next batch; at most one
    batch is in flight. The changes' foreign keys are checked as each COPY ends instead of all at
    commit, so that work overlaps too and PostgreSQL's queue of pending checks stays one batch
    long however many millions of changes are written.
    """

    def __init__(self) -> None:
        self.changes: list[tuple[Any, ...]] = []
        self.written = 0
        self.copying: Future[None] | None = None
        self.thread: ThreadPoolExecutor | None = None
        self.foreign_keys: list[str] = []
        if connection.vendor == "postgresql":
            self.statement = copy_statement(RatingChange, CHANGE_FIELDS)
            self.foreign_keys = foreign_keys(RatingChange)
            self.thread = ThreadPoolExecutor(1, thread_name_prefix="ratings-recompute")

    def __enter__(self) -> _Writer:
        self._check_foreign_keys("IMMEDIATE")
        return self

    def __exit__(self, failed: type[BaseException] | None, *_: object) -> None:
        """Wait for the batch in flight whatever happened (the transaction must not end under
        it), then put the foreign keys' checks back to the end of the transaction (after a
        failure the transaction is rolled back anyway)."""
        try:
            self._wait()
        finally:
            if self.thread is not None:
                self.thread.shutdown()
        if failed is None:
            self._check_foreign_keys("DEFERRED")

    def _check_foreign_keys(self, when: str) -> None:
        if self.foreign_keys:
            names = ", ".join(connection.ops.quote_name(n) for n in self.foreign_keys)
            with connection.cursor() as cursor:
                cursor.execute(f"SET CONSTRAINTS {names} {when}")

    def add(self, rated_id: int, table_id: int, changes: list[Change]) -> None:
        self.changes.extend(
            (
                rated_id,
                table_id,
                c.pool,
                c.user,
                START if c.before is None else c.before.rating,
                c.after.rating,
                c.deviation_before,
                c.after.deviation,
                c.k,
                c.place,
                c.table_size,
                c.after.last_played_at,
            )
            for c in changes
        )
        if len(self.changes) >= BATCH:
            self._flush()

    def _flush(self) -> None:
        rows, self.changes = self.changes, []
        self._wait()
        if not rows:
            return
        if self.thread is not None:
            raw = connection.connection
            self.copying = self.thread.submit(copy_rows, raw, *self.statement, rows)
        else:
            insert(RatingChange, CHANGE_FIELDS, rows)
        self.written += len(rows)

    def _wait(self) -> None:
        """Until the batch in flight is written; its error, if any, raised here."""
        copying, self.copying = self.copying, None
        if copying is not None:
            copying.result()

    def finish(self, standings: dict[Key, Standing]) -> None:
        self._flush()
        self._wait()
        insert(
            Rating,
            RATING_FIELDS,
            [
                (pool, user, s.rating, s.games, s.peak, s.last_played_at, s.deviation)
                for (pool, user), s in standings.items()
            ],
        )
        counts: dict[tuple[int, int], list[int]] = bucket_deltas(
            Change(pool, user, None, s, 0.0, 0, 0, s.deviation)
            for (pool, user), s in standings.items()
        )
        insert(RatingBucket, BUCKET_FIELDS, [(p, b, n, e) for (p, b), (n, e) in counts.items()])


def foreign_keys(model: Any) -> list[str]:
    """The names of the foreign-key constraints of ``model``'s table."""
    with connection.cursor() as cursor:
        found = connection.introspection.get_constraints(cursor, model._meta.db_table)
    return sorted(name for name, c in found.items() if c["foreign_key"])


def copy_statement(model: Any, fields: Sequence[str]) -> tuple[str, list[str]]:
    """The binary COPY of ``fields`` (attribute names, so ``pool_id`` for a foreign key) into
    ``model``'s table, and their database types."""
    found = [model._meta.get_field(f) for f in fields]
    columns = ", ".join(connection.ops.quote_name(f.column) for f in found)
    table = connection.ops.quote_name(model._meta.db_table)
    sql = f"COPY {table} ({columns}) FROM STDIN (FORMAT BINARY)"
    return sql, [f.db_type(connection) for f in found]


def copy_rows(raw: Any, sql: str, types: list[str], rows: list[tuple[Any, ...]]) -> None:
    """COPY ``rows`` on the psycopg connection ``raw``. Binary: floats travel as their eight
    bytes, no decimal text to print and parse."""
    with raw.cursor() as cursor, cursor.copy(sql) as copy:
        copy.set_types(types)
        write = copy.write_row
        for row in rows:
            write(row)


def insert(model: Any, fields: Sequence[str], rows: list[tuple[Any, ...]]) -> None:
    """Insert new rows, each a tuple of the values of ``fields`` (no ids needed back)."""
    if not rows:
        return
    if connection.vendor != "postgresql":
        objs = [model(**dict(zip(fields, row, strict=True))) for row in rows]
        model.objects.bulk_create(objs, batch_size=2_000)
        return
    connection.ensure_connection()
    copy_rows(connection.connection, *copy_statement(model, fields), rows)
