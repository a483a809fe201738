"""ASGI entry point: HTTP through Django, WebSocket through Channels.

In embedded mode this is also where the Celery worker and beat start: Django is fully set up by
then, which `AppConfig.ready` cannot promise (the worker imports task modules while booting).
"""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
# Set Django up before importing anything that touches models (Channels' auth does).
django_asgi_app = get_asgi_application()

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402
from django.conf import settings  # noqa: E402

from config.celery import app as celery_app  # noqa: E402
from config.embedded import start_worker  # noqa: E402
from config.push import ServerLoopMiddleware  # noqa: E402
from config.routing import websocket_urlpatterns  # noqa: E402

application = ServerLoopMiddleware(
    ProtocolTypeRouter(
        {
            "http": django_asgi_app,
            "websocket": AllowedHostsOriginValidator(
                AuthMiddlewareStack(URLRouter(websocket_urlpatterns))
            ),
        }
    )
)

if settings.CELERY_WORKER_EMBEDDED:
    embedded_worker = start_worker(celery_app, concurrency=settings.CELERY_EMBEDDED_CONCURRENCY)
