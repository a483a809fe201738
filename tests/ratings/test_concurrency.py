"""Finalization hooks racing: several games with the same players rated by hooks that run at
once, in threads with their own connections. The ledger lock makes them take turns, so the games
are rated one after another in the order they finished, and nothing is counted twice."""

from __future__ import annotations

from datetime import timedelta

import pytest

from games import finalization
from ratings.audit import stored_figures
from ratings.models import Pool, RatedGame, Rating
from ratings.recompute import ratings_recompute
from tests.games.tables import players
from tests.games.test_concurrency import race
from tests.ratings.games import T0, assert_buckets_match, finished_game

pytestmark = pytest.mark.django_db(transaction=True)


def test_racing_hooks_rate_every_game_once_in_finish_order() -> None:
    users = players("ann", "bob", "cid", "dan")
    tables = [
        finished_game(
            [(users[(i + j) % 4], 1 + j) for j in range(2 + i % 3)],
            at=T0 + timedelta(minutes=i),
        )
        for i in range(8)
    ]
    calls = [
        (lambda t=t: finalization.run_hook(t.pk, "ratings")) for t in reversed(tables)
    ] * 2  # every hook delivered twice
    results = race(calls)
    assert all(r in (True, False) for r in results), results
    assert sum(results) == len(tables)  # each game's hook ran exactly once
    ledger = list(RatedGame.objects.order_by("id").values_list("table_id", flat=True))
    assert ledger == [t.pk for t in tables]
    assert Rating.objects.get(pool__kind="global", user=users[0]).games == sum(
        1 for i in range(8) for j in range(2 + i % 3) if (i + j) % 4 == 0
    )
    for pool in Pool.objects.all():
        assert_buckets_match(pool.pk)
    incremental = stored_figures()
    ratings_recompute()
    assert stored_figures() == incremental
