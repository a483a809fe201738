"""The event socket ``/ws/events/<slug>/`` through the whole ASGI application: a watcher gets an
``event`` frame for each change once it commits (never for one rolled back), a reconnecting
client asks for ``sync``, and a draft is watched by its organizers only.

Runs on the in-memory channel layer; every expected frame is awaited and counted, so a missing
or extra frame fails the test rather than a timer.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, suppress
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.conf import settings as django_settings
from django.db import connections as databases
from django.test import Client

from accounts.models import User
from config import push as config_push
from config.asgi import application
from config.ws_limit import (
    CLOSE_POLICY,
    CLOSE_TOO_BIG,
    FLOOD_FACTOR,
    MAX_FRAME_BYTES,
    RateLimitedConsumer,
)
from tests.accounts.factories import UserFactory
from tests.tournaments.factories import make_event
from tournaments.consumers import CLOSE_NOT_FOUND
from tournaments.entries import entry_register
from tournaments.errors import EventError
from tournaments.models import Tournament
from tournaments.services import event_start

pytestmark = pytest.mark.django_db(transaction=True)

TIMEOUT = 10  # seconds a frame may take; generous for a loaded CI machine, never reached


@pytest.fixture(autouse=True)
def _layer(settings: Any) -> Iterator[None]:
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    config_push.set_server_loop(None)
    yield
    config_push.set_server_loop(None)


@pytest.fixture(autouse=True)
async def _close_worker_connections() -> AsyncIterator[None]:
    """Close the connection of the thread the consumers' queries ran in (see tests/games)."""
    yield
    await database_sync_to_async(databases.close_all)()


def cookie(user: User) -> list[tuple[bytes, bytes]]:
    client = Client()
    client.force_login(user)
    session = client.cookies[django_settings.SESSION_COOKIE_NAME].value
    return [(b"cookie", f"{django_settings.SESSION_COOKIE_NAME}={session}".encode())]


@asynccontextmanager
async def watching(slug: str, hdrs: list[tuple[bytes, bytes]] | None = None) -> Any:
    communicator = WebsocketCommunicator(application, f"/ws/events/{slug}/", headers=hdrs or [])
    try:
        connected, code = await communicator.connect(timeout=TIMEOUT)
        assert connected, f"refused with {code}"
        yield communicator
    except BaseException:
        with suppress(Exception, asyncio.CancelledError):
            await communicator.disconnect(timeout=TIMEOUT)
        raise
    await communicator.disconnect(timeout=TIMEOUT)


async def refused(slug: str, hdrs: list[tuple[bytes, bytes]] | None = None) -> int:
    communicator = WebsocketCommunicator(application, f"/ws/events/{slug}/", headers=hdrs or [])
    connected, code = await communicator.connect(timeout=TIMEOUT)
    assert not connected
    await communicator.disconnect(timeout=TIMEOUT)
    return int(code)


async def frame(communicator: WebsocketCommunicator) -> tuple[str, str, int | None]:
    got = await communicator.receive_json_from(timeout=TIMEOUT)
    assert got["type"] == "event", got
    return got["what"], got["status"], got["round"]


@database_sync_to_async
def director() -> User:
    return UserFactory(username="director", is_staff=True)


async def test_a_watcher_hears_of_a_registration_once_it_commits() -> None:
    boss = await director()
    event = await database_sync_to_async(make_event)(boss, status="registration", max_players=1)
    ann, bob = await database_sync_to_async(lambda: (UserFactory(), UserFactory()))()
    async with watching(event.slug) as watcher:
        assert await watcher.receive_nothing()
        await database_sync_to_async(entry_register)(event_id=event.pk, user=ann)
        assert await frame(watcher) == ("entries", "registration", None)
        with pytest.raises(EventError):  # full: rolled back, so nothing is sent
            await database_sync_to_async(entry_register)(event_id=event.pk, user=bob)
        assert await watcher.receive_nothing()


async def test_the_start_is_told_with_the_status_and_the_round() -> None:
    boss = await director()
    event = await database_sync_to_async(make_event)(
        boss, status="check_in", players=["ann", "bob", "cid", "dan"]
    )
    async with watching(event.slug) as watcher:
        await database_sync_to_async(event_start)(event_id=event.pk, actor=boss)
        # The audit of the start, then the round it planned; each frame reads the event fresh.
        assert [await frame(watcher) for _ in range(2)] == [
            ("start", "running", 1),
            ("round", "running", 1),
        ]
        assert await watcher.receive_nothing()


async def test_sync_answers_at_once_and_anything_else_is_refused() -> None:
    event = await database_sync_to_async(make_event)(await director(), status="registration")
    async with watching(event.slug) as watcher:
        await watcher.send_json_to({"type": "sync"})
        assert await frame(watcher) == ("sync", "registration", None)
        await watcher.send_json_to({"type": "dance"})
        assert (await watcher.receive_json_from(timeout=TIMEOUT))["error"] == "bad_request"
        await watcher.send_to(text_data="{not json")
        assert (await watcher.receive_json_from(timeout=TIMEOUT))["error"] == "bad_request"


async def test_unknown_events_and_drafts_are_refused_but_to_organizers() -> None:
    boss = await director()
    draft: Tournament = await database_sync_to_async(make_event)(boss)
    player = await database_sync_to_async(UserFactory)()
    assert await refused("no-such-event") == CLOSE_NOT_FOUND
    assert await refused(draft.slug) == CLOSE_NOT_FOUND
    assert await refused(draft.slug, await database_sync_to_async(cookie)(player)) == (
        CLOSE_NOT_FOUND
    )
    async with watching(draft.slug, await database_sync_to_async(cookie)(boss)) as watcher:
        await watcher.send_json_to({"type": "sync"})
        assert await frame(watcher) == ("sync", "draft", None)


async def test_a_flood_of_syncs_is_refused_then_closed(
    settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The event socket's frames are rate limited as the table socket's (config.ws_limit)."""
    settings.WS_RATE_BURST, settings.WS_RATE_PER_SECOND = 3, 1.0
    monkeypatch.setattr(RateLimitedConsumer, "clock", lambda: 0.0)  # time stands still
    event = await database_sync_to_async(make_event)(await director(), status="registration")
    async with watching(event.slug) as watcher:
        for _ in range(3):
            await watcher.send_json_to({"type": "sync"})
            assert await frame(watcher) == ("sync", "registration", None)
        for n in range(FLOOD_FACTOR * 3):
            await watcher.send_json_to({"type": "sync", "client_id": f"s{n}"})
            refused = await watcher.receive_json_from(timeout=TIMEOUT)
            assert (refused["error"], refused["client_id"]) == ("rate_limited", f"s{n}")
            assert refused["retry_after"] == 1.0
        closed = await watcher.receive_output(timeout=TIMEOUT)
        assert closed == {"type": "websocket.close", "code": CLOSE_POLICY}
        await watcher.send_json_to({"type": "sync"})
        assert await watcher.receive_nothing()  # dropped unread


async def test_a_huge_frame_is_refused_and_the_socket_closed() -> None:
    event = await database_sync_to_async(make_event)(await director(), status="registration")
    async with watching(event.slug) as watcher:
        await watcher.send_json_to({"type": "sync", "pad": "x" * MAX_FRAME_BYTES})
        error = await watcher.receive_json_from(timeout=TIMEOUT)
        assert (error["type"], error["error"], error["client_id"]) == ("error", "bad_request", None)
        closed = await watcher.receive_output(timeout=TIMEOUT)
        assert closed == {"type": "websocket.close", "code": CLOSE_TOO_BIG}
