"""games.waiting: the cap on the waiting tables one player sits at, and the expiry of tables
that wait too long (closed by the sweep)."""

from __future__ import annotations

import pytest
from django.test import override_settings
from rest_framework.test import APIClient

from games import services, tasks
from games.errors import TableError
from games.hosting import table_open_for
from games.models import Table
from games.refusals import seat_actions
from tests.games.clocks import FakeTime
from tests.games.tables import players

pytestmark = pytest.mark.django_db

CAP = 10  # the default of WAITING_TABLES_PER_PLAYER


def refused(call: object, **kwargs: object) -> TableError:
    with pytest.raises(TableError) as info:
        call(**kwargs)  # type: ignore[operator]
    return info.value


def test_a_player_opens_as_many_waiting_tables_as_the_cap_and_no_more() -> None:
    (ann,) = players("ann")
    for _ in range(CAP):
        services.table_create(creator=ann, ruleset="standard", seats=4)
    error = refused(services.table_create, creator=ann, ruleset="standard", seats=4)
    assert (error.code, error.status) == ("too_many_tables", 409)
    assert Table.objects.filter(creator=ann).count() == CAP


@override_settings(WAITING_TABLES_PER_PLAYER=3)
def test_seats_taken_at_others_tables_count_and_a_started_or_left_table_frees_a_place() -> None:
    ann, bob, cy = players("ann", "bob", "cy")
    tables = [services.table_create(creator=bob, ruleset="standard", seats=4) for _ in range(2)]
    tables.append(services.table_create(creator=cy, ruleset="standard", seats=4))
    for table in tables:
        services.table_join(table_id=table.pk, user=ann)
    fourth = services.table_create(creator=cy, ruleset="standard", seats=4)
    assert refused(services.table_join, table_id=fourth.pk, user=ann).code == "too_many_tables"
    assert refused(services.table_create, creator=ann, ruleset="standard", seats=2).status == 409
    # The page and the socket do not offer what the service refuses.
    assert seat_actions(fourth, ann, list(fourth.seat_set.all()))["join"] is False
    services.table_start(table_id=tables[0].pk, user=bob)  # playing: no longer waiting
    services.table_join(table_id=fourth.pk, user=ann)
    services.table_leave(table_id=tables[1].pk, user=ann)
    services.table_create(creator=ann, ruleset="standard", seats=2)


@override_settings(WAITING_TABLES_PER_PLAYER=1)
def test_the_cap_is_a_setting_and_joining_again_is_still_a_no_op() -> None:
    ann, bob = players("ann", "bob")
    table = services.table_create(creator=ann, ruleset="standard", seats=4)
    assert services.table_join(table_id=table.pk, user=ann).pk == table.pk
    other = services.table_create(creator=bob, ruleset="standard", seats=4)
    assert refused(services.table_join, table_id=other.pk, user=ann).code == "too_many_tables"


def test_tables_an_event_or_quick_play_opens_are_not_capped() -> None:
    ann, bob = players("ann", "bob")
    for _ in range(CAP):
        services.table_create(creator=ann, ruleset="standard", seats=4)
    table = table_open_for(players=[ann, bob], ruleset="standard")
    assert table.status == "playing"


def test_the_api_answers_the_cap_in_the_error_shape() -> None:
    (ann,) = players("ann")
    client = APIClient()
    client.force_authenticate(ann)
    for _ in range(CAP):
        assert client.post("/api/tables/", {"seats": 2}, format="json").status_code == 201
    answer = client.post("/api/tables/", {"seats": 2}, format="json")
    assert answer.status_code == 409
    assert answer.json()["error"] == "too_many_tables"


def test_the_sweep_closes_a_table_waiting_past_the_expiry_and_leaves_younger_ones(
    now: FakeTime,
) -> None:
    ann, bob = players("ann", "bob")
    old = services.table_create(creator=ann, ruleset="standard", seats=4)
    started = services.table_create(creator=bob, ruleset="standard", seats=2)
    services.table_join(table_id=started.pk, user=ann)  # full: it starts
    now.advance(seconds=1000)
    young = services.table_create(creator=bob, ruleset="standard", seats=4)
    now.advance(seconds=799)
    assert tasks.sweep()["expired"] == 0
    now.advance(seconds=2)
    assert tasks.sweep()["expired"] == 1
    old.refresh_from_db()
    young.refresh_from_db()
    started.refresh_from_db()
    assert (old.status, young.status, started.status) == ("aborted", "waiting", "playing")
    assert old.finished_at == now.now
    # Closed, it no longer counts against its players' cap, and cannot be joined.
    assert refused(services.table_join, table_id=old.pk, user=bob).code == "already_started"
    assert tasks.sweep()["expired"] == 0
