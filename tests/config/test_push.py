"""`config.push.group_send`: a push from a worker thread reaches sockets on the server loop."""

import asyncio
import threading
from collections.abc import Iterator
from typing import Any
from unittest import mock

import pytest
from channels.layers import InMemoryChannelLayer, get_channel_layer

from config import push


@pytest.fixture
def in_memory_layer(settings: Any) -> None:
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}


@pytest.fixture
def server_loop() -> Iterator[asyncio.AbstractEventLoop]:
    """An event loop running in its own thread, as the ASGI server's does."""
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    push.set_server_loop(loop)
    yield loop
    push.set_server_loop(None)
    loop.call_soon_threadsafe(loop.stop)
    thread.join(timeout=5)
    loop.close()


def on_loop(loop: asyncio.AbstractEventLoop, coro: Any) -> Any:
    return asyncio.run_coroutine_threadsafe(coro, loop).result(timeout=5)


@pytest.mark.usefixtures("in_memory_layer")
def test_push_from_another_thread_reaches_the_server_loop(
    server_loop: asyncio.AbstractEventLoop,
) -> None:
    layer = get_channel_layer()
    channel = on_loop(server_loop, layer.new_channel())
    on_loop(server_loop, layer.group_add("table-1", channel))
    # A waiting receive, like a connected socket's consumer, parked on the server loop.
    received = asyncio.run_coroutine_threadsafe(layer.receive(channel), server_loop)

    worker = threading.Thread(target=push.group_send, args=("table-1", {"type": "state.push"}))
    worker.start()
    worker.join(timeout=5)

    assert received.result(timeout=5) == {"type": "state.push"}


@pytest.mark.usefixtures("in_memory_layer")
def test_server_loop_is_recorded_by_the_asgi_wrapper() -> None:
    seen: list[asyncio.AbstractEventLoop] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        seen.append(asyncio.get_running_loop())

    async def call() -> asyncio.AbstractEventLoop:
        await push.ServerLoopMiddleware(app)({"type": "http"}, None, None)
        return asyncio.get_running_loop()

    push.set_server_loop(None)
    try:
        loop = asyncio.run(call())
        assert push._server_loop is loop
        assert seen == [loop]
    finally:
        push.set_server_loop(None)


def test_push_without_a_server_loop_uses_the_configured_layer() -> None:
    """A separate worker process (full mode) has no server loop; the push still arrives."""
    layer = get_channel_layer()

    async def listen_then_push() -> dict[str, Any]:
        channel = await layer.new_channel()
        await layer.group_add("table-2", channel)
        try:
            await asyncio.get_running_loop().run_in_executor(
                None, push.group_send, "table-2", {"type": "state.push"}
            )
            return await asyncio.wait_for(layer.receive(channel), 5)
        finally:
            await layer.group_discard("table-2", channel)

    assert asyncio.run(listen_then_push()) == {"type": "state.push"}


class RecordingLayer:
    """A channel layer that is not the in-memory one, noting the loop each send ran on."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, dict[str, Any], asyncio.AbstractEventLoop]] = []

    async def group_send(self, group: str, message: dict[str, Any]) -> None:
        self.sent.append((group, message, asyncio.get_running_loop()))


def test_without_a_server_loop_pushes_share_one_loop_of_the_process() -> None:
    """A Celery worker pushes on a loop it keeps, so the Redis layer connects once, and goes on
    without waiting for them to be sent; they are sent in the order handed over."""
    layer = RecordingLayer()
    with mock.patch.object(push, "get_channel_layer", return_value=layer):
        push.group_send_many([("a", {"n": 1}), ("b", {"n": 2})])
        thread = threading.Thread(target=push.group_send, args=("c", {"n": 3}))
        thread.start()
        thread.join(timeout=5)
        push.drain()  # handed over without waiting: wait here
    assert [(g, m) for g, m, _ in layer.sent] == [("a", {"n": 1}), ("b", {"n": 2}), ("c", {"n": 3})]
    loops = {loop for _, _, loop in layer.sent}
    assert len(loops) == 1 and next(iter(loops)).is_running()


def test_a_forked_child_starts_its_own_push_loop() -> None:
    layer = RecordingLayer()
    with mock.patch.object(push, "get_channel_layer", return_value=layer):
        push.group_send("a", {"n": 1})
        push.drain()
        parent = push._own
        push._forget_push_loop()  # what os.register_at_fork runs in the child
        push.group_send("b", {"n": 2})
        push.drain()
    assert parent is not None and push._own is not None and push._own[0] is not parent[0]
    assert layer.sent[0][2] is parent[0] and layer.sent[1][2] is push._own[0]


def test_a_push_that_fails_does_not_stop_the_ones_after_it() -> None:
    class Flaky(RecordingLayer):
        async def group_send(self, group: str, message: dict[str, Any]) -> None:
            if group == "bad":
                raise ConnectionError("redis went away")
            await super().group_send(group, message)

    layer = Flaky()
    with mock.patch.object(push, "get_channel_layer", return_value=layer):
        push.group_send_many([("a", {"n": 1}), ("bad", {"n": 2}), ("c", {"n": 3})])
        push.drain()
    assert [g for g, _, _ in layer.sent] == ["a", "c"]


def test_the_in_memory_layer_skips_a_push_nobody_in_the_process_listens_to() -> None:
    """A management command (``simulate_event``) pushes every action; with nobody listening in
    the process, nothing is made to send them (no thread, no loop), and a group with a member
    is still sent to."""
    layer = InMemoryChannelLayer()
    with (
        mock.patch.object(push, "get_channel_layer", return_value=layer),
        mock.patch.object(push, "async_to_sync", side_effect=AssertionError("sent")),
    ):
        push.group_send_many([("table-1", {"type": "table.frames"})])
    channel = asyncio.run(listener(layer, "table-2"))
    with mock.patch.object(push, "get_channel_layer", return_value=layer):
        push.group_send_many([("table-1", {"type": "a"}), ("table-2", {"type": "b"})])
    assert asyncio.run(layer.receive(channel)) == {"type": "b"}


async def listener(layer: InMemoryChannelLayer, group: str) -> str:
    channel = await layer.new_channel()
    await layer.group_add(group, channel)
    return channel
