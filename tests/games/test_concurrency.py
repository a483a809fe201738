"""Two requests racing on one table: the row lock lets exactly one change it.

These run in real threads with their own database connections, so they need committed data
(``transactional_db``). On PostgreSQL the lock is the table row's ``SELECT ... FOR UPDATE``; on
SQLite, the database-wide write lock that an IMMEDIATE transaction takes. The last two accepts
of a rematch race on the finished table's row lock the same way.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import pytest
from django.db import connection
from django.test import override_settings

from games import rematch, services
from games.errors import TableError
from games.models import Rematch, Table, TableEvent
from tests.games.finished import finished_table
from tests.games.tables import players, started_table

pytestmark = pytest.mark.django_db(transaction=True)

DRAW = {"type": "draw", "source": "stock"}


def race(calls: list[Callable[[], Any]]) -> list[Any]:
    """Run ``calls`` at once (released together by a barrier); each result or exception."""
    barrier = threading.Barrier(len(calls))
    results: list[Any] = [None] * len(calls)

    def run(i: int) -> None:
        try:
            barrier.wait(timeout=10)
            results[i] = calls[i]()
        except Exception as exc:  # the race's loser is a result, not a crash
            results[i] = exc
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(calls))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    return results


def test_two_actions_at_the_same_version_exactly_one_wins() -> None:
    ann, bob = players("ann", "bob")
    table = started_table([ann, bob])

    def draw(client_id: str) -> Callable[[], Any]:
        return lambda: services.table_apply_action(
            table_id=table.pk, user=ann, action=DRAW, version=1, client_id=client_id
        )

    for _ in range(3):
        results = race([draw("a"), draw("b")])
        won = [r for r in results if isinstance(r, services.ActionResult)]
        lost = [r for r in results if isinstance(r, TableError)]
        assert len(won) == 1 and len(lost) == 1, results
        assert lost[0].code == "stale_version" and lost[0].extra == {"version": 2}
        assert won[0].version == 2
        table.refresh_from_db()
        assert table.version == 2
        assert TableEvent.objects.filter(table=table).count() == 2
        # Start again from a fresh table for the next round.
        table = started_table(players(*(f"p{table.pk}{n}" for n in "xy")))
        ann = table.seat_set.get(position=0).user


def test_the_same_client_id_twice_at_once_is_applied_once() -> None:
    ann, bob = players("ann", "bob")
    table = started_table([ann, bob])

    def draw() -> Any:
        return services.table_apply_action(
            table_id=table.pk, user=ann, action=DRAW, version=1, client_id="same"
        )

    results = race([draw, draw, draw])
    assert all(isinstance(r, services.ActionResult) for r in results), results
    assert sorted(r.repeated for r in results) == [False, True, True]
    assert {r.version for r in results} == {2}
    assert {str(r.state) for r in results} == {str(results[0].state)}
    table = Table.objects.get(pk=table.pk)
    assert table.version == 2
    assert TableEvent.objects.filter(table=table, client_id="same").count() == 1


def test_joins_racing_for_the_last_seat_seat_exactly_one() -> None:
    ann, bob, cid = players("ann", "bob", "cid")
    table = services.table_create(creator=ann, ruleset="standard", seats=2)
    results = race(
        [
            lambda: services.table_join(table_id=table.pk, user=bob),
            lambda: services.table_join(table_id=table.pk, user=cid),
        ]
    )
    errors = [r for r in results if isinstance(r, TableError)]
    assert len(errors) == 1 and errors[0].code in ("already_started", "table_full")
    table.refresh_from_db()
    assert table.status == "playing" and table.seat_set.count() == 2


def test_the_last_two_accepts_of_a_rematch_racing_make_exactly_one_table(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    answer = rematch._answer

    def slow_answer(*args: Any) -> bool:
        # Both read the offer before either writes, unless the row lock keeps them apart.
        time.sleep(0.2)
        return answer(*args)

    monkeypatch.setattr(rematch, "_answer", slow_answer)
    for round_ in range(3):
        users = players(*(f"r{round_}{n}" for n in "abc"))
        done = finished_table(users)
        rematch.table_rematch(table_id=done.pk, user=users[0], accept=True)
        before = Table.objects.count()
        results = race(
            [
                lambda u=u, t=done.pk: rematch.table_rematch(table_id=t, user=u, accept=True)
                for u in users[1:]
            ]
        )
        assert all(isinstance(r, Table) for r in results), results
        assert Table.objects.count() == before + 1
        offer = Rematch.objects.get(table=done)
        assert sorted(offer.accepted) == sorted(u.username for u in users)
        new = Table.objects.get(pk=offer.next_table_id)
        assert new.status == Table.Status.PLAYING and new.seat_set.count() == 3


@override_settings(WAITING_TABLES_PER_PLAYER=3)
def test_two_tables_opened_at_once_at_the_last_place_under_the_cap_exactly_one_opens() -> None:
    """The cap on waiting tables (``games.waiting``) is counted under the player's row lock."""
    (ann,) = players("ann")
    for _ in range(2):  # one place left under a cap of 3
        services.table_create(creator=ann, ruleset="standard", seats=4)

    def create() -> Any:
        return services.table_create(creator=ann, ruleset="standard", seats=4)

    results = race([create, create])
    opened = [r for r in results if isinstance(r, Table)]
    refused = [r for r in results if isinstance(r, TableError)]
    assert len(opened) == 1 and len(refused) == 1, results
    assert refused[0].code == "too_many_tables"
    assert Table.objects.filter(creator=ann, status="waiting").count() == 3
