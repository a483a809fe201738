"""Many players joining at once, in real threads on the database: the pool's row lock makes
every table once, no player twice, and nobody waits while a table could be made.

Threads need committed data (``transactional_db``); on PostgreSQL the locks are
``SELECT ... FOR UPDATE`` (lobby.services' docstring gives their order).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import suppress
from threading import Barrier
from typing import Any

import pytest
from django.db import connection

from games.models import Seat, Table
from lobby import services
from lobby.models import PoolEntry
from tests.lobby.factories import STANDARD_2, STANDARD_3, STANDARD_4, rated

pytestmark = pytest.mark.django_db(transaction=True)

POOLS = [STANDARD_2, STANDARD_3, STANDARD_4]


def at_once(calls: list[Callable[[], Any]], workers: int = 12) -> list[Any]:
    """Run ``calls`` from ``workers`` threads released together; each result or exception."""
    barrier = Barrier(min(workers, len(calls)))

    def run(call: Callable[[], Any]) -> Any:
        try:
            with suppress(Exception):  # the barrier serves the first wave only
                barrier.wait(timeout=10)
            return call()
        except Exception as exc:
            return exc
        finally:
            connection.close()

    with ThreadPoolExecutor(workers) as pool:
        return list(pool.map(run, calls))


def assert_no_one_twice_and_no_one_left_behind() -> None:
    seated = Counter(Seat.objects.values_list("user_id", flat=True))
    assert all(n == 1 for n in seated.values()), seated
    for table in Table.objects.all():
        assert table.status == Table.Status.PLAYING
        matched = PoolEntry.objects.filter(table=table, status="matched").count()
        assert matched == table.seats == table.seat_set.count()
    for pool in POOLS:
        waiting = PoolEntry.objects.filter(status="waiting", **pool).count()
        assert waiting < pool["seats"], (pool, waiting)  # equal ratings: any group will do
    assert not PoolEntry.objects.filter(status="waiting", user_id__in=seated).exists()


def test_many_joiners_at_once_fill_tables_with_no_one_twice() -> None:
    people = [rated(f"p{i}", 1500) for i in range(36)]
    calls = [lambda p=p: services.pool_join(user=p, **STANDARD_3) for p in people]
    results = at_once(calls)
    assert not [r for r in results if isinstance(r, Exception)], results
    assert_no_one_twice_and_no_one_left_behind()
    assert Table.objects.count() == 12
    matched = Counter(r["status"] for r in results)
    assert matched["matched"] == 12  # each table's last joiner hears it in the answer


def test_joiners_switching_pools_and_leaving_at_once() -> None:
    people = [rated(f"p{i}", 1500) for i in range(24)]
    chooser = random.Random(17)
    calls: list[Callable[[], Any]] = []
    for person in people:
        for _ in range(3):
            pool = chooser.choice(POOLS)
            calls.append(lambda p=person, pool=pool: services.pool_join(user=p, **pool))
        if chooser.random() < 0.3:
            calls.append(lambda p=person: services.pool_leave(user=p))
    chooser.shuffle(calls)
    results = at_once(calls)
    errors = [r for r in results if isinstance(r, Exception)]
    # A player matched while their next join ran is refused that join, never seated twice.
    assert all(getattr(e, "code", None) == "already_seated" for e in errors), errors
    assert_no_one_twice_and_no_one_left_behind()


def test_the_sweep_and_joins_at_once() -> None:
    people = [rated(f"p{i}", 1000 + 37 * i) for i in range(30)]
    calls: list[Callable[[], Any]] = [
        lambda p=p: services.pool_join(user=p, **STANDARD_2) for p in people
    ]
    calls += [services.pools_sweep for _ in range(6)]
    random.Random(3).shuffle(calls)
    results = at_once(calls)
    assert not [r for r in results if isinstance(r, Exception)], results
    seated = Counter(Seat.objects.values_list("user_id", flat=True))
    assert all(n == 1 for n in seated.values())
    waiting = PoolEntry.objects.filter(status="waiting").count()
    assert waiting + 2 * Table.objects.count() == 30
