"""PostgreSQL out of reach for a while, behind a proxy the test controls (docs/faults.md).

While the database refuses connections, or drops one in the middle of an action's transaction,
every action gets the retryable ``unavailable`` answer (503 over REST, an error frame over the
socket, which stays open), pages get a plain 503, and nothing is half-applied. Once the
database answers again the same server, never restarted, takes the same action with the same
client_id, exactly once.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any

import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from config.unavailable import CLOSE_TRY_AGAIN, MESSAGE, RETRY_AFTER_SECONDS
from tests.faults.clients import (
    WAIT_SECONDS,
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
from tests.faults.stack import Processes, Server, TcpProxy, needs_services

pytestmark = [needs_services, pytest.mark.django_db(transaction=True)]

UNAVAILABLE = {"error": "unavailable", "message": MESSAGE, "retry_after": RETRY_AFTER_SECONDS}
# The statement that saves an action's new snapshot, after its log row was inserted: cutting
# the connection there leaves a transaction with one write done and one not.
SNAPSHOT_UPDATE = b'UPDATE "games_table"'


class Attempt:
    """One action by the player to move, sent as often as needed with one client_id."""

    def __init__(self, server: Server, game: Game, seats: dict[str, Player]) -> None:
        self.server, self.game, self.seats = server, game, seats
        self.player = mover(seats)
        self.version = self.player.version
        self.action = next_move(self.player.state["view"])
        self.client_id = new_client_id()

    def rest(self) -> Reply:
        body = {"action": self.action, "version": self.version, "client_id": self.client_id}
        return call(actions_url(self.server.url, self.game), token=self.player.token, body=body)

    def socket(self) -> dict[str, Any]:
        """The sender's answer: an error frame, or the state its action made."""
        self.player.act(self.action, self.version, self.client_id)
        return self.player.until(lambda f: f["type"] == "error" or f["version"] > self.version)

    def applied(self) -> list[str]:
        return [c for c in self.game.client_ids() if c == self.client_id]


def refused_over_rest(attempt: Attempt) -> None:
    reply = attempt.rest()
    assert (reply.status, reply.body) == (503, UNAVAILABLE)
    assert reply.headers["Retry-After"] == str(RETRY_AFTER_SECONDS)


def refused_over_the_socket(attempt: Attempt) -> None:
    frame = attempt.socket()
    assert frame == {"type": "error", "client_id": attempt.client_id, **UNAVAILABLE}


def turned_away(url: str) -> tuple[dict[str, Any], int | None]:
    """The one frame a new socket gets, and the code it is then closed with."""
    with connect(url, open_timeout=WAIT_SECONDS) as ws:
        frame = json.loads(ws.recv(timeout=WAIT_SECONDS))
        with pytest.raises(ConnectionClosed) as closed:
            ws.recv(timeout=WAIT_SECONDS)
    return frame, closed.value.rcvd.code if closed.value.rcvd else None


def page(server: Server, path: str) -> tuple[int, str, str]:
    try:
        with urllib.request.urlopen(server.url + path, timeout=30) as answer:
            return answer.status, answer.headers["Content-Type"], answer.read().decode()
    except urllib.error.HTTPError as refused:
        return refused.code, refused.headers["Content-Type"], refused.read().decode()


def refused_everywhere(server: Server, game: Game, seats: dict[str, Player]) -> Attempt:
    """While the database refuses: REST, the socket (which stays open), a page and new sockets
    are each told ``unavailable``, and nothing moves. The refused action, to send again."""
    attempt = Attempt(server, game, seats)
    refused_over_rest(attempt)
    refused_over_the_socket(attempt)
    attempt.player.send({"type": "sync"})  # the socket is still open, and still answers
    assert attempt.player.receive() == {"type": "error", "client_id": None, **UNAVAILABLE}
    status, kind, body = page(server, f"/tables/{game.table.pk}/")
    assert (status, kind) == (503, "text/html; charset=utf-8")
    assert "cannot reach its database" in body and "Traceback" not in body
    for path in ("", "?token=" + game.tokens["ann"]):  # a newcomer: the consumer, the token
        assert turned_away(seats["ann"].url + path) == (
            {"type": "error", "client_id": None, **UNAVAILABLE},
            CLOSE_TRY_AGAIN,
        )
    assert (game.version(), attempt.applied()) == (attempt.version, [])
    return attempt


def cut_mid_transaction(
    proxy: TcpProxy, server: Server, game: Game, seats: dict[str, Player], *, rest: bool
) -> None:
    """The connection dies with the action's log row written and its snapshot not: nothing
    of it stays, and the same action sent again is applied once."""
    proxy.cut_on(SNAPSHOT_UPDATE)
    attempt = Attempt(server, game, seats)
    refused_over_rest(attempt) if rest else refused_over_the_socket(attempt)
    assert (game.version(), attempt.applied()) == (attempt.version, [])
    assert attempt.socket()["version"] > attempt.version
    assert attempt.applied() == [attempt.client_id]
    for player in seats.values():
        player.reaches(game.version())


def test_a_database_outage_gets_a_retryable_answer_and_the_service_recovers_by_itself(
    procs: Processes,
) -> None:
    proxy = procs.database_proxy()
    server = procs.server(db_port=proxy.port)
    game = new_game("ann", "bob", "cid", "dan")
    seats = game.players(lambda _: server.ws_url(""))
    for player in seats.values():
        player.connect()
    play(server.url, game, seats, 2)  # the server now holds persistent connections

    proxy.refuse()
    attempt = refused_everywhere(server, game, seats)
    proxy.allow()
    answered = attempt.socket()  # the same action, the same client_id: applied now, once
    assert answered["type"] == "state" and answered["version"] > attempt.version
    again = attempt.rest()
    assert (again.status, again.body["version"]) == (200, answered["version"])
    assert attempt.applied() == [attempt.client_id]
    for player in seats.values():
        player.reaches(answered["version"])

    for rest in (True, False):
        cut_mid_transaction(proxy, server, game, seats, rest=rest)
    assert proxy.cuts == 2
    play(server.url, game, seats, 2)
    assert server.proc is not None and server.proc.poll() is None  # never restarted
    assert game.versions() == list(range(1, game.version() + 1))
