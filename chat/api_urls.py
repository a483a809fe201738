"""The chat REST API, under /api/chat/ (docs/chat.md)."""

from django.urls import path

import chat.apis as apis

urlpatterns = [
    path("rooms/<str:room>/", apis.ChatRoomApi.as_view(), name="api-chat-room"),
    path(
        "rooms/<str:room>/messages/",
        apis.ChatRoomMessagesApi.as_view(),
        name="api-chat-messages",
    ),
    path("messages/<int:message_id>/", apis.ChatMessageApi.as_view(), name="api-chat-message"),
    path("mutes/", apis.ChatMutesApi.as_view(), name="api-chat-mutes"),
    path("mutes/<str:username>/", apis.ChatMuteApi.as_view(), name="api-chat-mute"),
]
