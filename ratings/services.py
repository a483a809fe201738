"""Writing ratings: the finalization hook that rates each finished game, once, in order.

Every rating write holds the ledger lock (the global pool's row, ``lock_ledger``), so games are
rated one after another, each against the ratings the previous one left, and the ledger's ids
record that order for ``ratings_recompute`` to replay. Rating is a few milliseconds per game, far
below the rate at which games finish, so the one lock costs nothing that matters.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from datetime import timedelta
from functools import partial

from django.db import connection, transaction

from games import push
from games.models import GameResult, Table
from ratings.compute import Change, Game, Key, Player, Standing, bucket_deltas, rate_game
from ratings.models import Pool, RatedGame, Rating, RatingBucket, RatingChange

#: How far back the hook looks for finished games not rated yet, to rate them first: a game's own
#: finalization normally runs within a second of its end, and the sweep re-sends one that was
#: lost within a minute (FINALIZE_SETTLE_SECONDS), so an hour covers every delay but an outage.
PENDING_WINDOW = timedelta(hours=1)


def lock_ledger() -> Pool:
    """The global pool, locked until the transaction ends: whoever holds it is the one writer of
    ratings. Call inside ``transaction.atomic``."""
    Pool.objects.get_or_create(kind="global")
    return Pool.objects.select_for_update().get(kind="global")


def pool_for(kind: str, *, ruleset_id: int | None = None, club_id: int | None = None) -> Pool:
    # None looks a key up as NULL (the global pool has neither); the stubs want a value.
    pool, _ = Pool.objects.get_or_create(
        kind=kind,
        ruleset_id=ruleset_id,  # type: ignore[misc]
        club_id=club_id,  # type: ignore[misc]
    )
    return pool


def table_pools(table: Table, global_pool: Pool) -> tuple[int, ...]:
    """Every game counts in the global pool, in its rule preset's pool when it was played under
    a preset (overrides included: they are house variations of that preset), and in its club's
    pool when it was a club's table."""
    pools = [global_pool.pk]
    if table.ruleset.is_preset:
        pools.append(pool_for("ruleset", ruleset_id=table.ruleset_id).pk)
    if table.club_id is not None:
        pools.append(pool_for("club", club_id=table.club_id).pk)
    return tuple(pools)


def game_input(result: GameResult, pools: tuple[int, ...]) -> Game:
    players = tuple(
        Player(row["user"], row["place"], bool(row["absent"]), bool(row["acted"]))
        for row in result.placements
    )
    return Game(result.table_id, result.finished_at, pools, players, played(result.ended))


def played(ended: str) -> bool:
    """Whether a result was played out (not decided by an organizer)."""
    return ended != "adjudicated"


def is_rateable(table: Table) -> bool:
    """Only a rated table's finished game is rated; an aborted one never is."""
    return table.rated and table.status == Table.Status.FINISHED


#: Called after commit with the id of each table just rated. The apps above ratings register
#: here in their ``AppConfig.ready`` (ratings never imports them): tournaments tells an event's
#: watchers that its players' ratings moved.
rated_listeners: list[Callable[[int], None]] = []


def _on_commit_rated(table_id: int) -> None:
    for listener in rated_listeners:
        transaction.on_commit(partial(listener, table_id), robust=True)


def rating_finalize(result: GameResult) -> None:
    """The ``ratings`` finalization hook: rate ``result``'s game, after any game that finished
    before it and is still waiting for its own hook (a retried or re-sent task), so ratings move
    in the order games finished. Idempotent: a game already in the ledger is left alone. Each
    table rated now is pushed again after commit, so the pages open on it show the changes."""
    with transaction.atomic():
        ledger = lock_ledger()
        for game in [*_pending_before(result), result]:
            if _rate(game, ledger) is not None:
                push.on_commit_table(game.table)
                _on_commit_rated(game.table_id)


