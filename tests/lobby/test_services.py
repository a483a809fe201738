"""Quick play's services on the database: joining, matching, leaving, the sweep, presence."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.conf import settings as conf
from django.utils import timezone

from games import services as table_services
from games.models import Seat, Table
from lobby import services
from lobby.errors import ALREADY_SEATED, NOT_OFFERED, PoolError
from lobby.models import LobbyPresence, PoolEntry
from lobby.selectors import pool_counts, pool_me
from lobby.tasks import sweep_pools
from tests.lobby.factories import STANDARD_2, STANDARD_3, STANDARD_4, rated

pytestmark = pytest.mark.django_db


def counts(key: str) -> tuple[int, int]:
    row = next(p for p in pool_counts() if p["key"] == key)
    return row["waiting"], row["playing"]


def test_the_second_joiner_completes_a_rated_table_that_starts() -> None:
    ann, bob = rated("ann", 1500), rated("bob", 1540)
    first = services.pool_join(user=ann, **STANDARD_2)
    assert first["status"] == "waiting" and first["table"] is None
    assert first["pool"] == {**STANDARD_2, "key": "standard-2-30"}
    assert counts("standard-2-30") == (1, 0)
    second = services.pool_join(user=bob, **STANDARD_2)
    assert second["status"] == "matched"
    table = Table.objects.get(pk=second["table"])
    assert table.status == Table.Status.PLAYING and table.rated and table.turn_seconds == 30
    assert list(table.seat_set.values_list("user__username", flat=True)) == ["ann", "bob"]
    assert pool_me(ann)["table"] == table.pk and pool_me(ann)["status"] == "matched"
    assert counts("standard-2-30") == (0, 2)


def test_ratings_far_apart_wait_until_the_window_has_widened() -> None:
    ann, bob = rated("ann", 1500), rated("bob", 2000)
    services.pool_join(user=ann, **STANDARD_2)
    assert services.pool_join(user=bob, **STANDARD_2)["status"] == "waiting"
    assert services.pools_sweep(timezone.now() + timedelta(seconds=30)) == 0  # 250 < 500
    assert services.pools_sweep(timezone.now() + timedelta(seconds=61)) == 1
    assert pool_me(ann)["status"] == pool_me(bob)["status"] == "matched"


def test_closest_ratings_sit_together() -> None:
    people = [rated(n, r) for n, r in [("a", 1500), ("b", 1900), ("c", 1530), ("d", 1880)]]
    for person in people:
        services.pool_join(user=person, **STANDARD_2)
    tables = {pool_me(p)["table"] for p in people}
    assert len(tables) == 2
    assert pool_me(people[0])["table"] == pool_me(people[2])["table"]
    assert pool_me(people[1])["table"] == pool_me(people[3])["table"]


def test_unrated_players_count_at_the_start_rating() -> None:
    ann, bob = rated("ann"), rated("bob", 1580)
    services.pool_join(user=ann, **STANDARD_2)
    assert PoolEntry.objects.get(user=ann).rating == 1500.0
    assert services.pool_join(user=bob, **STANDARD_2)["status"] == "matched"


def test_a_pool_not_offered_is_refused_with_the_list() -> None:
    ann = rated("ann")
    for wrong in [
        {**STANDARD_2, "seats": 5},
        {**STANDARD_2, "turn_seconds": 31},
        {**STANDARD_2, "ruleset": "no-such"},
        {**STANDARD_2, "seats": "2"},
    ]:
        with pytest.raises(PoolError) as refused:
            services.pool_join(user=ann, **wrong)
        assert refused.value.code == NOT_OFFERED and refused.value.status == 400
        assert "standard 4 seats 30 s" in refused.value.message
    assert not PoolEntry.objects.exists()


def test_a_player_waits_in_one_pool_at_a_time() -> None:
    ann = rated("ann")
    services.pool_join(user=ann, **STANDARD_3)
    services.pool_join(user=ann, **STANDARD_4)
    assert PoolEntry.objects.filter(user=ann).count() == 1
    assert counts("standard-3-30") == (0, 0) and counts("standard-4-30") == (1, 0)


def test_joining_the_same_pool_again_keeps_the_place() -> None:
    ann = rated("ann")
    since = services.pool_join(user=ann, **STANDARD_4)["since"]
    assert services.pool_join(user=ann, **STANDARD_4)["since"] == since


def test_a_player_seated_at_a_table_not_over_may_not_join() -> None:
    ann = rated("ann")
    table = table_services.table_create(creator=ann, ruleset="standard", seats=4)
    with pytest.raises(PoolError) as refused:
        services.pool_join(user=ann, **STANDARD_2)
    assert refused.value.code == ALREADY_SEATED and refused.value.status == 409
    assert refused.value.extra == {"table": table.pk}


def test_a_waiter_who_sat_down_by_hand_is_dropped_not_seated_twice() -> None:
    ann, bob, cid = rated("ann"), rated("bob"), rated("cid")
    services.pool_join(user=ann, **STANDARD_2)
    table_services.table_create(creator=ann, ruleset="standard", seats=4)
    services.pool_join(user=bob, **STANDARD_2)
    assert pool_me(bob)["status"] == "waiting"  # not with ann, who now has a table
    assert pool_me(ann)["status"] == "none"
    assert services.pool_join(user=cid, **STANDARD_2)["status"] == "matched"
    assert Seat.objects.filter(user=ann).count() == 1


def test_leaving_takes_you_out_and_a_match_that_came_first_is_answered() -> None:
    ann, bob = rated("ann"), rated("bob")
    services.pool_join(user=ann, **STANDARD_2)
    assert services.pool_leave(user=ann)["status"] == "none"
    assert counts("standard-2-30") == (0, 0)
    assert services.pool_leave(user=ann)["status"] == "none"  # twice: nothing to leave
    services.pool_join(user=ann, **STANDARD_2)
    services.pool_join(user=bob, **STANDARD_2)
    left = services.pool_leave(user=ann)
    assert left["status"] == "matched" and left["table"] == pool_me(bob)["table"]


def test_logging_out_takes_you_out(client: object) -> None:
    ann = rated("ann")
    services.pool_join(user=ann, **STANDARD_2)
    client.force_login(ann)  # type: ignore[attr-defined]
    client.post("/accounts/logout/")  # type: ignore[attr-defined]
    assert pool_me(ann)["status"] == "none"


def test_closing_every_lobby_socket_for_the_grace_period_takes_you_out(settings: object) -> None:
    ann, bob, bot = rated("ann"), rated("bob"), rated("bot")
    services.presence_change(user_id=ann.pk, delta=1)
    services.presence_change(user_id=ann.pk, delta=1)
    services.pool_join(user=ann, **STANDARD_4)
    services.pool_join(user=bot, **STANDARD_3)  # a REST bot, never on a lobby socket
    services.presence_change(user_id=bob.pk, delta=1)
    services.pool_join(user=bob, **STANDARD_3)
    services.presence_change(user_id=ann.pk, delta=-1)
    later = timezone.now() + timedelta(seconds=60)
    assert services.pools_expire_absent(later) == 0  # one socket still open
    services.presence_change(user_id=ann.pk, delta=-1)
    assert LobbyPresence.objects.get(user=ann).sockets == 0
    assert services.pools_expire_absent(timezone.now() + timedelta(seconds=10)) == 0  # grace
    assert services.pools_expire_absent(later) == 1
    assert pool_me(ann)["status"] == "none"
    assert pool_me(bob)["status"] == pool_me(bot)["status"] == "waiting"


def test_sockets_closed_before_joining_do_not_count_as_absent() -> None:
    ann = rated("ann")
    services.presence_change(user_id=ann.pk, delta=1)
    services.presence_change(user_id=ann.pk, delta=-1)
    LobbyPresence.objects.filter(user=ann).update(closed_at=timezone.now() - timedelta(hours=1))
    services.pool_join(user=ann, **STANDARD_2)
    assert services.pools_expire_absent(timezone.now() + timedelta(seconds=5)) == 0


def test_the_sweep_matches_every_pool_holding_enough() -> None:
    people = [rated(f"p{i}", 1000 + 400 * i) for i in range(4)]
    for person in people:
        services.pool_join(user=person, **STANDARD_4)
    assert counts("standard-4-30") == (4, 0)
    assert services.pools_sweep(timezone.now() + timedelta(seconds=60)) == 1
    assert counts("standard-4-30") == (0, 4)


def test_the_beat_task_sweeps_every_few_seconds() -> None:
    entry = conf.CELERY_BEAT_SCHEDULE["lobby-sweep-pools"]
    assert entry["task"] == sweep_pools.name == "lobby.tasks.sweep_pools"
    assert entry["schedule"] == conf.LOBBY_SWEEP_SECONDS
    people = [rated(f"p{i}", 1500) for i in range(2)]
    for person in people:
        services.pool_join(user=person, **STANDARD_3)
    PoolEntry.objects.update(joined_at=timezone.now() - timedelta(seconds=5))
    assert sweep_pools() == 0  # two of three: nothing to seat
