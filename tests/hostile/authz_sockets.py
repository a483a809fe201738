"""The socket half of the authorization matrix, and the private-view check both halves use.

A ``WS`` row (``"WS /ws/tables/{t_event}/ action"``) opens the socket through the whole ASGI
application (origin check, ``?token=`` and session auth, routing) as the role, sends the
message and reads what comes back. The consumers' database calls run in the test's own thread
(``_same_thread``): they then see the module's objects, which live in an uncommitted
transaction, and roll back with the test. Pushes are sent after commit, so none is sent here:
an accepted action or ``back`` answers nothing, and the database says whether it went through.
"""

from __future__ import annotations

import html
import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from unittest import mock

from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator

from config import push as config_push
from config.asgi import application
from games.models import Table
from tests.hostile.authz_rows import Row
from tests.hostile.authz_world import ROLES, World, ann_move, snapshot

TIMEOUT = 10  # seconds a frame may take on a loaded machine; an answer comes in milliseconds
QUIET = 0.5  # how long an accepted action is given to answer anything (it must not)


@contextmanager
def _same_thread() -> Iterator[None]:
    """The consumers' and Channels' database calls in this thread, with no connection closed
    (closing would end the test's transaction)."""

    def here(func: Any) -> Any:
        return database_sync_to_async(func)

    with (
        mock.patch("games.consumers._db", here),
        mock.patch("games.consumers._db_socket", here),
        mock.patch("tournaments.consumers._db", here),
        mock.patch("lobby.consumers._db", here),
        mock.patch("channels.db.close_old_connections", lambda: None),
    ):
        yield


def check(world: World, entry: Row, role: str, expected: str, settings: Any) -> None:
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    path, message = entry.path(world).split(" ")
    name = ROLES[role]
    if name is not None:
        path += f"?token={world.tokens[name]}"
    table = world.tables["event"]
    version = Table.objects.get(pk=table.pk).version
    config_push.set_server_loop(None)
    try:
        with _same_thread():
            got, frame = async_to_sync(_talk)(path, message, ann_move(world))
    finally:
        config_push.set_server_loop(None)
    assert got == expected, frame
    moved = Table.objects.get(pk=table.pk).version != version
    assert moved == (got == "done")
    if got != "done":
        assert snapshot() == world.baseline, "a socket call that did nothing changed something"
    if entry.private and frame is not None:
        check_view(frame["view"], ROLES[role])


async def _talk(path: str, message: str, move: dict[str, Any]) -> tuple[str, Any]:
    """What the socket at ``path`` does with ``message``: (outcome, the frame it sent)."""
    socket = WebsocketCommunicator(application, path)
    connected, code = await socket.connect(timeout=TIMEOUT)
    if not connected:
        return ("closed" if code == 4404 else f"closed {code}"), None
    table = path.startswith("/ws/tables/")
    frame = await socket.receive_json_from(TIMEOUT) if table else None
    try:
        if message == "connect":
            return "accept", frame
        bodies = {"action": move, "rematch": {"accept": True}}
        sent = {"type": message, **bodies.get(message, {})}
        await socket.send_json_to(sent)
        if message == "sync":
            frame = await socket.receive_json_from(TIMEOUT)
            return ("accept" if frame["type"] in ("state", "event") else frame["error"]), frame
        if await socket.receive_nothing(QUIET):
            return ("done" if message == "action" else "quiet"), None
        frame = await socket.receive_json_from(TIMEOUT)
        return frame.get("error", frame["type"]), frame
    finally:
        await socket.disconnect()


def check_view(view: dict[str, Any], viewer: str | None) -> None:
    """A view shows the viewer's own hand alone (as a list; any other hand is its size), the
    stock as its size, and names the viewer (``you``) only if they are seated."""
    assert isinstance(view["stock"], int)
    names = [player["name"] for player in view["players"]]
    for player in view["players"]:
        assert isinstance(player["hand"], list) == (player["name"] == viewer), player["name"]
    assert view.get("you") == (viewer if viewer in names else None)


def check_page(page: str, world: World) -> None:
    """A page or answer without a view (the admin's, the log) carries no hand of the event
    table, nor its stock, nor the seed of its hand in play."""
    _absent_from(page, Table.objects.get(pk=world.tables["event"].pk))


def _absent_from(page: str, table: Table) -> None:
    """No three cards of a hand or of the stock in a row, nor the seed of the hand in play."""
    text = html.unescape(page).replace(" ", "")
    full = table.state
    hidden = [full["stock"][:3], *(p["hand"][:3] for p in full["players"])]
    for cards in hidden:
        assert json.dumps(cards).replace(" ", "")[1:-1] not in text, f"{cards} shown"
    assert table.deals[-1]["seed"] not in text, "the seed of the hand in play shown"
