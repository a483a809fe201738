"""Chat over the table socket and the event socket (``?chat=1``), through the whole ASGI
application on the in-memory channel layer: each room's history on connect, the players' and
the spectators' rooms, the rail opened to the players at the game's end, mutes filtered per
connection, deletion and a room's switch pushed, refusals as error frames. Every expected frame
is awaited and counted: a missing or extra one fails the test rather than a timer."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, suppress
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.db import connections as databases

from accounts.models import User
from accounts.services import user_register
from chat import services
from chat.services import BURST
from config import push as config_push
from config.asgi import application
from games import services as games_services
from games.chat_rooms import table_room_key
from games.models import Table
from games.push import push_table_id
from tests.games.tables import started_table
from tests.tournaments.factories import make_event
from tournaments.chat_rooms import event_room_key

pytestmark = pytest.mark.django_db(transaction=True)
TIMEOUT = 10  # seconds a frame may take; generous for a loaded machine, never reached
db = database_sync_to_async


@pytest.fixture(autouse=True)
def _layer(settings: Any) -> Iterator[None]:
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    config_push.set_server_loop(None)
    yield
    config_push.set_server_loop(None)


@pytest.fixture(autouse=True)
async def _close_worker_connections() -> AsyncIterator[None]:
    yield
    await database_sync_to_async(databases.close_all)()


def person(name: str, **fields: Any) -> tuple[User, str]:
    user, token = user_register(username=name, password="correct-horse-battery-staple")
    if fields:
        User.objects.filter(pk=user.pk).update(**fields)
        user.refresh_from_db()
    return user, token.key


@pytest.fixture
def world() -> dict[str, Any]:
    people = {n: person(n) for n in ("ann", "bob", "cid")}
    people["boss"] = person("boss", is_staff=True)
    table = started_table([people["ann"][0], people["bob"][0]])
    return {"people": people, "table": table}


class Chat:
    """A socket and every frame it got, read in order."""

    def __init__(self, comm: WebsocketCommunicator) -> None:
        self.comm = comm

    async def next(self, *types: str) -> dict[str, Any]:
        """The next frame that is not a ``state`` frame (those are the game's)."""
        while True:
            frame: dict[str, Any] = await self.comm.receive_json_from(timeout=TIMEOUT)
            if frame["type"] != "state":
                assert not types or frame["type"] in types, frame
                return frame

    async def send(self, message: dict[str, Any]) -> None:
        await self.comm.send_json_to(message)

    async def quiet(self) -> bool:
        while not await self.comm.receive_nothing(timeout=0.2):
            frame = await self.comm.receive_json_from(timeout=TIMEOUT)
            if frame["type"] != "state":
                raise AssertionError(f"unexpected {frame}")
        return True


@asynccontextmanager
async def opened(path: str, token: str | None, chat: bool = True) -> AsyncIterator[Chat]:
    query = "&".join(p for p in ("chat=1" if chat else "", f"token={token}" if token else "") if p)
    comm = WebsocketCommunicator(application, f"{path}?{query}")
    connected, code = await comm.connect(timeout=TIMEOUT)
    assert connected, code
    try:
        yield Chat(comm)
    finally:
        with suppress(Exception):
            await comm.disconnect(timeout=TIMEOUT)


def texts(frame: dict[str, Any]) -> list[str]:
    return [m["text"] for m in frame["messages"]]


async def histories(socket: Chat, count: int) -> dict[str, dict[str, Any]]:
    found = [await socket.next("chat_history") for _ in range(count)]
    return {f["room"]: f for f in found}


async def test_players_and_spectators_rooms_and_the_rail_after_the_game(
    world: dict[str, Any],
) -> None:
    table: Table = world["table"]
    (_, ann), (_, bob), (_, cid) = (world["people"][n] for n in ("ann", "bob", "cid"))
    path = f"/ws/tables/{table.pk}/"
    async with opened(path, ann) as a, opened(path, cid) as c, opened(path, None) as anon:
        first = await histories(a, 1)
        assert set(first) == {"players"} and first["players"]["writable"]
        seen = await histories(c, 2)
        assert not seen["players"]["writable"] and seen["spectators"]["writable"]
        assert set(await histories(anon, 2)) == {"players", "spectators"}
        await a.send({"type": "chat", "room": "players", "text": "<b>gl</b>", "client_id": "1"})
        for socket in (a, c, anon):
            frame = await socket.next("chat")
            assert frame["room"] == "players"
            assert frame["message"]["user"] == "ann" and frame["message"]["text"] == "<b>gl</b>"
        await c.send({"type": "chat", "room": "spectators", "text": "ann wins", "client_id": "2"})
        assert (await c.next("chat"))["message"]["text"] == "ann wins"
        assert (await anon.next("chat"))["room"] == "spectators"
        # Refused: a player in the rail, a spectator at the table, a visitor anywhere.
        await a.send({"type": "chat", "room": "spectators", "text": "psst", "client_id": "3"})
        error = await a.next("error")
        assert (error["error"], error["client_id"]) == ("forbidden", "3")
        await c.send({"type": "chat", "room": "players", "text": "hi", "client_id": "4"})
        assert (await c.next("error"))["error"] == "forbidden"
        await anon.send({"type": "chat", "room": "spectators", "text": "hi", "client_id": "5"})
        assert (await anon.next("error"))["error"] == "chat_login_required"
        await a.send({"type": "chat", "room": "kitchen", "text": "hi", "client_id": "6"})
        assert (await a.next("error"))["error"] == "bad_request"
        await a.send({"type": "chat", "room": "players", "text": "x" * 301, "client_id": "7"})
        assert (await a.next("error"))["error"] == "chat_bad_text"
        # The game ends: the players now read the rail, its history at once.
        await db(Table.objects.filter(pk=table.pk).update)(status=Table.Status.FINISHED)
        await db(push_table_id)(table.pk)
        rail = await a.next("chat_history")
        assert rail["room"] == "spectators" and texts(rail) == ["ann wins"]
        assert not rail["writable"]
        assert await a.quiet() and await c.quiet()
    async with opened(path, bob) as b:  # a player connecting after the game reads both
        assert set(await histories(b, 2)) == {"players", "spectators"}


async def test_a_socket_without_chat_gets_no_chat_frame(world: dict[str, Any]) -> None:
    table = world["table"]
    ann = world["people"]["ann"][1]
    async with opened(f"/ws/tables/{table.pk}/", ann, chat=False) as quiet:
        await db(services.chat_post)(
            room=table_room_key(table.pk, "players"), author=world["people"]["bob"][0], text="hi"
        )
        assert await quiet.quiet()


async def test_mutes_are_filtered_per_connection_live_and_in_history(
    world: dict[str, Any],
) -> None:
    table = world["table"]
    people = world["people"]
    path = f"/ws/tables/{table.pk}/"
    async with opened(path, people["cid"][1]) as c, opened(path, people["ann"][1]) as a:
        await histories(c, 2)
        await histories(a, 1)
        await db(services.chat_mute)(user=people["cid"][0], username="bob")
        again = await histories(c, 2)  # the muter's rooms, again
        assert texts(again["players"]) == []
        room = table_room_key(table.pk, "players")
        await db(services.chat_post)(room=room, author=people["bob"][0], text="from bob")
        await db(services.chat_post)(room=room, author=people["ann"][0], text="from ann")
        assert [(await a.next("chat"))["message"]["text"] for _ in range(2)] == [
            "from bob",
            "from ann",
        ]
        assert (await c.next("chat"))["message"]["text"] == "from ann"  # bob's left out
        await db(services.chat_unmute)(user=people["cid"][0], username="bob")
        back = await histories(c, 2)
        assert texts(back["players"]) == ["from bob", "from ann"]
        assert await c.quiet() and await a.quiet()


async def test_deletion_and_the_rate_limit(world: dict[str, Any]) -> None:
    table = world["table"]
    people = world["people"]
    path = f"/ws/tables/{table.pk}/"
    async with opened(path, people["ann"][1]) as a, opened(path, people["boss"][1]) as boss:
        await histories(a, 1)
        assert (await histories(boss, 2))["players"]["moderator"]
        for i in range(BURST):
            await a.send({"type": "chat", "room": "players", "text": f"m{i}", "client_id": str(i)})
            await a.next("chat")
        await a.send({"type": "chat", "room": "players", "text": "more", "client_id": "x"})
        error = await a.next("error")
        assert error["error"] == "chat_rate_limited" and error["client_id"] == "x"
        assert error["retry_after"] > 0
        frames = [await boss.next("chat") for _ in range(BURST)]
        first = frames[0]["message"]["id"]
        await db(services.chat_delete)(message_id=first, user=people["boss"][0])
        for socket in (a, boss):
            assert await socket.next("chat_deleted") == {
                "type": "chat_deleted",
                "room": "players",
                "id": first,
            }
    async with opened(path, people["cid"][1]) as c:
        seen = await histories(c, 2)
        assert texts(seen["players"]) == [f"m{i}" for i in range(1, BURST)]


async def test_the_event_chat_and_its_switch() -> None:
    director, _ = await db(person)("director", is_staff=True)
    _, ann = await db(person)("ann")
    event = await db(make_event)(director, status="registration")
    path = f"/ws/events/{event.slug}/"
    async with opened(path, ann) as a, opened(path, None) as anon:
        assert (await a.next("chat_history"))["room"] == "event"
        assert (await anon.next("chat_history"))["writable"] is False
        await a.send({"type": "chat", "text": "hello all", "client_id": "1"})  # room: the event's
        for socket in (a, anon):
            frame = await socket.next("chat")
            assert (frame["room"], frame["message"]["text"]) == ("event", "hello all")
        room = event_room_key(event.pk)
        await db(services.chat_room_set_enabled)(room=room, user=director, enabled=False)
        for socket in (a, anon):
            assert await socket.next("chat_switch") == {
                "type": "chat_switch",
                "room": "event",
                "enabled": False,
            }
        await a.send({"type": "chat", "room": "event", "text": "still here?", "client_id": "2"})
        error = await a.next("error")
        assert (error["error"], error["client_id"]) == ("chat_off", "2")
        await anon.send({"type": "sync"})
        assert (await anon.next("event"))["what"] == "sync"
        assert await a.quiet()


async def test_a_spectator_who_takes_a_seat_leaves_the_rail(world: dict[str, Any]) -> None:
    ann, cid = world["people"]["ann"], world["people"]["cid"]
    waiting = await db(games_services.table_create)(creator=ann[0], ruleset="standard", seats=3)
    async with opened(f"/ws/tables/{waiting.pk}/", cid[1]) as c:
        assert set(await histories(c, 2)) == {"players", "spectators"}
        await db(games_services.table_join)(table_id=waiting.pk, user=cid[0])
        assert await c.next("chat_left") == {"type": "chat_left", "room": "spectators"}
        await c.send({"type": "chat", "room": "players", "text": "I'm in", "client_id": "1"})
        frame = await c.next("chat")
        assert (frame["room"], frame["message"]["text"]) == ("players", "I'm in")
        assert await c.quiet()
