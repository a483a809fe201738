"""The chat REST API under /api/chat/: thin views that parse, call one service and serialize.

Reading a room is open to whoever its owner lets read it (a visitor too, for public rooms);
everything else needs a login. A room is named by its key (``table:12:players``, ``event:34``).
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.auth import signed_in
from chat import payloads, services
from chat.access import room_access
from chat.errors import forbidden
from chat.selectors import chat_mutes, chat_room, message_output
from config.exceptions import ErrorOutput
from config.payloads import serializer_for

ChatMessageOutput = serializer_for(payloads.ChatMessageOutput)
ChatRoomOutput = serializer_for(payloads.ChatRoomOutput)
ChatSwitchOutput = serializer_for(payloads.ChatSwitchOutput)
ChatMutesOutput = serializer_for(payloads.ChatMutesOutput)


class ChatPostInput(serializers.Serializer):
    text = serializers.JSONField(help_text="1 to 300 characters of plain text, one line")


class ChatSwitchInput(serializers.Serializer):
    enabled = serializers.BooleanField()


class ChatMuteInput(serializers.Serializer):
    user = serializers.CharField(max_length=150, help_text="The username to mute")


def _errors(**more: str) -> dict[int, OpenApiResponse]:
    found = {
        400: "bad_request",
        401: "not_authenticated",
        403: "forbidden",
        404: "not_found",
        **{int(k[1:]): v for k, v in more.items()},
    }
    return {code: OpenApiResponse(ErrorOutput, description=text) for code, text in found.items()}


def _reader(request: Request) -> Any:
    return request.user if request.user.is_authenticated else None


class ChatRoomMessagesApi(APIView):
    def get_permissions(self) -> list[Any]:
        return [AllowAny()] if self.request.method == "GET" else [IsAuthenticated()]

    @extend_schema(
        operation_id="chat_history",
        responses={200: ChatRoomOutput, **_errors()},
        description="The room's last 50 messages for this reader (muted authors left out).",
    )
    def get(self, request: Request, room: str) -> Response:
        reader = _reader(request)
        access = room_access(room, reader)
        if not access.read:
            raise forbidden(access.read_refusal)
        return Response(chat_room(room, reader, access))

    @extend_schema(
        operation_id="chat_post",
        request=ChatPostInput,
        responses={
            201: ChatMessageOutput,
            **_errors(
                e400="bad_request, chat_bad_text",
                e403="forbidden, chat_off, chat_login_required",
                e429="chat_rate_limited, with retry_after (seconds)",
            ),
        },
    )
    def post(self, request: Request, room: str) -> Response:
        data = ChatPostInput(data=request.data)
        data.is_valid(raise_exception=True)
        user = signed_in(request)
        message = services.chat_post(room=room, author=user, text=data.validated_data["text"])
        return Response(message_output(message, user.username), status=status.HTTP_201_CREATED)


class ChatRoomApi(APIView):
    @extend_schema(
        operation_id="chat_room_switch",
        request=ChatSwitchInput,
        responses={200: ChatSwitchOutput, **_errors()},
        description="Turn the room's chat off or on (its moderators).",
    )
    def put(self, request: Request, room: str) -> Response:
        data = ChatSwitchInput(data=request.data)
        data.is_valid(raise_exception=True)
        enabled = data.validated_data["enabled"]
        services.chat_room_set_enabled(room=room, user=signed_in(request), enabled=enabled)
        return Response({"room": room, "enabled": enabled})


class ChatMessageApi(APIView):
    @extend_schema(
        operation_id="chat_delete",
        responses={204: None, **_errors()},
        description="Delete a message (the room's moderators): its readers get chat_deleted.",
    )
    def delete(self, request: Request, message_id: int) -> Response:
        services.chat_delete(message_id=message_id, user=signed_in(request))
        return Response(status=status.HTTP_204_NO_CONTENT)


class ChatMutesApi(APIView):
    @extend_schema(operation_id="chat_mutes", responses={200: ChatMutesOutput, **_errors()})
    def get(self, request: Request) -> Response:
        return Response(chat_mutes(signed_in(request)))

    @extend_schema(
        operation_id="chat_mute",
        request=ChatMuteInput,
        responses={200: ChatMutesOutput, **_errors()},
        description="Stop receiving this user's messages, in every room (history and live).",
    )
    def post(self, request: Request) -> Response:
        data = ChatMuteInput(data=request.data)
        data.is_valid(raise_exception=True)
        user = signed_in(request)
        services.chat_mute(user=user, username=data.validated_data["user"])
        return Response(chat_mutes(user))


class ChatMuteApi(APIView):
    @extend_schema(operation_id="chat_unmute", responses={200: ChatMutesOutput, **_errors()})
    def delete(self, request: Request, username: str) -> Response:
        user = signed_in(request)
        services.chat_unmute(user=user, username=username)
        return Response(chat_mutes(user))
