"""The tables REST API (PROTOCOL.md): thin views that parse, call one service and serialize.

Reads are open to anyone (anyone may watch); writes need a login. Refusals use the protocol's
error codes: an action answers 200, 400 ``{"error", "message"}`` or 409 ``stale_version``.
"""

from __future__ import annotations

from typing import Any

from django.utils.decorators import method_decorator
from django.views.decorators.gzip import gzip_page
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    extend_schema_view,
)
from rest_framework import serializers, status
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.auth import signed_in
from config.exceptions import ErrorOutput
from config.payloads import serializer_for
from games import clock_services, payloads, rematch, services
from games.listing import table_filter, tables_listed
from games.models import RuleSet, Table
from games.selectors import (
    game_view,
    log_since,
    reader_of,
    seat_infos,
    table_answer,
    table_get,
    table_log,
    table_payload,
    table_replay,
)


class StaleVersionOutput(ErrorOutput):
    version = serializers.IntegerField()


# The answers' serializers, for the schema, from their one typed definition in games.payloads.
TableOutput = serializer_for(payloads.TableOutput)
ActionOutput = serializer_for(payloads.ActionOutput)
LogEntryOutput = serializer_for(payloads.LogEntryOutput)
MoveOutput = serializer_for(payloads.MoveOutput)
ReplayOutput = serializer_for(payloads.ReplayOutput)


TableAnswerOutput = serializer_for(payloads.TableAnswerOutput)


class TableInput(serializers.Serializer):
    ruleset = serializers.CharField(
        default="standard", max_length=RuleSet._meta.get_field("slug").max_length
    )
    seats = serializers.JSONField(default=4)  # type: ignore[arg-type]  # any JSON default
    rules = serializers.JSONField(default=dict, help_text="Overrides of the rule set's fields")
    turn_seconds = serializers.JSONField(default=None)
    time_bank_seconds = serializers.JSONField(default=None, help_text="0 to 3,600")
    between_hands_seconds = serializers.JSONField(
        default=None, help_text="0 to 120 (0: no break); the rule set's when left out"
    )
    rated = serializers.JSONField(default=True)  # type: ignore[arg-type]  # any JSON default
    club = serializers.JSONField(
        default=None, help_text="A club's slug: only its members sit; rated results count there"
    )


class ActionInput(serializers.Serializer):
    action = serializers.JSONField()
    version = serializers.JSONField()
    client_id = serializers.JSONField(required=False, default=None)


class TableApi(APIView):
    """Anyone may read; only a logged-in user may write."""

    def get_permissions(self) -> list[Any]:
        if self.request.method in ("GET", "HEAD", "OPTIONS"):
            return [AllowAny()]
        return [IsAuthenticated()]

    @staticmethod
    def viewer(request: Request) -> str | None:
        return request.user.username if request.user.is_authenticated else None

    def table_answer(self, request: Request, table: Table, code: int = 200) -> Response:
        return Response(table_answer(table, request.user), status=code)


_ERRORS = {
    400: OpenApiResponse(ErrorOutput, description="bad_request"),
    401: OpenApiResponse(ErrorOutput, description="not_authenticated"),
    404: OpenApiResponse(ErrorOutput, description="not_found"),
}


class TableListApi(TableApi):
    @extend_schema(
        operation_id="tables_list",
        description="Tables newest first: ``status=waiting`` (the default) to join, "
        "``status=playing`` to watch; the filters narrow them (docs/lobby.md).",
        parameters=[
            OpenApiParameter("status", str, enum=[c for c, _ in Table.Status.choices]),
            OpenApiParameter("ruleset", str, description="A rule set's slug"),
            OpenApiParameter("seats", int, description="Tables of this many seats (2 to 8)"),
            OpenApiParameter("club", str, description="A club's slug: that club's tables"),
            OpenApiParameter("rated", bool, description="true: rated tables; false: unrated"),
        ],
        responses={200: TableOutput(many=True), 400: _ERRORS[400]},
    )
    def get(self, request: Request) -> Response:
        wanted = table_filter(request.query_params.dict())
        viewer = self.viewer(request)
        tables = tables_listed(wanted)[:100]
        return Response(
            [table_payload(t, viewer, seats=seat_infos(t.seat_set.all())) for t in tables]
        )

    @extend_schema(
        operation_id="tables_create",
        request=TableInput,
        responses={
            201: TableAnswerOutput,
            **_ERRORS,
            409: OpenApiResponse(
                ErrorOutput, description="too_many_tables: you sit at the cap of waiting tables"
            ),
        },
    )
    def post(self, request: Request) -> Response:
        data = TableInput(data=request.data)
        data.is_valid(raise_exception=True)
        body = data.validated_data
        table = services.table_create(
            creator=signed_in(request),
            ruleset=body["ruleset"],
            seats=body["seats"],
            overrides=body["rules"],
            turn_seconds=body["turn_seconds"],
            time_bank_seconds=body["time_bank_seconds"],
            rated=body["rated"],
            club=body["club"],
            between_hands_seconds=body["between_hands_seconds"],
        )
        return self.table_answer(request, table, status.HTTP_201_CREATED)


class TableDetailApi(TableApi):
    @extend_schema(operation_id="tables_get", responses={200: TableAnswerOutput, 404: _ERRORS[404]})
    def get(self, request: Request, table_id: int) -> Response:
        return self.table_answer(request, table_get(table_id))


