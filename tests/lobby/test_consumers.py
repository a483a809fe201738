"""The lobby socket ``/ws/lobby/`` through the whole ASGI application: pools' counts, the
player's own place and ``matched``, and the table list's changes pushed by games.

On the in-memory channel layer; frames are awaited with ``receive_json_from`` (no sleeps).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.db import connections as databases
from prometheus_client import REGISTRY

from config import push as config_push
from games import services as table_services
from lobby import services
from lobby.models import LobbyPresence
from tests.games.test_consumers import Person, Socket, headers, opened, person, refused

pytestmark = pytest.mark.django_db(transaction=True)

TWO = {"ruleset": "standard", "seats": 2, "turn_seconds": 30}


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


@pytest.fixture
def ann() -> Person:
    return person("ann")


@pytest.fixture
def bob() -> Person:
    return person("bob")


async def until(socket: Socket, kind: str) -> list[dict[str, Any]]:
    """Frames up to and including the first of type ``kind``."""
    frames = [await socket.next()]
    while frames[-1]["type"] != kind:
        frames.append(await socket.next())
    return frames


async def hello(socket: Socket) -> tuple[dict[str, Any], dict[str, Any]]:
    pools, me = await socket.next(), await socket.next()
    assert pools["type"] == "pools" and me["type"] == "me"
    return pools, me


def waiting_in(pools: dict[str, Any], key: str) -> int:
    return next(p["waiting"] for p in pools["pools"] if p["key"] == key)


join = database_sync_to_async(services.pool_join)
create = database_sync_to_async(table_services.table_create)


async def test_anyone_hears_the_pools_and_their_place_on_connect() -> None:
    async with opened("/ws/lobby/") as socket:
        pools, me = await hello(socket)
        assert {p["key"] for p in pools["pools"]} >= {"standard-2-30", "standard-4-30"}
        assert me["me"]["status"] == "none"
        assert await socket.quiet()


async def test_counts_are_pushed_and_both_matched_players_hear_matched(
    ann: Person, bob: Person
) -> None:
    async with (
        opened("/ws/lobby/", headers(ann)) as ann_socket,
        opened(f"/ws/lobby/?token={bob.token}") as bob_socket,
        opened("/ws/lobby/") as watcher,
    ):
        for socket in (ann_socket, bob_socket, watcher):
            await hello(socket)
        await join(user=ann.user, **TWO)
        pools = (await until(watcher, "pools"))[-1]
        assert waiting_in(pools, "standard-2-30") == 1
        mine = await until(ann_socket, "me")
        assert mine[-1]["me"]["status"] == "waiting"
        answer = await join(user=bob.user, **TWO)
        for socket in (ann_socket, bob_socket):
            matched = (await until(socket, "matched"))[-1]
            assert matched == {
                "type": "matched",
                "table": answer["table"],
                "url": f"/tables/{answer['table']}/",
            }
        frames = await until(watcher, "pools")
        listed = [f["table"] for f in frames if f["type"] == "table"]
        assert listed and listed[-1]["id"] == answer["table"]
        assert listed[-1]["status"] == "playing" and listed[-1]["players"] == ["ann", "bob"]
        assert waiting_in(frames[-1], "standard-2-30") == 0
        assert not [f for f in frames if f["type"] == "matched"]  # not the watcher's


async def test_table_list_changes_are_pushed(ann: Person, bob: Person) -> None:
    async with opened("/ws/lobby/") as watcher:
        await hello(watcher)
        table = await create(creator=ann.user, ruleset="standard", seats=3)
        created = await watcher.next()
        assert created["type"] == "table"
        assert created["table"]["id"] == table.pk and created["table"]["status"] == "waiting"
        assert created["table"]["players"] == ["ann"] and created["table"]["seats"] == 3
        await database_sync_to_async(table_services.table_join)(table_id=table.pk, user=bob.user)
        joined = await watcher.next()
        assert joined["table"]["players"] == ["ann", "bob"]
        leave = database_sync_to_async(table_services.table_leave)
        await leave(table_id=table.pk, user=bob.user)
        assert (await watcher.next())["table"]["players"] == ["ann"]
        await leave(table_id=table.pk, user=ann.user)
        assert (await watcher.next())["table"]["status"] == "aborted"
        assert await watcher.quiet()


async def test_lobby_sockets_are_counted_for_presence(ann: Person) -> None:
    count = database_sync_to_async(lambda: LobbyPresence.objects.get(user=ann.user).sockets)
    async with opened("/ws/lobby/", headers(ann)) as one:
        await hello(one)
        async with opened("/ws/lobby/", headers(ann)) as two:
            await hello(two)
            assert await count() == 2
        assert await count() == 1
    assert await count() == 0


async def test_sync_answers_and_other_messages_are_refused(ann: Person) -> None:
    async with opened("/ws/lobby/", headers(ann)) as socket:
        await hello(socket)
        await socket.send({"type": "sync"})
        await hello(socket)
        error = await socket.ask({"type": "join"})
        assert error["type"] == "error" and error["error"] == "bad_request"
        await socket.communicator.send_to(text_data="not json")
        assert (await socket.next())["error"] == "bad_request"


async def test_a_bad_token_is_refused() -> None:
    assert await refused("/ws/lobby/?token=nope") != 0


def open_sockets() -> float:
    return REGISTRY.get_sample_value("rummy_open_sockets", {"consumer": "LobbyConsumer"}) or 0.0


async def test_open_sockets_are_counted_until_they_close() -> None:
    before = open_sockets()
    async with opened("/ws/lobby/") as socket:
        await hello(socket)
        assert open_sockets() == before + 1
    assert open_sockets() == before
