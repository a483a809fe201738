"""Game over on the table socket: the ``rematch`` message answers the offer (the service of
``POST /api/tables/{id}/rematch/``), every page on the table sees each change, and the rating
changes arrive by themselves once the ratings hook has written them.

The sockets and people come from ``test_consumers`` (the in-memory layer, as there).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest
from channels.db import database_sync_to_async

from games import finalization, rematch
from games.models import Table
from tests.games.finished import finished_table
from tests.games.test_consumers import (  # noqa: F401  (the autouse fixtures: their layer)
    Person,
    Socket,
    _close_worker_connections,
    _layer,
    headers,
    opened,
    person,
    url,
)

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def ann() -> Person:
    return person("ann")


@pytest.fixture
def bob() -> Person:
    return person("bob")


@pytest.fixture
def done(ann: Person, bob: Person) -> Table:
    return finished_table([ann.user, bob.user])


async def until(socket: Socket, wanted: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
    """The first frame from now on that is ``wanted`` (pushes of a ``connected`` flag may come
    between); each is awaited with the suite's timeout."""
    for _ in range(10):
        frame = await socket.next()
        if wanted(frame):
            return frame
    raise AssertionError(f"no wanted frame among {socket.frames[-10:]}")


def offer(**wanted: Any) -> Callable[[dict[str, Any]], bool]:
    def matches(frame: dict[str, Any]) -> bool:
        got = frame.get("rematch")
        return got is not None and all(got[k] == v for k, v in wanted.items())

    return matches


async def test_both_accept_over_the_socket_and_every_page_is_sent_the_new_table(
    done: Table, ann: Person, bob: Person
) -> None:
    async with (
        opened(url(done), headers(ann)) as ann_socket,
        opened(url(done), headers(bob)) as bob_socket,
        opened(url(done)) as watcher,
    ):
        first = await watcher.next()
        assert first["status"] == "finished" and first["rematch"] is None
        assert first["ratings"] is None  # the hook has not run in this test
        await ann_socket.send({"type": "rematch", "accept": True, "client_id": "r-1"})
        for socket in (ann_socket, bob_socket, watcher):
            frame = await until(socket, offer(accepted=["ann"], status="open"))
            assert frame["version"] == first["version"]  # no game change: the same version
        await bob_socket.send({"type": "rematch", "accept": True})
        tables = set()
        for socket in (ann_socket, bob_socket, watcher):
            frame = await until(socket, offer(status="started"))
            tables.add(frame["rematch"]["table"])
        assert len(tables) == 1 and None not in tables
    new = await database_sync_to_async(Table.objects.get)(pk=tables.pop())
    assert new.status == Table.Status.PLAYING


async def test_a_refusal_goes_to_its_sender_alone(done: Table, ann: Person) -> None:
    cid = await database_sync_to_async(person)("cid")
    async with (
        opened(url(done), headers(ann)) as player,
        opened(url(done), headers(cid)) as watcher,
        opened(url(done)) as anonymous,
    ):
        await player.next()
        await watcher.next()
        await anonymous.next()
        error = await watcher.ask({"type": "rematch", "accept": True, "client_id": "w-1"})
        assert (error["type"], error["error"], error["client_id"]) == ("error", "not_seated", "w-1")
        error = await anonymous.ask({"type": "rematch", "accept": True})
        assert (error["error"], error["client_id"]) == ("not_seated", None)
        assert await player.quiet() and await watcher.quiet() and await anonymous.quiet()
    assert not await database_sync_to_async(rematch.Rematch.objects.exists)()


async def test_a_malformed_answer_and_one_after_a_decline(
    done: Table, ann: Person, bob: Person
) -> None:
    async with opened(url(done), headers(ann)) as socket:
        await socket.next()
        error = await socket.ask({"type": "rematch", "accept": "yes", "client_id": "m-1"})
        assert (error["type"], error["error"], error["client_id"]) == (
            "error",
            "bad_request",
            "m-1",
        )
        await database_sync_to_async(rematch.table_rematch)(
            table_id=done.pk, user=bob.user, accept=False
        )
        frame = await until(socket, offer(status="declined"))
        assert frame["rematch"]["declined"] == ["bob"]
        error = await socket.ask({"type": "rematch", "accept": True, "client_id": "m-2"})
        assert (error["error"], error["client_id"]) == ("rematch_over", "m-2")


async def test_the_expiry_is_pushed_to_the_pages_open(
    done: Table, ann: Person, settings: Any
) -> None:
    settings.REMATCH_SECONDS = 0.3
    async with opened(url(done)) as watcher:
        await watcher.next()
        await database_sync_to_async(rematch.table_rematch)(
            table_id=done.pk, user=ann.user, accept=True
        )
        await until(watcher, offer(status="open"))
        await asyncio.sleep(0.4)
        # What the task sent at the offer's end runs (no worker runs in this test).
        assert await database_sync_to_async(rematch.rematch_expiry_push)(done.pk)
        frame = await until(watcher, offer(status="expired"))
        assert frame["rematch"]["accepted"] == ["ann"] and frame["rematch"]["table"] is None


async def test_the_rating_changes_arrive_once_the_hook_writes_them(
    done: Table, ann: Person
) -> None:
    async with opened(url(done), headers(ann)) as socket:
        assert (await socket.next())["ratings"] is None
        assert await database_sync_to_async(finalization.run_hook)(done.pk, "ratings")
        frame = await until(socket, lambda f: f.get("ratings") is not None)
        assert set(frame["ratings"]) == {"ann", "bob"}
        assert frame["ratings"]["ann"]["change"] == -frame["ratings"]["bob"]["change"]
