"""WebSocket routes of the tournaments app, gathered by config/routing.py."""

from django.urls import URLPattern, path

from tournaments.consumers import EventConsumer

websocket_urlpatterns: list[URLPattern] = [
    path("ws/events/<slug:slug>/", EventConsumer.as_asgi()),
]
