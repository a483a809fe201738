"""Redis killed and started again under two live ASGI servers (docs/faults.md).

Redis carries the pushes between servers (the pub/sub channel layer) and the Celery broker;
the database carries the game. While Redis is down, actions are still applied, but their
pushes cannot go out; once it is back every socket must reach the version the database holds
without anyone acting or asking (a missed push would leave the next player waiting for a turn
they never see), and later pushes reach every socket on both servers again.
"""

from __future__ import annotations

from typing import Any

import pytest
from websockets.exceptions import ConnectionClosed

from games.models import Table
from games.push import state_frame
from games.selectors import table_seats
from tests.faults.clients import (
    Game,
    Player,
    actions_url,
    call,
    mover,
    new_client_id,
    new_game,
    next_move,
    play,
)
from tests.faults.stack import Processes, needs_services

pytestmark = [needs_services, pytest.mark.django_db(transaction=True)]


def catch_up(player: Player, version: int) -> dict[str, Any]:
    """The socket's state at ``version`` or later; a socket the server closed reconnects."""
    try:
        return player.reaches(version)
    except ConnectionClosed:
        return player.connect()


def as_the_database_has_it(game: Game, player: Player) -> dict[str, Any]:
    table = Table.objects.select_related("ruleset", "creator").get(pk=game.table.pk)
    return state_frame(table, table_seats(table), player.name)


def same_state(frame: dict[str, Any], fresh: dict[str, Any]) -> bool:
    """``frame`` is the database's state ``fresh`` (the whole move list), its moves those
    after its ``moves_since`` (a push carries its change's moves alone)."""
    since = frame["moves_since"]
    game_part = {k: v for k, v in frame.items() if k not in ("moves", "moves_since")}
    fresh_part = {k: v for k, v in fresh.items() if k not in ("moves", "moves_since")}
    later = [m for m in fresh["moves"] if m["version"] > since]
    return game_part == fresh_part and frame["moves"] == later


def test_after_a_redis_restart_every_socket_gets_the_database_state(procs: Processes) -> None:
    redis = procs.redis_server()
    servers = [procs.server(redis_url=redis.url) for _ in range(2)]
    game = new_game("ann", "bob", "cid", "dan")
    seats = game.players(lambda seat: servers[seat % 2].ws_url(""))
    for player in seats.values():
        player.connect()
    done = play(servers[0].url, game, seats, 2)  # each push crosses servers through Redis

    redis.kill()
    player, client_id = mover(seats), new_client_id()
    body = {"action": next_move(player.state["view"]), "version": player.version}
    reply = call(
        actions_url(servers[0].url, game), token=player.token, body={**body, "client_id": client_id}
    )
    assert reply.status == 200, reply  # the database took it; its push is lost
    done.append(client_id)
    redis.start()

    for player in seats.values():
        frame = catch_up(player, reply.body["version"])
        assert frame["version"] == game.version()
        assert same_state(frame, as_the_database_has_it(game, player))

    done += play(servers[1].url, game, seats, 3)
    for player in seats.values():
        assert player.state is not None
        assert same_state(player.state, as_the_database_has_it(game, player))
    assert set(done) <= set(game.client_ids())
