"""The notifications REST API, under /api/notifications/ (a signed-in user's own notices):
thin views that parse, call one service or selector, and answer its typed payload."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.auth import signed_in
from config.errors import BAD_REQUEST
from config.exceptions import ErrorOutput
from config.payloads import serializer_for
from notifications import payloads
from notifications.errors import NotificationError
from notifications.selectors import email_settings, notifications_page
from notifications.services import email_settings_update, notifications_mark_read

LIMIT_DEFAULT = 20
LIMIT_MAX = 100

ListOutput = serializer_for(payloads.NotificationListOutput)
ReadInput = serializer_for(payloads.ReadInput)
ReadOutput = serializer_for(payloads.ReadOutput)
SettingsOutput = serializer_for(payloads.SettingsOutput)
SettingsInput = serializer_for(payloads.SettingsInput)

_ERRORS = {
    400: OpenApiResponse(ErrorOutput, description="bad_request"),
    401: OpenApiResponse(ErrorOutput, description="not_authenticated"),
}


def whole(params: Any, name: str, default: int, low: int, high: int) -> int:
    """A whole-number query parameter from ``low`` to ``high``; absent or empty: ``default``.

    :raises NotificationError: ``bad_request`` for anything else.
    """
    raw = params.get(name)
    if raw in (None, ""):
        return default
    try:
        value = int(raw)
    except ValueError:
        raise NotificationError(BAD_REQUEST, f"{name}: must be a whole number") from None
    if not low <= value <= high:
        raise NotificationError(BAD_REQUEST, f"{name}: must be from {low} to {high}")
    return value


def body_object(request: Request) -> dict[str, Any]:
    """:raises NotificationError: ``bad_request`` unless the body is a JSON object."""
    if not isinstance(request.data, dict):
        raise NotificationError(BAD_REQUEST, "the body must be a JSON object")
    return request.data


class NotificationListApi(APIView):
    @extend_schema(
        operation_id="notifications_list",
        parameters=[
            OpenApiParameter(
                "limit", int, description=f"1 to {LIMIT_MAX}, default {LIMIT_DEFAULT}"
            ),
            OpenApiParameter("offset", int, description="Notices to skip, default 0"),
        ],
        responses={200: ListOutput, **_ERRORS},
    )
    def get(self, request: Request) -> Response:
        limit = whole(request.query_params, "limit", LIMIT_DEFAULT, 1, LIMIT_MAX)
        offset = whole(request.query_params, "offset", 0, 0, 10**9)
        return Response(notifications_page(signed_in(request), limit, offset))


class NotificationReadApi(APIView):
    @extend_schema(
        operation_id="notifications_read",
        request=ReadInput,
        responses={200: ReadOutput, **_ERRORS},
        description="Mark notices read: those of `ids` (ids not yours are passed over), or "
        "every one with `all` true. The new unread count also goes to your `/ws/me/` sockets.",
    )
    def post(self, request: Request) -> Response:
        body = body_object(request)
        if body.get("all") is True:
            ids = None
        elif "ids" in body:
            ids = body["ids"]
        else:
            raise NotificationError(BAD_REQUEST, "give ids (a list) or all: true")
        return Response(notifications_mark_read(user=signed_in(request), ids=ids))


class NotificationSettingsApi(APIView):
    @extend_schema(
        operation_id="notifications_settings", responses={200: SettingsOutput, **_ERRORS}
    )
    def get(self, request: Request) -> Response:
        answer: payloads.SettingsOutput = {"email": email_settings(signed_in(request))}
        return Response(answer)

    @extend_schema(
        operation_id="notifications_settings_update",
        request=SettingsInput,
        responses={200: SettingsOutput, **_ERRORS},
        description="Turn each kind's email on or off; kinds left out keep theirs.",
    )
    def put(self, request: Request) -> Response:
        email = body_object(request).get("email")
        updated = email_settings_update(user=signed_in(request), email=email)
        answer: payloads.SettingsOutput = {"email": updated}
        return Response(answer)
