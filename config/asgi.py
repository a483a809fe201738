"""ASGI entry point: HTTP through Django, WebSocket through Channels.

In embedded mode this is also where the Celery worker and beat start: Django is fully set up by
then, which `AppConfig.ready` cannot promise (the worker imports task modules while booting).
"""

import os

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
# Set Django up before importing anything that touches models (Channels' auth does), as
# django.core.asgi.get_asgi_application does; its handler is ours (config.error_pages.Handler),
# which answers the refusals Django makes before any middleware in JSON under /api/ too.
django.setup(set_prefix=False)

from config.error_pages import Handler  # noqa: E402

django_asgi_app = Handler()

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import WebsocketDenier  # noqa: E402
from django.conf import settings  # noqa: E402
from django.urls import re_path  # noqa: E402

from config.celery import app as celery_app  # noqa: E402
from config.embedded import start_worker, stop_with_server  # noqa: E402
from config.forwarded import ForwardedSocketMiddleware  # noqa: E402
from config.push import ServerLoopMiddleware  # noqa: E402
from config.restart import OpenSockets, stop_on_sigterm  # noqa: E402
from config.routing import websocket_urlpatterns  # noqa: E402
from config.ws_auth import OriginCheck, TokenAuthMiddlewareStack  # noqa: E402

# Any other path is refused at the handshake; without this the router raises instead.
websocket_routes = URLRouter([*websocket_urlpatterns, re_path(r"", WebsocketDenier.as_asgi())])

# Every socket this process holds, closed with 1012 on SIGTERM (config/restart.py). The
# client's address and scheme are decided first (behind a trusted proxy, config/forwarded.py),
# then the origin: a cross-site handshake is refused before any cookie is read.
open_sockets = OpenSockets(
    ForwardedSocketMiddleware(OriginCheck(TokenAuthMiddlewareStack(websocket_routes)))
)

application = ServerLoopMiddleware(
    ProtocolTypeRouter({"http": django_asgi_app, "websocket": open_sockets})
)
stop_on_sigterm(open_sockets, grace=settings.WS_CLOSE_GRACE_SECONDS)

if settings.CELERY_WORKER_EMBEDDED:
    embedded_worker = start_worker(celery_app, concurrency=settings.CELERY_EMBEDDED_CONCURRENCY)
    stop_with_server(embedded_worker)
