"""What games tells the lobby (``games.push``, ``LOBBY_GROUP``): a table's creation, seats,
start and end, never the moves of a game in play; and ``live_counts``."""

from __future__ import annotations

from typing import Any
from unittest import mock

import pytest

from games import services
from games.listing import live_counts
from games.models import Table
from games.push import LOBBY_GROUP
from tests.games.finished import finished_table
from tests.games.tables import play_greedy, players, started_table, state_of

pytestmark = pytest.mark.django_db(transaction=True)  # the pushes run after commit


def lobby_frames(sent: mock.MagicMock) -> list[dict[str, Any]]:
    return [
        message["table"]
        for call in sent.call_args_list
        for group, message in call.args[0]
        if group == LOBBY_GROUP
    ]


@pytest.fixture(autouse=True)
def _listening(monkeypatch: pytest.MonkeyPatch) -> None:
    """As if a socket listened to every group: the in-memory layer skips a push nobody hears."""
    monkeypatch.setattr("games.push.nobody_listens", lambda groups: False)


def test_creation_seats_and_start_are_told_moves_are_not() -> None:
    ann, bob = players("ann", "bob")
    with mock.patch("games.push.group_send_many") as sent:
        table = services.table_create(creator=ann, ruleset="standard", seats=2)
        services.table_join(table_id=table.pk, user=bob)
        told = lobby_frames(sent)
        assert [(t["status"], t["players"]) for t in told] == [
            ("waiting", ["ann"]),
            ("playing", ["ann", "bob"]),
        ]
        sent.reset_mock()
        table.refresh_from_db()
        play_greedy(table, [ann, bob], until=lambda t: state_of(t).hand_number >= 2)
        assert sent.called and lobby_frames(sent) == []  # moves reach the table, not the lobby


def test_the_end_of_a_game_is_told() -> None:
    with mock.patch("games.push.group_send_many") as sent:
        table = finished_table(players("ann", "bob"))
    assert table.status == Table.Status.FINISHED
    assert lobby_frames(sent)[-1]["status"] == "finished"
    assert lobby_frames(sent)[-1]["id"] == table.pk


def test_live_counts() -> None:
    ann, bob, cid, dan, eve = players("ann", "bob", "cid", "dan", "eve")
    services.table_create(creator=ann, ruleset="standard", seats=4)
    started_table([bob, cid])
    started_table([dan, eve])
    assert live_counts() == {"tables_playing": 2, "players_playing": 4, "tables_waiting": 1}
