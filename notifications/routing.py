"""WebSocket routes of the notifications app, gathered by config/routing.py."""

from django.urls import URLPattern, path

from notifications.consumers import UserConsumer

websocket_urlpatterns: list[URLPattern] = [
    path("ws/me/", UserConsumer.as_asgi()),
]
