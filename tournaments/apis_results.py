"""``POST /api/events/{slug}/tables/{round_table_id}/result/``: organizers enter a table's game
played face to face, hand by hand (the scorekeeper); and ``.../retry/``: they send again a
table's result that could not be recorded (``tournaments.stalls``). Apart from ``apis`` to keep
each module small; the same conventions (errors as ``{"error", "message"}``, the round table
answered)."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from accounts.auth import signed_in
from tournaments import serializers as s
from tournaments.apis import _CALL_ERRORS, EventApi
from tournaments.errors import EventError
from tournaments.scorekeeper import MAX_POINTS, scorekeeper_enter
from tournaments.selectors import entry_names, round_table_get, table_row
from tournaments.stalls import round_table_retry


class ResultInput(serializers.Serializer):
    hands = serializers.ListField(
        child=serializers.DictField(
            child=serializers.DictField(
                child=serializers.IntegerField(min_value=0, max_value=MAX_POINTS)
            )
        ),
        help_text='Hands in order, each {username: {"table": melded points, "hand": points left '
        "in hand}} for every player of the table still in the event.",
    )


class ResultApi(EventApi):
    @extend_schema(
        operation_id="events_table_result",
        request=ResultInput,
        responses={200: s.RoundTableOutput, **_CALL_ERRORS},
        description="Organizers: enter a face-to-face table's game hand by hand; the service "
        "works out the nets, totals and places, and the game counts in the event (and in the "
        "ratings when the event is rated) as it finalizes.",
    )
    def post(self, request: Request, slug: str, round_table_id: int) -> Response:
        event = self.event(request, slug)
        data = ResultInput(data=request.data)
        if not data.is_valid():
            raise EventError("bad_request", f"hands: {data.errors}")
        scorekeeper_enter(
            event_id=event.pk,
            round_table_id=round_table_id,
            hands=data.validated_data["hands"],
            actor=signed_in(request),
        )
        row = table_row(round_table_get(event.pk, round_table_id), entry_names(event))
        return Response(s.RoundTableOutput(row).data)


class RetryApi(EventApi):
    @extend_schema(
        operation_id="events_table_retry",
        request=None,
        responses={200: s.RoundTableOutput, **_CALL_ERRORS},
        description="Organizers: send again the finalization of a table whose result could not "
        "be recorded (its hook failed and was given up; the event page lists them), once the "
        "cause is fixed. It runs as after a game's end; 409 when nothing is stuck.",
    )
    def post(self, request: Request, slug: str, round_table_id: int) -> Response:
        event = self.event(request, slug)
        actor = signed_in(request)
        round_table_retry(event_id=event.pk, round_table_id=round_table_id, actor=actor)
        row = table_row(round_table_get(event.pk, round_table_id), entry_names(event))
        return Response(s.RoundTableOutput(row).data)
