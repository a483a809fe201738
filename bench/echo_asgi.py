"""The site plus a bare echo consumer at ``/ws/echo/``: the ASGI app bench/tables.py serves.

``uvicorn bench.echo_asgi:application`` serves all that ``config.asgi.application`` serves; a
WebSocket to ``/ws/echo/`` instead gets each message sent straight back. The echo goes through the
same server process, Channels consumer machinery and channel layer as a table's socket, but with
no database, engine or push, so the benchmark can set the site's own cost apart from the stack's.
It is never part of the production routing (config/routing.py).
"""

import sys
from typing import Any

if __name__ == "__main__":  # `make bench` runs every bench/*.py; this one is only served
    sys.exit(0)

from channels.generic.websocket import AsyncWebsocketConsumer

from config.asgi import application as site

ECHO_PATH = "/ws/echo/"


class EchoConsumer(AsyncWebsocketConsumer):
    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        await self.send(text_data=text_data, bytes_data=bytes_data)


echo = EchoConsumer.as_asgi()


async def application(scope: dict[str, Any], receive: Any, send: Any) -> None:
    if scope["type"] == "websocket" and scope["path"] == ECHO_PATH:
        await echo(scope, receive, send)
    else:
        await site(scope, receive, send)
