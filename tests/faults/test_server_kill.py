"""The ASGI server SIGKILLed in the middle of games and started again (docs/faults.md).

Every action a client saw acknowledged (a state frame past the version it sent, or a 200) is
in the log; the tables resume at the version the database holds, which is never behind what a
client saw; clients reconnect and get that version; an action lost in flight is sent again
with its client_id and applied exactly once; play goes on.
"""

from __future__ import annotations

import random
import threading
from collections import Counter

import pytest

from games.selectors import table_mismatch
from tests.faults.clients import (
    Game,
    Player,
    Reply,
    actions_url,
    call,
    mover,
    new_client_id,
    new_game,
    next_move,
    play,
)
from tests.faults.stack import Processes, Server, needs_services

pytestmark = [needs_services, pytest.mark.django_db(transaction=True)]


class InFlight:
    """One action sent just before the kill: over a socket, or REST from a thread of its own."""

    def __init__(self, server: Server, game: Game, player: Player, *, rest: bool) -> None:
        self.server, self.game, self.player, self.rest = server, game, player, rest
        self.version = player.version
        self.action = next_move(player.state["view"])
        self.client_id = new_client_id()
        self.status: int | None = None  # the REST answer, if one came back
        self.thread = threading.Thread(target=self._post)

    def post(self) -> Reply:
        body = {"action": self.action, "version": self.version, "client_id": self.client_id}
        return call(actions_url(self.server.url, self.game), token=self.player.token, body=body)

    def send(self) -> None:
        if self.rest:
            self.thread.start()
        else:
            self.player.act(self.action, self.version, self.client_id)

    def _post(self) -> None:
        try:
            self.status = self.post().status
        except OSError:  # the server died first: no answer
            self.status = None

    def acknowledged(self) -> bool:
        """Whether the sender learnt that its action was applied before the server died."""
        if self.rest:
            self.thread.join()
            return self.status == 200
        self.player.closed()  # reads what reached the socket before it closed
        return self.player.version > self.version

    def send_again(self) -> int:
        """The same action and client_id once more: the version the answer carries."""
        if self.rest:
            reply = self.post()
            assert reply.status == 200, reply
            return int(reply.body["version"])
        # Applied before the kill: answered to the sender alone, naming its client_id.
        # Otherwise applied now, and its state pushed to everyone.
        repeat = self.client_id in self.game.client_ids()
        self.player.act(self.action, self.version, self.client_id)
        frame = self.player.until(
            lambda f: (
                f["type"] == "error"
                or f.get("client_id") == self.client_id
                or (not repeat and f["version"] > self.version)
            )
        )
        assert frame["type"] == "state", frame
        return int(frame["version"])


def kill_mid_flight(
    server: Server, games: list[Game], seats: list[dict[str, Player]]
) -> list[InFlight]:
    """An action out on each table (over the socket on the first, REST on the second) as the
    server is SIGKILLed: the actions, each knowing whether its sender saw it acknowledged."""
    flights = [
        InFlight(server, game, mover(s), rest=rest)
        for game, s, rest in zip(games, seats, (False, True), strict=True)
    ]
    for flight in flights:
        flight.send()
    threading.Event().wait(random.uniform(0, 0.03))  # somewhere in the middle of them
    server.kill()
    return flights


def test_a_killed_server_loses_no_acknowledged_action_and_play_resumes(
    procs: Processes,
) -> None:
    games = [new_game("ann", "bob", "cid", "dan"), new_game("eve", "fay", "gus", "hal")]
    server = procs.server()
    seats = [game.players(lambda _: server.ws_url("")) for game in games]
    for player in (p for each in seats for p in each.values()):
        player.connect()
    acked = [play(server.url, g, s, 4) for g, s in zip(games, seats, strict=True)]

    flights = kill_mid_flight(server, games, seats)
    for game, each, flight, done in zip(games, seats, flights, acked, strict=True):
        done += [flight.client_id] if flight.acknowledged() else []
        assert all(p.closed() for p in each.values())  # each read all that reached it
        assert set(done) <= set(game.client_ids()), "an acknowledged action was lost"
        assert game.version() >= max(p.version for p in each.values())

    server.start()
    for game, each, flight in zip(games, seats, flights, strict=True):
        for player in each.values():
            assert player.connect()["version"] == game.version()
        answered = flight.send_again()
        for player in each.values():
            player.reaches(answered)
        play(server.url, game, each, 4)

    for game, done, flight in zip(games, acked, flights, strict=True):
        ids = Counter(game.client_ids())
        assert set(done) | {flight.client_id} <= set(ids)
        assert set(ids.values()) == {1}, ids
        assert game.versions() == list(range(1, game.version() + 1))
        game.table.refresh_from_db()
        assert table_mismatch(game.table) is None
