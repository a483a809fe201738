"""WebSocket routes of every app, gathered for config/asgi.py.

An app that serves sockets keeps its routes in its own `routing` module and adds them here, so
the ASGI module stays the only place that wires protocols together.
"""

from django.urls import URLPattern, URLResolver

from games.routing import websocket_urlpatterns as games_websocket_urlpatterns
from lobby.routing import websocket_urlpatterns as lobby_websocket_urlpatterns
from notifications.routing import websocket_urlpatterns as notifications_websocket_urlpatterns
from tournaments.routing import websocket_urlpatterns as tournaments_websocket_urlpatterns

websocket_urlpatterns: list[URLPattern | URLResolver] = [
    *games_websocket_urlpatterns,
    *tournaments_websocket_urlpatterns,
    *notifications_websocket_urlpatterns,
    *lobby_websocket_urlpatterns,
]
