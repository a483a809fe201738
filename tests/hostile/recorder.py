"""Clients of a simulated event that keep everything they receive, for ``leaks.py`` to scan.

A ``Person`` is one user (or an anonymous visitor) with an API client (their token) and a
browser client (their session). A ``Socket`` is one of their WebSockets, read by a task of its
own so that no frame is missed, whoever it was meant for. The ``Recorder`` writes each frame and
each answer down as a ``Received``, stamped with the versions it speaks of: a ``state`` frame or
a table answer its own ``version``, anything else the versions of the tables when it arrived
(the test moves ``versions`` on after each change it makes, and only the test changes tables).
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from typing import Any

from channels.testing import WebsocketCommunicator
from django.test import Client
from rest_framework.test import APIClient

from accounts.models import User
from accounts.services import user_register
from config.asgi import application
from tests.hostile.leaks import Received

# A table's own paths, and its chat rooms' (``/api/chat/rooms/table:{id}:players/...``).
TABLE_PATH = re.compile(r"^/(?:api/)?tables/(\d+)/|^/api/chat/rooms/table:(\d+):")
TIMEOUT = 30.0  # seconds a frame may take; generous for a loaded CI machine, never reached
PASSWORD = "correct-horse-battery-staple"


@dataclass
class Person:
    """A user (``name``) or an anonymous visitor (``name`` None) and their two clients."""

    name: str | None
    api: APIClient
    web: Client
    token: str = ""
    user: User | None = None

    @classmethod
    def register(cls, name: str, **fields: Any) -> Person:
        user, token = user_register(username=name, password=PASSWORD)
        if fields:
            User.objects.filter(pk=user.pk).update(**fields)
            user.refresh_from_db()
        api, web = APIClient(), Client()
        api.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
        web.force_login(user)
        return cls(name, api, web, token.key, user)

    @classmethod
    def anonymous(cls) -> Person:
        return cls(None, APIClient(), Client())


class Socket:
    """One WebSocket of one person, its frames recorded as they come."""

    def __init__(self, recorder: Recorder, person: Person, path: str, table_id: int | None):
        self.recorder, self.person, self.path, self.table_id = recorder, person, path, table_id
        query = f"{'&' if '?' in path else '?'}token={person.token}" if person.token else ""
        self.comm = WebsocketCommunicator(application, path + query)
        self.frames: list[dict[str, Any]] = []
        self.state: dict[str, Any] | None = None  # the last state frame
        self.task: asyncio.Task[None] | None = None

    @property
    def version(self) -> int:
        return -1 if self.state is None else int(self.state["version"])

    async def open(self) -> Socket:
        connected, code = await self.comm.connect(timeout=TIMEOUT)
        assert connected, f"{self.path} refused {self.person.name}: {code}"
        self.task = asyncio.create_task(self._read())
        return self

    async def _read(self) -> None:
        while True:
            frame = await self.comm.receive_json_from(timeout=3600)
            self.frames.append(frame)
            if frame.get("type") == "state":
                self.state = frame
            self.recorder.frame(self, frame)

    async def send(self, message: dict[str, Any]) -> None:
        await self.comm.send_json_to(message)

    async def until(self, done: Callable[[], bool], what: str) -> None:
        """Wait (polling the frames the reader keeps) until ``done()``."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + TIMEOUT
        while not done():
            assert self.task is not None
            if self.task.done():
                self.task.result()  # the reader's failure, raised here
            assert loop.time() < deadline, f"{self.person.name} on {self.path}: no {what}"
            await asyncio.sleep(0.002)

    async def at_least(self, version: int) -> None:
        await self.until(lambda: self.version >= version, f"state at version {version}")

    def answered(self, client_id: str) -> dict[str, Any] | None:
        """The frame that answered ``client_id`` (an error, or a repeat's state), if any yet."""
        return next((f for f in reversed(self.frames) if f.get("client_id") == client_id), None)

    async def answer(self, client_id: str) -> dict[str, Any]:
        await self.until(lambda: self.answered(client_id) is not None, f"answer to {client_id}")
        found = self.answered(client_id)
        assert found is not None
        return found

    def errors(self) -> int:
        return sum(f.get("type") == "error" for f in self.frames)

    async def close(self) -> None:
        if self.task is not None:
            self.task.cancel()
            with suppress(asyncio.CancelledError):
                await self.task
        with suppress(Exception):
            await self.comm.disconnect(timeout=TIMEOUT)


