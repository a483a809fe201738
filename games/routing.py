"""WebSocket routes of the games app, gathered by config/routing.py."""

from django.urls import URLPattern, path

from games.consumers import TableConsumer

websocket_urlpatterns: list[URLPattern] = [
    path("ws/tables/<int:table_id>/", TableConsumer.as_asgi()),
]
