"""Reads of quick play: the pools with their counts, a player's place, rating and seat."""

from __future__ import annotations

from collections import Counter
from typing import Any

from django.urls import reverse

from accounts.models import User
from games.models import RuleSet, Seat, Table
from lobby.models import PoolEntry
from lobby.payloads import PoolMeOutput, PoolNameOutput, PoolOutput
from lobby.pools import POOLS, Pool
from ratings.elo import START
from ratings.selectors import pool_choice, rating_in

UNFINISHED = (Table.Status.WAITING, Table.Status.PLAYING)


def pool_of(entry: PoolEntry) -> Pool:
    return Pool(entry.ruleset, entry.seats, entry.turn_seconds)


def pool_name(pool: Pool) -> PoolNameOutput:
    return {
        "ruleset": pool.ruleset,
        "seats": pool.seats,
        "turn_seconds": pool.turn_seconds,
        "key": pool.key,
    }


def pool_counts() -> list[PoolOutput]:
    """Every offered pool, in the order of ``POOLS``, with its waiting and playing counts."""
    fields = ("ruleset", "seats", "turn_seconds")
    waiting = Counter(
        PoolEntry.objects.filter(status=PoolEntry.Status.WAITING).values_list(*fields)
    )
    playing = Counter(
        PoolEntry.objects.filter(
            status=PoolEntry.Status.MATCHED, table__status=Table.Status.PLAYING
        ).values_list(*fields)
    )
    names = dict(
        RuleSet.objects.filter(slug__in={p.ruleset for p in POOLS}).values_list("slug", "name")
    )
    return [
        {
            **pool_name(pool),
            "label": f"{names.get(pool.ruleset, pool.ruleset)} · {pool.seats} players · "
            f"{pool.turn_seconds} s",
            "waiting": waiting[(pool.ruleset, pool.seats, pool.turn_seconds)],
            "playing": playing[(pool.ruleset, pool.seats, pool.turn_seconds)],
        }
        for pool in POOLS
    ]


def pool_me(user: Any) -> PoolMeOutput:
    """``user``'s place in quick play (anonymous: none)."""
    entry = None
    if user is not None and user.is_authenticated:
        entry = PoolEntry.objects.filter(user_id=user.pk).first()
    return pool_me_of(entry)


def pool_me_of(entry: PoolEntry | None) -> PoolMeOutput:
    if entry is None:
        return {"status": "none", "table": None, "pool": None, "since": None, "url": None}
    waiting = entry.status == PoolEntry.Status.WAITING
    return {
        "status": "waiting" if waiting else "matched",
        "table": None if waiting else entry.table_id,
        "pool": pool_name(pool_of(entry)),
        "since": entry.joined_at.isoformat().replace("+00:00", "Z") if waiting else None,
        "url": None
        if waiting or entry.table_id is None
        else reverse("games:table", args=[entry.table_id]),
    }


def player_rating(user: User, ruleset: str) -> float:
    """``user``'s rating in the rule set's pool (``ratings``); the start rating if unrated."""
    rating = rating_in(pool_choice(ruleset=ruleset), user)
    return START if rating is None else rating.rating


def seated_tables(user_ids: list[int]) -> dict[int, int]:
    """Each of ``user_ids`` seated at a table not yet over, with that table (any one)."""
    rows = Seat.objects.filter(user_id__in=user_ids, table__status__in=UNFINISHED)
    return dict(rows.values_list("user_id", "table_id"))