@dataclass
class Recorder:
    """Everything every client received, and what the test knows of the tables' versions."""

    items: list[Received] = field(default_factory=list)
    versions: dict[int, int] = field(default_factory=dict)
    named: dict[str, frozenset[str]] = field(default_factory=dict)  # client_id -> cards sent
    sockets: list[Socket] = field(default_factory=list)

    def frame(self, socket: Socket, frame: dict[str, Any]) -> None:
        at = self.speaks_of(socket.table_id)
        if frame.get("type") == "state" and socket.table_id is not None:
            at = {socket.table_id: int(frame["version"])}
        named = self.named.get(str(frame.get("client_id")), frozenset())
        what = f"ws {socket.path} {frame.get('type')}"
        self.items.append(Received(socket.person.name, what, frame, at, named))

    def speaks_of(self, table_id: int | None) -> dict[int, int]:
        """The versions a payload is checked at: its table's now, or every table's (a card string
        may be one player's own at one table and secret at another, so a table's answers are
        checked against that table alone)."""
        return dict(self.versions) if table_id is None else {table_id: self.versions[table_id]}

    async def socket(self, person: Person, path: str, table_id: int | None = None) -> Socket:
        opened = await Socket(self, person, path, table_id).open()
        self.sockets.append(opened)
        return opened

    def api(
        self,
        person: Person,
        path: str,
        *,
        post: dict[str, Any] | None = None,
        named: frozenset[str] = frozenset(),
    ) -> Any:
        """GET (or POST ``post``) an API path as ``person``; the answer is recorded."""
        if post is None:
            response = person.api.get(path)
        else:
            response = person.api.post(path, post, format="json")
        body: Any = response.content.decode()
        if response.get("Content-Type", "").startswith("application/json"):
            body = json.loads(body)
        what = f"{'POST' if post is not None else 'GET'} {path} {response.status_code}"
        if isinstance(body, list) and all(_is_table(t) for t in body):
            # A list of tables: each speaks of its own table (and the same card string may be
            # one player's own card at one table and a secret at another).
            for table in body:
                at = {int(table["id"]): int(table["version"])}
                self.items.append(Received(person.name, what, table, at, named))
            return body
        at = self.speaks_of(_table_of(path))
        log_of = moves_of = None
        if _is_table(body) or (isinstance(body, dict) and {"view", "version"} <= body.keys()):
            at = {_table_id(path): int(body["version"])}
        elif path.endswith("/log/") and response.status_code == 200:
            log_of = _table_id(path)
        elif path.endswith("/moves/") and response.status_code == 200:
            moves_of = _table_id(path)
        text = isinstance(body, str)
        self.items.append(
            Received(person.name, what, body, at, named, text, log_of, moves_of=moves_of)
        )
        return body

    def page(self, person: Person, path: str) -> str:
        """A page or a CSV export as ``person``'s browser gets it; recorded."""
        response = person.web.get(path)
        assert response.status_code == 200, f"{path}: {response.status_code}"
        raw = b"".join(response.streaming_content) if response.streaming else response.content
        text = raw.decode()
        at = self.speaks_of(_table_of(path))
        what = f"page {path}"
        self.items.append(Received(person.name, what, text, at, text=True))
        return text

    async def close(self) -> None:
        await asyncio.gather(*(s.close() for s in self.sockets))
        self.sockets.clear()

    @contextmanager
    def logs(self) -> Iterator[None]:
        """Every log record of the service meanwhile, any logger and level, recorded too."""
        handler = _LogRecorder(self)
        root = logging.getLogger()
        level = root.level
        root.addHandler(handler)
        root.setLevel(logging.DEBUG)
        try:
            yield
        finally:
            root.removeHandler(handler)
            root.setLevel(level)


class _LogRecorder(logging.Handler):
    """A log record is a ``Received`` of nobody's, stamped with the tables' versions then."""

    def __init__(self, recorder: Recorder) -> None:
        super().__init__(logging.DEBUG)
        self.recorder = recorder

    def emit(self, record: logging.LogRecord) -> None:
        text = record.getMessage()
        if record.exc_info:
            text += "\n" + logging.Formatter().formatException(record.exc_info)
        what = f"log {record.name} {record.levelname}"
        self.recorder.items.append(
            Received(None, what, text, dict(self.recorder.versions), text=True)
        )


def _is_table(body: Any) -> bool:
    return isinstance(body, dict) and {"id", "view", "version"} <= body.keys()


def _table_of(path: str) -> int | None:
    """The table of ``/api/tables/{id}/...``, ``/tables/{id}/`` or one of its chat rooms, None
    for other paths."""
    found = TABLE_PATH.match(path)
    return int(found.group(1) or found.group(2)) if found else None


def _table_id(path: str) -> int:
    table_id = _table_of(path)
    assert table_id is not None, path
    return table_id
