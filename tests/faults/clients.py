"""Clients of the fault tests: players on real WebSockets and REST calls, speaking PROTOCOL.md
the way a bot does (a version and a client_id with every action, a resync after a reconnect)."""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass, field
from typing import Any

from rest_framework.authtoken.models import Token
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from accounts.models import User
from games.models import Table, TableEvent
from tests.games.tables import players, started_table

# Generous: the outcome, not the speed, is under test.
WAIT_SECONDS = 30.0
# Long enough that no turn times out while a test plays; the clock has tests of its own.
TURN_SECONDS = 600


@dataclass
class Reply:
    status: int
    body: Any
    headers: dict[str, str]


def call(url: str, *, token: str, body: Any = None, timeout: float = WAIT_SECONDS) -> Reply:
    """POST ``body`` (GET without one) as the token's user; any status is a reply."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method="GET" if data is None else "POST")
    request.add_header("Authorization", f"Token {token}")
    request.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=timeout) as answer:
            return Reply(answer.status, _json(answer.read()), dict(answer.headers))
    except urllib.error.HTTPError as refused:
        return Reply(refused.code, _json(refused.read()), dict(refused.headers))


def _json(raw: bytes) -> Any:
    try:
        return json.loads(raw)
    except ValueError:
        return raw.decode(errors="replace")


@dataclass
class Player:
    """One player's socket on one table, and every frame it got."""

    name: str
    token: str
    url: str  # ws://host:port/ws/tables/{id}/
    ws: ClientConnection | None = None
    state: dict[str, Any] = field(default_factory=dict)  # the last state frame
    frames: list[dict[str, Any]] = field(default_factory=list)
    _exits: ExitStack = field(default_factory=ExitStack)

    @property
    def version(self) -> int:
        return int(self.state.get("version", -1))

    def connect(self) -> dict[str, Any]:
        """Open the socket; the first frame is the current state (a resync)."""
        self.close()
        self._exits = ExitStack()
        url = f"{self.url}?token={self.token}"
        self.ws = self._exits.enter_context(connect(url, open_timeout=WAIT_SECONDS))
        first = self.receive()
        assert first["type"] == "state", first
        return first

    def send(self, message: dict[str, Any]) -> None:
        assert self.ws is not None
        self.ws.send(json.dumps(message))

    def receive(self, timeout: float = WAIT_SECONDS) -> dict[str, Any]:
        assert self.ws is not None
        frame = json.loads(self.ws.recv(timeout=timeout))
        self.frames.append(frame)
        if frame["type"] == "state":
            self.state = frame
        return frame

    def until(self, wanted: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
        """The first frame from now on that is ``wanted``; fails after WAIT_SECONDS."""
        end = time.monotonic() + WAIT_SECONDS
        while True:
            frame = self.receive(timeout=max(0.1, end - time.monotonic()))
            if wanted(frame):
                return frame

    def reaches(self, version: int) -> dict[str, Any]:
        """This socket's state once it has ``version`` (or later)."""
        if self.version >= version:
            return self.state
        return self.until(lambda f: f["type"] == "state" and f["version"] >= version)

    def act(self, action: dict[str, Any], version: int, client_id: str) -> None:
        self.send({"type": "action", "action": action, "version": version, "client_id": client_id})

    def closed(self, timeout: float = 5.0) -> bool:
        """Whether the server closes this socket within ``timeout`` (reading what is left)."""
        end = time.monotonic() + timeout
        try:
            while time.monotonic() < end:
                self.receive(timeout=max(0.01, end - time.monotonic()))
        except TimeoutError:
            return False
        except ConnectionClosed:
            return True
        return False

    def close(self) -> None:
        self._exits.close()


def next_move(view: dict[str, Any]) -> dict[str, Any]:
    """A legal action from the mover's own view: a stock draw, else the first discard (the
    policy of tests/games/tables.play_simple: nobody melds, so a hand lasts)."""
    legal = view["legal"]
    draws = [a for a in legal if a["type"] == "draw" and a.get("source") == "stock"]
    return (draws or [a for a in legal if a["type"] == "discard"])[0]


def new_client_id() -> str:
    return str(uuid.uuid4())


@dataclass
class Game:
    """A started four-seat table, its players' tokens, and its log as the database has it."""

    table: Table
    users: list[User]
    tokens: dict[str, str]

    def players(self, url_of: Callable[[int], str]) -> dict[str, Player]:
        """A (not yet connected) Player per seat; ``url_of(seat)`` names its server's socket."""
        path = f"/ws/tables/{self.table.pk}/"
        return {
            u.username: Player(u.username, self.tokens[u.username], url_of(i) + path)
            for i, u in enumerate(self.users)
        }

    def version(self) -> int:
        self.table.refresh_from_db()
        return self.table.version

    def client_ids(self) -> list[str]:
        rows = TableEvent.objects.filter(table=self.table).exclude(client_id=None)
        return list(rows.values_list("client_id", flat=True))

    def versions(self) -> list[int]:
        rows = TableEvent.objects.filter(table=self.table).order_by("version")
        return list(rows.values_list("version", flat=True))


def new_game(*names: str, turn_seconds: int = TURN_SECONDS) -> Game:
    users = players(*names)
    table = started_table(users, overrides={"turn_seconds": turn_seconds})
    tokens = {u.username: Token.objects.create(user=u).key for u in users}
    return Game(table, users, tokens)


def actions_url(base: str, game: Game) -> str:
    return f"{base}/api/tables/{game.table.pk}/actions/"


def play(base: str, game: Game, seats: dict[str, Player], count: int) -> list[str]:
    """``count`` actions, over the mover's socket and REST (on the server at ``base``) in
    turn; each acknowledged, and seen by every socket before the next. Their client_ids."""
    done = []
    for i in range(count):
        player = mover(seats)
        action, version = next_move(player.state["view"]), player.version
        client_id = new_client_id()
        if i % 2:
            body = {"action": action, "version": version, "client_id": client_id}
            reply = call(actions_url(base, game), token=player.token, body=body)
            assert reply.status == 200, reply
            now = int(reply.body["version"])
        else:
            player.act(action, version, client_id)
            frame = player.until(lambda f, v=version: f["type"] == "state" and f["version"] > v)
            now = int(frame["version"])
        done.append(client_id)
        for each in seats.values():
            each.reaches(now)
    return done


def mover(players_: dict[str, Player]) -> Player:
    """The player to move, as every socket (all at one version) shows it."""
    states = [p.state for p in players_.values()]
    assert len({s["version"] for s in states}) == 1, [s["version"] for s in states]
    return players_[states[0]["view"]["turn"]]
