"""Quick play's REST API (PROTOCOL.md "Additions: finding a game"): thin views over
``lobby.services`` and ``lobby.selectors``. The pools are open to anyone; the rest needs a login.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.auth import signed_in
from config.exceptions import ErrorOutput
from config.payloads import serializer_for
from lobby import payloads, services
from lobby.selectors import pool_counts, pool_me

PoolOutput = serializer_for(payloads.PoolOutput)
PoolMeOutput = serializer_for(payloads.PoolMeOutput)


class PoolJoinInput(serializers.Serializer):
    # Any JSON, checked by the service against the pools offered, so a wrong type is refused
    # with the same ``not_offered`` and its list as a pool that does not exist.
    ruleset = serializers.JSONField(help_text="A preset's slug, e.g. standard")
    seats = serializers.JSONField(help_text="2 to 8, as the pool offers")  # type: ignore[arg-type]
    turn_seconds = serializers.JSONField(help_text="The pool's turn clock in seconds")  # type: ignore[arg-type]


_ERRORS = {
    400: OpenApiResponse(ErrorOutput, description="bad_request, not_offered"),
    401: OpenApiResponse(ErrorOutput, description="not_authenticated"),
}


class PoolListApi(APIView):
    permission_classes = [AllowAny]

    @extend_schema(operation_id="pools_list", responses={200: PoolOutput(many=True)})
    def get(self, request: Request) -> Response:
        return Response(pool_counts())


class PoolJoinApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="pools_join",
        request=PoolJoinInput,
        responses={
            200: OpenApiResponse(PoolMeOutput, description="matched: this join made a table"),
            202: OpenApiResponse(PoolMeOutput, description="waiting"),
            **_ERRORS,
            409: OpenApiResponse(ErrorOutput, description="already_seated (with its table)"),
        },
    )
    def post(self, request: Request) -> Response:
        data = PoolJoinInput(data=request.data)
        data.is_valid(raise_exception=True)
        body: dict[str, Any] = dict(data.validated_data)
        answer = services.pool_join(user=signed_in(request), **body)
        return Response(answer, status=200 if answer["status"] == "matched" else 202)

    @extend_schema(
        operation_id="pools_leave",
        responses={
            200: OpenApiResponse(PoolMeOutput, description="matched: the match came first"),
            204: OpenApiResponse(description="left (or was not waiting)"),
            401: _ERRORS[401],
        },
    )
    def delete(self, request: Request) -> Response:
        answer = services.pool_leave(user=signed_in(request))
        if answer["status"] == "matched":
            return Response(answer)
        return Response(status=204)


class PoolMeApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(operation_id="pools_me", responses={200: PoolMeOutput, 401: _ERRORS[401]})
    def get(self, request: Request) -> Response:
        return Response(pool_me(signed_in(request)))
