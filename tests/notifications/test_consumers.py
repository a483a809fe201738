"""The user's socket ``/ws/me/`` through the whole ASGI application: the unread count on
connect, each new notice pushed once its change commits, the count again once notices are
read (every socket of the user), ``sync``, and visitors refused.

Runs on the in-memory channel layer; every expected frame is awaited and counted, so a
missing or extra frame fails the test rather than a timer.
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
from django.db import transaction
from django.test import Client
from rest_framework.authtoken.models import Token

from accounts.models import User
from config import push as config_push
from config.asgi import application
from notifications.consumers import CLOSE_NOT_SIGNED_IN
from notifications.models import Kind
from notifications.services import notifications_mark_read, notify
from tests.accounts.factories import UserFactory

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
    yield
    await database_sync_to_async(databases.close_all)()


@pytest.fixture(autouse=True)
def _no_emails(monkeypatch: pytest.MonkeyPatch) -> None:
    """The email task is not what these tests are about: nothing is sent to a broker."""
    monkeypatch.setattr("notifications.queue.send", lambda name, args: None)


def cookie(user: User) -> list[tuple[bytes, bytes]]:
    client = Client()
    client.force_login(user)
    session = client.cookies[django_settings.SESSION_COOKIE_NAME].value
    return [(b"cookie", f"{django_settings.SESSION_COOKIE_NAME}={session}".encode())]


@asynccontextmanager
async def me(path: str = "/ws/me/", headers: Any = None) -> AsyncIterator[WebsocketCommunicator]:
    communicator = WebsocketCommunicator(application, path, headers=headers or [])
    try:
        connected, code = await communicator.connect(timeout=TIMEOUT)
        assert connected, f"refused with {code}"
        yield communicator
    finally:
        with suppress(Exception, asyncio.CancelledError):
            await communicator.disconnect(timeout=TIMEOUT)


@database_sync_to_async
def ready(user: User, n: int, rolled_back: bool = False) -> None:
    with suppress(RuntimeError), transaction.atomic():
        notify(
            user=user,
            kind=Kind.TABLE_READY,
            text=f"Table {n} is ready",
            link=f"/tables/{n}/",
            key=f"table:{n}",
        )
        if rolled_back:
            raise RuntimeError("rolled back")


async def test_the_count_on_connect_then_each_new_notice() -> None:
    ann = await database_sync_to_async(UserFactory)(username="ann")
    bob = await database_sync_to_async(UserFactory)(username="bob")
    await ready(ann, 1)
    async with me(headers=await database_sync_to_async(cookie)(ann)) as socket:
        assert await socket.receive_json_from(TIMEOUT) == {"type": "unread", "unread": 1}
        await ready(ann, 2, rolled_back=True)  # never told
        await ready(bob, 3)  # someone else's
        await ready(ann, 4)
        frame = await socket.receive_json_from(TIMEOUT)
        assert frame["type"] == "notification" and frame["unread"] == 2
        notice = frame["notification"]
        assert (notice["kind"], notice["text"], notice["link"]) == (
            "table_ready",
            "Table 4 is ready",
            "/tables/4/",
        )
        assert notice["read_at"] is None
        await ready(ann, 4)  # the same key again: nothing
        assert await socket.receive_nothing(0.2)


async def test_reading_sends_the_count_to_every_socket_of_the_user() -> None:
    ann = await database_sync_to_async(UserFactory)(username="ann")
    token = (await database_sync_to_async(Token.objects.create)(user=ann)).key
    await ready(ann, 1)
    await ready(ann, 2)
    async with (
        me(headers=await database_sync_to_async(cookie)(ann)) as one,
        me(f"/ws/me/?token={token}") as two,
    ):
        for socket in (one, two):
            assert await socket.receive_json_from(TIMEOUT) == {"type": "unread", "unread": 2}
        await database_sync_to_async(notifications_mark_read)(user=ann)
        for socket in (one, two):
            assert await socket.receive_json_from(TIMEOUT) == {"type": "unread", "unread": 0}
        await one.send_json_to({"type": "sync"})
        assert await one.receive_json_from(TIMEOUT) == {"type": "unread", "unread": 0}
        await one.send_json_to({"type": "hello"})
        error = await one.receive_json_from(TIMEOUT)
        assert (error["type"], error["error"]) == ("error", "bad_request")
        await one.send_to(text_data="not json")
        assert (await one.receive_json_from(TIMEOUT))["error"] == "bad_request"
        assert await two.receive_nothing(0.2)


async def test_a_visitor_is_refused() -> None:
    communicator = WebsocketCommunicator(application, "/ws/me/")
    connected, code = await communicator.connect(timeout=TIMEOUT)
    assert not connected and code == CLOSE_NOT_SIGNED_IN


async def test_a_wrong_token_is_refused() -> None:
    communicator = WebsocketCommunicator(application, "/ws/me/?token=nope")
    connected, _ = await communicator.connect(timeout=TIMEOUT)
    assert not connected
