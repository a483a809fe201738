"""config.restart.OpenSockets: the count a restart waits on (the SIGTERM itself, with daphne,
is tests/processes/test_restart.py)."""

from channels.generic.websocket import AsyncWebsocketConsumer
from channels.testing import WebsocketCommunicator

from config.restart import OpenSockets


class Echo(AsyncWebsocketConsumer):
    async def connect(self) -> None:
        await self.accept()


async def test_a_socket_counts_from_accept_until_disconnect() -> None:
    sockets = OpenSockets(Echo.as_asgi())
    communicator = WebsocketCommunicator(sockets, "/ws/")
    connected, _ = await communicator.connect()
    assert connected
    assert len(sockets.open) == 1
    sockets.drain()
    assert not await sockets.closed(0.05), "still open"
    await communicator.disconnect(code=1012)
    assert await sockets.closed(1)
    assert not sockets.open


async def test_draining_with_nothing_open_is_done_at_once() -> None:
    sockets = OpenSockets(Echo.as_asgi())
    sockets.drain()
    assert await sockets.closed(0)


async def test_while_draining_a_handshake_is_refused() -> None:
    sockets = OpenSockets(Echo.as_asgi())
    sockets.drain()
    communicator = WebsocketCommunicator(sockets, "/ws/")
    connected, _ = await communicator.connect()
    assert not connected
    assert not sockets.open
