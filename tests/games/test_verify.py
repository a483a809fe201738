"""``games.verify`` and ``python manage.py tables_verify``: every table replayed from its log and
compared with its snapshot and results, and each kind of damage reported.

Each damaging test puts the damage right at its end and verifies again: the suite's own check
after every test (tests/conftest.py) replays every table too.
"""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from accounts.models import User
from games import services
from games.models import HandResult, Table, TableEvent
from games.verify import verify_tables
from tests.games.tables import play_greedy, play_simple, players, started_table

pytestmark = pytest.mark.django_db


def _played() -> tuple[Table, Table, Table, list[User]]:
    """A finished game, a game in play and a table still waiting."""
    users = players("ann", "bob", "cid")
    finished = started_table(users, overrides={"target": 1})
    play_greedy(finished, users, until=lambda t: t.status != Table.Status.PLAYING)
    running = started_table(users)
    play_simple(running, users, until=lambda t: t.version >= 12)
    waiting = services.table_create(creator=users[0], ruleset="standard", seats=4)
    return finished, running, waiting, users


def _verify(*args: str) -> tuple[str, int]:
    out = StringIO()
    try:
        call_command("tables_verify", *args, stdout=out)
    except CommandError as exc:
        return out.getvalue(), exc.returncode
    return out.getvalue(), 0


def test_played_tables_match_their_logs() -> None:
    finished, running, waiting, _ = _played()
    statuses = [finished.status, running.status, waiting.status]
    assert statuses == [Table.Status.FINISHED, Table.Status.PLAYING, Table.Status.WAITING]
    found = verify_tables()
    assert (found.tables, found.replayed, found.empty, found.problems) == (3, 2, 1, [])
    assert found.ok and len(found.digest) == 64
    out, code = _verify()
    assert code == 0
    assert "3 tables: 2 replayed, 1 with no log, 0 problems" in out
    assert found.digest in out


def test_the_digest_follows_every_table_state() -> None:
    _, running, _, users = _played()
    before = verify_tables().digest
    assert verify_tables().digest == before  # the same database, the same digest
    play_simple(running, users, until=lambda t: t.version >= 14)
    assert verify_tables().digest != before


def test_a_changed_snapshot_is_reported() -> None:
    _, running, _, _ = _played()
    state = running.state
    hand = state["players"][0]["hand"]
    state["players"][0]["hand"] = hand[1:]  # a card lost from the snapshot
    Table.objects.filter(pk=running.pk).update(state=state)
    out, code = _verify()
    assert code == 1
    assert f"table {running.pk} v{running.version}: snapshot and rebuild differ in players" in out
    state["players"][0]["hand"] = hand
    Table.objects.filter(pk=running.pk).update(state=state)
    assert verify_tables().ok


def test_a_missing_log_row_is_reported() -> None:
    _, running, _, _ = _played()
    last = TableEvent.objects.get(table=running, version=running.version)
    last.delete()
    found = verify_tables()
    assert not found.ok
    assert any(f"missing {running.version}" in p for p in found.problems), found.problems
    assert any("snapshot and rebuild differ" in p for p in found.problems), found.problems
    last.save()
    assert verify_tables().ok


def test_a_log_the_engine_refuses_is_reported_not_raised() -> None:
    _, running, _, _ = _played()
    step = TableEvent.objects.filter(table=running, kind="action").order_by("version").last()
    assert step is not None
    logged = step.action
    step.action = {"type": "discard", "card": "ZZ"}
    step.save(update_fields=["action"])
    found = verify_tables([running])
    assert len(found.problems) == 1
    assert found.problems[0].startswith(f"table {running.pk}: the log does not replay")
    step.action = logged
    step.save(update_fields=["action"])
    assert verify_tables([running]).ok


def test_hand_results_that_differ_from_the_log_are_reported() -> None:
    finished, _, _, _ = _played()
    row = HandResult.objects.filter(table=finished).first()
    assert row is not None
    HandResult.objects.filter(pk=row.pk).update(net=row.net + 5)
    found = verify_tables([finished])
    assert found.problems == [
        f"table {finished.pk}: hand results differ from the rebuild at ({row.hand}, '{row.player}')"
    ]
    row.save()
    assert verify_tables([finished]).ok


def test_json_and_chosen_tables() -> None:
    finished, running, _, _ = _played()
    out, code = _verify("--table", str(running.pk), "--table", str(finished.pk), "--json")
    figures = json.loads(out)
    assert code == 0
    assert (figures["tables"], figures["replayed"], figures["ok"]) == (2, 2, True)
    assert figures["digest"] == verify_tables([finished, running]).digest
    with pytest.raises(CommandError, match="no table 999999"):
        call_command("tables_verify", "--table", "999999", stdout=StringIO())
