"""Quick play's writes: join a pool, leave it, match a pool's waiters, sweep, count sockets.

Locks, in the order taken (so no two calls wait on each other in a circle):
1. the pool's ``PoolLock`` row: joins and matching of one pool run one at a time, so a join
   sees every waiter committed before it, and two matchers never share a waiter;
2. the joining player's user row (``FOR NO KEY UPDATE``, which a seat's foreign key check does
   not wait on): two joins of one player, to two pools, run one after the other;
3. ``PoolEntry`` rows: the player's own on join and leave; every waiter of the pool when
   matching. Whoever holds a waiter's row decides it: a leave or a move to another pool waits
   for a matcher that holds it (and then finds the player matched), and a matcher that waited
   on a row re-reads it and skips a player who has left or moved.

A join refuses a player seated at a table that is not over (``already_seated``), checked
holding their row; a matcher drops such waiters too (a table made by hand while waiting). So a
player is never seated at two tables by quick play. Pushes (counts, ``matched``) go after commit.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import Exists, OuterRef
from django.utils import timezone

from accounts.models import User
from games.hosting import table_open_for
from lobby.errors import ALREADY_SEATED, NOT_OFFERED, PoolError
from lobby.matching import Waiter, match
from lobby.models import LobbyPresence, PoolEntry, PoolLock
from lobby.payloads import PoolMeOutput
from lobby.pools import POOLS, Pool, pool_find
from lobby.push import on_commit_matched, on_commit_me, on_commit_pools
from lobby.selectors import UNFINISHED, player_rating, pool_me_of, pool_of, seated_tables

WAITING, MATCHED = PoolEntry.Status.WAITING, PoolEntry.Status.MATCHED


def _offered(ruleset: object, seats: object, turn_seconds: object) -> Pool:
    pool = pool_find(ruleset, seats, turn_seconds)
    if pool is None:
        offered = ", ".join(f"{p.ruleset} {p.seats} seats {p.turn_seconds} s" for p in POOLS)
        raise PoolError(NOT_OFFERED, f"no such pool; the site offers: {offered}")
    return pool


def _lock_pool(pool: Pool) -> None:
    """Hold the pool's row until the transaction ends (made on first use)."""
    if not PoolLock.objects.select_for_update().filter(key=pool.key).exists():
        PoolLock.objects.bulk_create([PoolLock(key=pool.key)], ignore_conflicts=True)
        PoolLock.objects.select_for_update().get(key=pool.key)


def pool_join(*, user: User, ruleset: object, seats: object, turn_seconds: object) -> PoolMeOutput:
    """Wait in the pool (a player waiting in another moves here; one waiting here keeps their
    place), then match the pool: the answer says ``matched`` when this join completed a table.

    :raises PoolError: ``not_offered`` (400) for a pool the site does not offer;
        ``already_seated`` (409, with ``table``) for a player with a seat at a table not over.
    """
    pool = _offered(ruleset, seats, turn_seconds)
    rating = player_rating(user, pool.ruleset)
    with transaction.atomic():
        _lock_pool(pool)
        User.objects.select_for_update(no_key=True).filter(pk=user.pk).exists()
        entry = PoolEntry.objects.select_for_update().filter(user_id=user.pk).first()
        busy = seated_tables([user.pk]).get(user.pk)
        if busy is not None:
            raise PoolError(
                ALREADY_SEATED,
                f"you have a seat at table {busy}: play or leave it before quick play",
                409,
                table=busy,
            )
        now = timezone.now()
        if entry is None or entry.status != WAITING or pool_of(entry) != pool:
            entry = _wait(user, pool, rating, now, entry)
        on_commit_matched(_match_locked(pool, now))
        on_commit_pools()
        on_commit_me([user.pk])
        entry.refresh_from_db()
    return pool_me_of(entry)


def _wait(
    user: User, pool: Pool, rating: float, now: datetime, entry: PoolEntry | None
) -> PoolEntry:
    entry = entry or PoolEntry(user=user)
    entry.status = WAITING
    entry.ruleset, entry.seats, entry.turn_seconds = pool.ruleset, pool.seats, pool.turn_seconds
    entry.rating, entry.joined_at = rating, now
    entry.table, entry.matched_at = None, None
    entry.save()
    return entry