class SeatCallApi(TableApi):
    """``POST /api/tables/{id}/<call>/``: one seat service called for the logged-in user."""

    call: Any = None  # the service, e.g. services.table_join

    def post(self, request: Request, table_id: int) -> Response:
        table = type(self).call(table_id=table_id, user=signed_in(request))
        return self.table_answer(request, table)


def _seat_call_schema(name: str, **errors: OpenApiResponse) -> Any:
    return extend_schema_view(
        post=extend_schema(
            operation_id=f"tables_{name}",
            request=None,
            # A call's own description of a status replaces the common one.
            responses={200: TableAnswerOutput, **_ERRORS, **{int(k): v for k, v in errors.items()}},
        )
    )


@_seat_call_schema(
    "join",
    **{
        "409": OpenApiResponse(
            ErrorOutput, description="table_full, already_started or too_many_tables"
        )
    },
)
class TableJoinApi(SeatCallApi):
    call = staticmethod(services.table_join)


@_seat_call_schema("leave", **{"409": OpenApiResponse(ErrorOutput, description="already_started")})
class TableLeaveApi(SeatCallApi):
    call = staticmethod(services.table_leave)


@_seat_call_schema(
    "start",
    **{
        "403": OpenApiResponse(ErrorOutput, description="forbidden: not the creator"),
        "409": OpenApiResponse(ErrorOutput, description="already_started"),
    },
)
class TableStartApi(SeatCallApi):
    call = staticmethod(services.table_start)


_MANAGER_ERRORS = {
    "403": OpenApiResponse(ErrorOutput, description="forbidden: not staff nor the event's admin"),
    "400": OpenApiResponse(ErrorOutput, description="wrong_phase: the game is not in play"),
}


@_seat_call_schema("pause", **_MANAGER_ERRORS)
class TablePauseApi(SeatCallApi):
    """Freeze the clocks; actions are refused with 409 ``paused`` until a resume."""

    call = staticmethod(clock_services.table_pause)


@_seat_call_schema("resume", **_MANAGER_ERRORS)
class TableResumeApi(SeatCallApi):
    """Restart the clocks: the mover gets the time they had left."""

    call = staticmethod(clock_services.table_resume)


@_seat_call_schema(
    "back",
    **{"400": OpenApiResponse(ErrorOutput, description="not_seated or wrong_phase (not in play)")},
)
class TableBackApi(SeatCallApi):
    """An absent player is back: their turns wait for them again."""

    call = staticmethod(clock_services.table_back)


class RematchInput(serializers.Serializer):
    accept = serializers.JSONField(help_text="true to accept the rematch, false to decline it")


class TableRematchApi(TableApi):
    """Accept or decline a rematch of a finished table (its players; not an event's table)."""

    @extend_schema(
        operation_id="tables_rematch",
        request=RematchInput,
        responses={
            200: TableAnswerOutput,
            **_ERRORS,
            400: OpenApiResponse(ErrorOutput, description="bad_request, not_seated, wrong_phase"),
            403: OpenApiResponse(ErrorOutput, description="forbidden: an event's table"),
            409: OpenApiResponse(ErrorOutput, description="rematch_over: declined or expired"),
        },
    )
    def post(self, request: Request, table_id: int) -> Response:
        data = RematchInput(data=request.data)
        data.is_valid(raise_exception=True)
        table = rematch.table_rematch(
            table_id=table_id, user=signed_in(request), accept=data.validated_data["accept"]
        )
        return self.table_answer(request, table)


class TableActionApi(TableApi):
    @extend_schema(
        operation_id="tables_action",
        request=ActionInput,
        responses={
            200: ActionOutput,
            409: OpenApiResponse(StaleVersionOutput, description="stale_version or paused"),
            **_ERRORS,
        },
    )
    def post(self, request: Request, table_id: int) -> Response:
        data = ActionInput(data=request.data)
        data.is_valid(raise_exception=True)
        body = data.validated_data
        result = services.table_apply_action(
            table_id=table_id,
            user=signed_in(request),
            action=body["action"],
            version=body["version"],
            client_id=body["client_id"],
        )
        view = game_view(result.table, result.state, result.seats, signed_in(request).username)
        answer: payloads.ActionOutput = {"version": result.version, "view": view}
        return Response(answer)


class TableLogApi(TableApi):
    @extend_schema(
        operation_id="tables_log",
        responses={200: LogEntryOutput(many=True), 404: _ERRORS[404]},
    )
    def get(self, request: Request, table_id: int) -> Response:
        return Response(table_log(table_get(table_id)))


class TableMovesApi(TableApi):
    @extend_schema(
        operation_id="tables_moves",
        responses={200: MoveOutput(many=True), 404: _ERRORS[404]},
    )
    def get(self, request: Request, table_id: int) -> Response:
        """The move log in words: a player's own (their stock draws' cards too), else the
        public one; every card once the game is over."""
        table = table_get(table_id)
        return Response(log_since(table).moves(reader_of(table, request.user)))


# A whole game's steps, each with its full state, run to about a megabyte (366 steps of a
# four-player game to 500) and to some 25 kB compressed. Compressed here alone: the answer holds
# no secret for a BREACH-style attack to guess at (the game is over, no token is in it).
@method_decorator(gzip_page, name="dispatch")
class TableReplayApi(TableApi):
    @extend_schema(
        operation_id="tables_replay",
        responses={
            200: ReplayOutput,
            404: _ERRORS[404],
            409: OpenApiResponse(ErrorOutput, description="wrong_phase: the game is not over"),
        },
    )
    def get(self, request: Request, table_id: int) -> Response:
        """A finished game step by step from the first deal, every hand shown."""
        return Response(table_replay(table_get(table_id)))