def _pending_before(result: GameResult) -> Iterable[GameResult]:
    return (
        GameResult.objects.filter(
            finished_at__gte=result.finished_at - PENDING_WINDOW,
            finished_at__lte=result.finished_at,
            table__rated=True,
            table__status=Table.Status.FINISHED,
            table__rated_game__isnull=True,
        )
        .exclude(pk=result.pk)
        .select_related("table__ruleset")
        .order_by("finished_at", "table_id")
    )


def _rate(result: GameResult, ledger: Pool) -> RatedGame | None:
    """Rate one game under the ledger lock, unless it is not rateable or already rated."""
    table = result.table
    if not is_rateable(table) or RatedGame.objects.filter(table_id=table.pk).exists():
        return None
    game = game_input(result, table_pools(table, ledger))
    rated = RatedGame.objects.create(
        table=table, counted=game.counted, finished_at=result.finished_at
    )
    if game.counted:
        standings = current_standings((pool, p.user) for pool in game.pools for p in game.players)
        write_changes(rated, rate_game(game, standings))
    return rated


def current_standings(keys: Iterable[Key]) -> dict[Key, Standing]:
    wanted = set(keys)
    rows = Rating.objects.filter(
        pool_id__in={pool for pool, _ in wanted}, user_id__in={user for _, user in wanted}
    ).values_list("pool_id", "user_id", "rating", "games", "peak", "last_played_at", "deviation")
    return {
        (pool, user): Standing(rating, games, peak, last, deviation)
        for pool, user, rating, games, peak, last, deviation in rows
        if (pool, user) in wanted
    }


def write_changes(rated: RatedGame, changes: Sequence[Change]) -> None:
    """Store one game's changes: its ``RatingChange`` rows, the new ratings and the buckets."""
    RatingChange.objects.bulk_create(change_row(rated.pk, rated.table_id, c) for c in changes)
    Rating.objects.bulk_create(
        [rating_row(c.pool, c.user, c.after) for c in changes],
        update_conflicts=True,
        unique_fields=["pool", "user"],
        update_fields=["rating", "games", "peak", "last_played_at", "deviation"],
    )
    add_to_buckets(bucket_deltas(changes))


def change_row(game_id: int, table_id: int, c: Change) -> RatingChange:
    assert c.after.last_played_at is not None  # the game that made the change was played then
    return RatingChange(
        game_id=game_id,
        table_id=table_id,
        pool_id=c.pool,
        user_id=c.user,
        before=_start(c),
        after=c.after.rating,
        deviation_before=c.deviation_before,
        deviation_after=c.after.deviation,
        k=c.k,
        place=c.place,
        table_size=c.table_size,
        at=c.after.last_played_at,
    )


def _start(c: Change) -> float:
    return Standing().rating if c.before is None else c.before.rating


def rating_row(pool: int, user: int, s: Standing) -> Rating:
    return Rating(
        pool_id=pool,
        user_id=user,
        rating=s.rating,
        games=s.games,
        peak=s.peak,
        last_played_at=s.last_played_at,
        deviation=s.deviation,
    )


def add_to_buckets(deltas: dict[tuple[int, int], list[int]]) -> None:
    """Add to the buckets' counts, creating the missing ones, in one statement (both
    PostgreSQL and SQLite speak ``INSERT ... ON CONFLICT DO UPDATE``)."""
    if not deltas:
        return
    table = RatingBucket._meta.db_table
    rows = sorted(deltas.items())
    values = ", ".join(["(%s, %s, %s, %s)"] * len(rows))
    params = [v for (pool, b), (players, est) in rows for v in (pool, b, players, est)]
    sql = (
        f"INSERT INTO {table} (pool_id, bucket, players, established) VALUES {values} "
        f"ON CONFLICT (pool_id, bucket) DO UPDATE SET "
        f"players = {table}.players + excluded.players, "
        f"established = {table}.established + excluded.established"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
