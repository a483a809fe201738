"""Checking the stored ratings against a rebuild from the games, changing nothing:
``python manage.py ratings_recompute --check``. A difference means something wrote ratings
outside the hook (or a game's result was edited after it was rated)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db import transaction

from ratings.models import RatedGame, Rating, RatingBucket, RatingChange
from ratings.recompute import BUCKET_FIELDS, CHANGE_FIELDS, RATING_FIELDS, ratings_recompute


@dataclass(frozen=True)
class Check:
    equal: bool
    #: Per kind of row (ratings, changes, buckets, ledger): rows in one side and not the other.
    differences: dict[str, int]
    #: Finished rated games the rebuild found missing from the ledger (their hook never ran).
    unrated_games: int


def stored_figures() -> dict[str, list[tuple[Any, ...]]]:
    """Every stored rating figure, in an order that does not depend on row ids (empty buckets
    are left out: the hook may leave them, a rebuild does not make them)."""
    return {
        "ratings": sorted(Rating.objects.values_list(*RATING_FIELDS)),
        "changes": sorted(RatingChange.objects.values_list(*CHANGE_FIELDS)),
        "buckets": sorted(
            RatingBucket.objects.exclude(players=0, established=0).values_list(*BUCKET_FIELDS)
        ),
        "ledger": list(RatedGame.objects.order_by("id").values_list("id", "table_id", "counted")),
    }


class _Rollback(Exception):
    pass


def ratings_check(pool_key: str | None = None) -> Check:
    """Rebuild inside a transaction, compare with what was stored, and roll the rebuild back.

    :raises ValueError: an unknown pool name.
    """
    try:
        with transaction.atomic():
            before = stored_figures()
            summary = ratings_recompute(pool_key)
            after = stored_figures()
            raise _Rollback
    except _Rollback:
        pass
    differences = {kind: len(set(before[kind]) ^ set(after[kind])) for kind in before}
    return Check(not any(differences.values()), differences, summary.added_to_ledger)
