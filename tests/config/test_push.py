"""`config.push.group_send`: a push from a worker thread reaches sockets on the server loop."""

import asyncio
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from channels.layers import get_channel_layer

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