def _match_locked(pool: Pool, now: datetime) -> list[tuple[int, list[int]]]:
    """Seat the pool's waiters (``lobby.matching``) at new rated tables, started. Call holding
    the pool's lock. Returns each table's id and players."""
    entries = list(
        PoolEntry.objects.select_for_update()
        .filter(
            status=WAITING, ruleset=pool.ruleset, seats=pool.seats, turn_seconds=pool.turn_seconds
        )
        .order_by("joined_at", "user_id")
    )
    if len(entries) < pool.seats:
        return []
    busy = seated_tables([e.user_id for e in entries])
    if busy:  # seated by hand since they joined: out of the pool, never at two tables
        PoolEntry.objects.filter(user_id__in=busy).delete()
        on_commit_me(list(busy))
        entries = [e for e in entries if e.user_id not in busy]
    waiters = [Waiter(e.user_id, e.rating, (now - e.joined_at).total_seconds()) for e in entries]
    groups = match(waiters, pool.seats)
    joined = {e.user_id: e.joined_at for e in entries}
    users = User.objects.in_bulk([user_id for group in groups for user_id in group])
    made = []
    for group in groups:
        order = sorted(group, key=lambda user_id: (joined[user_id], user_id))  # first come
        table = table_open_for(
            players=[users[user_id] for user_id in order],
            ruleset=pool.ruleset,
            turn_seconds=pool.turn_seconds,
            rated=True,
        )
        PoolEntry.objects.filter(user_id__in=order).update(
            status=MATCHED, table=table, matched_at=now
        )
        made.append((table.pk, order))
    return made


def pool_match(pool: Pool, now: datetime | None = None) -> list[tuple[int, list[int]]]:
    """Match ``pool``'s waiters as their windows stand ``now`` (the sweep's call)."""
    now = now or timezone.now()
    with transaction.atomic():
        _lock_pool(pool)
        made = _match_locked(pool, now)
        on_commit_matched(made)
        if made:
            on_commit_pools()
    return made


def pool_leave(*, user: User) -> PoolMeOutput:
    """Stop waiting. Holding the player's row settles a race with a matcher: whoever has it
    first wins, so the answer is ``none`` (left) or the match that came first (``matched``,
    while its table is not over)."""
    with transaction.atomic():
        entry = PoolEntry.objects.select_for_update().filter(user_id=user.pk).first()
        if entry is not None and entry.status == WAITING:
            entry.delete()
            on_commit_pools()
            on_commit_me([user.pk])
            entry = None
        if entry is not None and (entry.table is None or entry.table.status not in UNFINISHED):
            entry = None
    return pool_me_of(entry)


def absent_grace() -> timedelta:
    return timedelta(seconds=settings.LOBBY_ABSENT_GRACE_SECONDS)


def pools_expire_absent(now: datetime | None = None) -> int:
    """Take out of the pools every waiter whose lobby sockets have all been closed, since they
    joined, for the grace period. A player who joined with no socket at all (a bot on the
    REST API) is not counted absent: they leave with ``DELETE``. Returns how many left."""
    now = now or timezone.now()
    gone = LobbyPresence.objects.filter(
        user_id=OuterRef("user_id"),
        sockets=0,
        closed_at__lt=now - absent_grace(),
        closed_at__gte=OuterRef("joined_at"),
    )
    # A DELETE locks each row it removes and re-checks the condition after waiting on a
    # matcher's lock, so a waiter matched meanwhile stays matched.
    with transaction.atomic():
        absent = PoolEntry.objects.filter(Exists(gone), status=WAITING)
        gone_ids = list(absent.values_list("user_id", flat=True))
        count, _ = absent.delete()
        if count:
            on_commit_pools()
            on_commit_me(gone_ids)
    return count


def pools_sweep(now: datetime | None = None) -> int:
    """The periodic pass (Celery beat): absent waiters out, then every pool holding enough
    waiters for a table matched again, as their windows have widened. Returns tables made."""
    now = now or timezone.now()
    pools_expire_absent(now)
    made = 0
    for pool in POOLS:
        waiting = PoolEntry.objects.filter(
            status=WAITING, ruleset=pool.ruleset, seats=pool.seats, turn_seconds=pool.turn_seconds
        )
        if waiting.count() >= pool.seats:
            made += len(pool_match(pool, now))
    return made


def presence_change(*, user_id: int, delta: int) -> None:
    """Count a lobby socket of the player opening (+1) or closing (-1)."""
    with transaction.atomic():
        LobbyPresence.objects.bulk_create([LobbyPresence(user_id=user_id)], ignore_conflicts=True)
        row = LobbyPresence.objects.select_for_update().get(user_id=user_id)
        row.sockets = max(0, row.sockets + delta)
        row.closed_at = timezone.now() if row.sockets == 0 else None
        row.save(update_fields=["sockets", "closed_at"])
