"""Rebuilding ratings from the finished games (DESIGN.md: the log is the truth).

The replay walks the ledger in its order, which is the order the finalization hook rated the
games in, and applies ``ratings.compute.rate_game`` exactly as the hook does, so it reproduces
the incremental ratings to the last bit. Finished rated games missing from the ledger (their hook
never ran, or the ledger was emptied) join it first, in the order they finished.

The whole rebuild is one transaction holding the ledger lock: readers see the old ratings or the
new, never half, and no game is rated incrementally in between.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from django.db import connection, transaction

from games.models import GameResult, Table
from ratings.compute import Change, Game, Key, Player, Standing, bucket_deltas, rate_game
from ratings.models import Pool, RatedGame, Rating, RatingBucket, RatingChange
from ratings.services import change_row, lock_ledger, pool_for, rating_row

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
    from accounts.models import Club
    from games.models import RuleSet

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
        .values_list("table_id", "finished_at", "placements")
    )
    rows = [
        RatedGame(table_id=t, finished_at=at, counted=_counted(placements))
        for t, at, placements in missing
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
    writer = _Writer()
    summary = Summary(pools=[])
    for rated_id, game in _games(pools):
        summary.games += 1
        if scope is not None:
            game = Game(
                game.table,
                game.finished_at,
                tuple(p for p in game.pools if p in scope),
                game.players,
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
            "table__ruleset_id",
            "table__ruleset__is_preset",
            "table__club_id",
        )
        .iterator(chunk_size=BATCH)
    )
    for rated_id, table_id, at, placements, ruleset_id, preset, club_id in rows:
        players = tuple(
            Player(p["user"], p["place"], bool(p["absent"]), bool(p["acted"])) for p in placements
        )
        yield rated_id, Game(table_id, at, pools.of(ruleset_id, preset, club_id), players)


class _Writer:
    """Buffers the replay's rows and writes them in batches: COPY on PostgreSQL (several times
    faster than INSERT for millions of rows), ``bulk_create`` elsewhere."""

    def __init__(self) -> None:
        self.changes: list[RatingChange] = []
        self.deltas: list[Change] = []
        self.written = 0

    def add(self, rated_id: int, table_id: int, changes: list[Change]) -> None:
        self.changes.extend(change_row(rated_id, table_id, c) for c in changes)
        if len(self.changes) >= BATCH:
            self._flush()

    def _flush(self) -> None:
        insert(RatingChange, self.changes)
        self.written += len(self.changes)
        self.changes = []

    def finish(self, standings: dict[Key, Standing]) -> None:
        self._flush()
        insert(Rating, [rating_row(pool, user, s) for (pool, user), s in standings.items()])
        counts: dict[tuple[int, int], list[int]] = bucket_deltas(
            Change(pool, user, None, s, 0.0, 0, 0) for (pool, user), s in standings.items()
        )
        insert(
            RatingBucket,
            [
                RatingBucket(pool_id=p, bucket=b, players=n, established=e)
                for (p, b), (n, e) in counts.items()
            ],
        )


def insert(model: Any, objs: list[Any]) -> None:
    """Insert new rows (no ids needed back)."""
    if not objs:
        return
    if connection.vendor != "postgresql":
        model.objects.bulk_create(objs, batch_size=2_000)
        return
    fields = [f for f in model._meta.concrete_fields if not f.primary_key]
    columns = ", ".join(connection.ops.quote_name(f.column) for f in fields)
    table = connection.ops.quote_name(model._meta.db_table)
    with connection.cursor() as cursor, cursor.copy(f"COPY {table} ({columns}) FROM STDIN") as copy:
        for obj in objs:
            copy.write_row(
                [f.get_db_prep_value(f.value_from_object(obj), connection) for f in fields]
            )
