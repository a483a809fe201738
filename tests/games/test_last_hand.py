"""The last hand's summary (``last_hand`` of every table answer and state frame): written by the
change that ends a hand, equal to the engine's scoring of that hand and to the rebuild from the
log, and shown to everyone, spectators included (the cards left in hand are scored in the open)."""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from games import services
from games.engine.cards import parse_cards
from games.engine.scoring import hand_value
from games.engine.views import full_state
from games.models import HandResult, Table
from games.push import state_frame
from games.selectors import (
    table_mismatch,
    table_payload,
    table_rebuild,
    table_rebuild_with_last_hand,
    table_seats,
)
from games.verify import verify_table
from tests.games.tables import play_greedy, players, started_table, state_of

pytestmark = pytest.mark.django_db


def hand_over(table: Table) -> int:
    """The version whose change ended the table's last finished hand."""
    versions = table.events.order_by("-version").values_list("version", "kind")
    return next(v for v, kind in versions if kind == "deal") - 1


def test_the_summary_is_the_engines_scoring_of_the_hand_as_it_ended() -> None:
    users = players("ann", "bob", "cid")
    table = started_table(users)
    assert table_payload(table, None)["last_hand"] is None  # no hand has ended yet
    play_greedy(table, users, until=lambda t: state_of(t).hand_number == 2)
    summary = table.last_hand
    assert summary is not None
    ended = table_rebuild(table, upto=hand_over(table))  # the position the hand ended in
    assert ended is not None and ended.phase == "hand_over"
    full = full_state(ended)
    assert summary["number"] == 1
    assert summary["went_out"] == full["hands"][0]["went_out"]
    assert summary["scores"] == full["hands"][0]["scores"]
    assert summary["melds"] == full["melds"] and summary["melds"]  # greedy bots meld
    assert summary["left"] == {p["name"]: p["hand"] for p in full["players"]}
    assert summary["totals"] == {p["name"]: p["score"] for p in full["players"]}
    # What is left in each hand is what the hand's score took off.
    rules = ended.rules
    for name, cards in summary["left"].items():
        assert hand_value(rules, parse_cards(cards)) == summary["scores"][name]["in_hand"]
    rows = HandResult.objects.filter(table=table, hand=1)
    assert {r.player: r.net for r in rows} == {n: s["net"] for n, s in summary["scores"].items()}


def test_everyone_sees_it_and_the_rebuild_gives_the_same() -> None:
    users = players("ann", "bob")
    table = started_table(users)
    play_greedy(table, users, until=lambda t: state_of(t).hand_number == 3)
    summary = table.last_hand
    assert summary is not None and summary["number"] == 2
    seats = table_seats(table)
    for name in ("ann", "bob", None):
        assert table_payload(table, name)["last_hand"] == summary
        assert state_frame(table, seats, name)["last_hand"] == summary
    assert table_rebuild_with_last_hand(table)[1] == summary
    assert table_mismatch(table) is None and verify_table(table)[1] == []


def test_a_summary_the_log_does_not_give_is_found() -> None:
    users = players("ann", "bob")
    table = started_table(users)
    play_greedy(table, users, until=lambda t: state_of(t).hand_number == 2)
    assert table.last_hand is not None
    table.last_hand = {**table.last_hand, "totals": {"ann": 500, "bob": 0}}
    table.save(update_fields=["last_hand"])
    assert (
        table_mismatch(table)
        == f"table {table.pk} v{table.version}: last_hand differs from the rebuild"
    )
    assert any("last hand" in p for p in verify_table(table)[1])
    table.last_hand = None  # as it was before the hand ended: the rebuild says otherwise
    table.save(update_fields=["last_hand"])
    assert table_mismatch(table) is not None
    table.last_hand = table_rebuild_with_last_hand(table)[1]  # leave it whole for the suite
    table.save(update_fields=["last_hand"])


@pytest.mark.django_db(transaction=True)
def test_the_migration_gives_tables_in_play_their_summary_and_no_break() -> None:
    """Tables that existed before the break: they keep playing without one, and the hand they
    finished last gets its summary from their log, as the change that ended it would store."""
    users = players("ann", "bob")
    table = started_table(users)
    play_greedy(table, users, until=lambda t: state_of(t).hand_number == 2)
    summary = table.last_hand
    executor = MigrationExecutor(connection)
    graph = executor.loader.graph
    # Found by name, so that renumbering the migration (beside another branch's) changes no test.
    ours = next(k for k in graph.nodes if k[0] == "games" and k[1].endswith("_between_hands"))
    before = sorted(p.key for p in graph.node_map[ours].parents if p.key[0] == "games")
    after = [ours]
    executor.migrate(before)
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(after)
    migrated = Table.objects.get(pk=table.pk)
    # Back to the latest migrations, as the test found the database.
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())
    assert summary is not None and migrated.last_hand == summary
    assert migrated.between_hands_seconds == 0
    assert (
        services.table_create(creator=users[0], ruleset="standard", seats=2).between_hands_seconds
        == 8
    )
