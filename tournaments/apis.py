"""The events REST API under ``/api/events/``: thin views that parse, call one service and answer
with the event's reads (``tournaments.selectors``).

Reads are open to anyone (a draft only to its organizers); a player's calls (register, withdraw,
check in) need a login; the organizer calls need an event admin (staff, the event's admins, the
club's admins). Refusals are ``{"error", "message"}`` with the service's status: 400
``bad_request``, 401 ``not_authenticated``, 403 ``forbidden`` / ``not_eligible``, 404
``not_found``, 409 ``wrong_status`` / ``event_full``.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    extend_schema_view,
)
from rest_framework import status
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.auth import signed_in
from config.exceptions import ErrorOutput
from config.throttles import EntryThrottle
from tournaments import entries, organizer, services
from tournaments import serializers as s
from tournaments.bracket_view import event_bracket
from tournaments.entry_reads import entry_row, event_entries
from tournaments.errors import EventError
from tournaments.models import Tournament
from tournaments.selectors import (
    LISTS,
    entry_names,
    event_announcements,
    event_detail,
    event_get,
    event_list,
    event_rounds,
    event_standings,
    event_summary,
    require_creator,
    round_row,
    round_table_get,
    table_row,
)


def _error(description: str) -> OpenApiResponse:
    return OpenApiResponse(ErrorOutput, description=description)


_READ_ERRORS = {404: _error("not_found")}
_CALL_ERRORS = {
    400: _error("bad_request"),
    401: _error("not_authenticated"),
    403: _error("forbidden: not an organizer of the event"),
    404: _error("not_found"),
    409: _error("wrong_status: not now in the event's life"),
}


class EventApi(APIView):
    """Anyone may read; only a logged-in user may write."""

    def get_permissions(self) -> list[Any]:
        if self.request.method in ("GET", "HEAD", "OPTIONS"):
            return [AllowAny()]
        return [IsAuthenticated()]

    def event(self, request: Request, slug: str) -> Tournament:
        return event_get(slug, request.user)

    def event_answer(self, request: Request, slug: str, code: int = 200) -> Response:
        event = self.event(request, slug)
        return Response(s.EventOutput(event_detail(event, request.user)).data, status=code)


class EventListApi(EventApi):
    @extend_schema(
        operation_id="events_list",
        parameters=[
            OpenApiParameter("status", str, enum=list(LISTS), description="Default upcoming"),
            OpenApiParameter("club", str, description="A club's slug"),
        ],
        responses={200: s.EventSummaryOutput(many=True), 400: _error("bad_request")},
    )
    def get(self, request: Request) -> Response:
        wanted = request.query_params.get("status", "upcoming")
        found = event_list(wanted, club=request.query_params.get("club") or None)
        return Response(s.EventSummaryOutput([event_summary(e) for e in found], many=True).data)

    @extend_schema(
        operation_id="events_create",
        request=s.EventInput,
        responses={201: s.EventOutput, **_CALL_ERRORS},
        description="Staff, and a club's admins for their club: a new event in draft.",
    )
    def post(self, request: Request) -> Response:
        data = s.EventInput(data=request.data)
        data.is_valid(raise_exception=True)
        fields = dict(data.validated_data)
        require_creator(signed_in(request), fields["club"])
        event = services.event_create(created_by=signed_in(request), **fields)
        return self.event_answer(request, event.slug, status.HTTP_201_CREATED)


class EventDetailApi(EventApi):
    @extend_schema(operation_id="events_get", responses={200: s.EventOutput, **_READ_ERRORS})
    def get(self, request: Request, slug: str) -> Response:
        return self.event_answer(request, slug)


class StandingsApi(EventApi):
    @extend_schema(
        operation_id="events_standings", responses={200: s.StandingsOutput, **_READ_ERRORS}
    )
    def get(self, request: Request, slug: str) -> Response:
        return Response(s.StandingsOutput(event_standings(self.event(request, slug))).data)


class RoundsApi(EventApi):
    @extend_schema(
        operation_id="events_rounds", responses={200: s.RoundOutput(many=True), **_READ_ERRORS}
    )
    def get(self, request: Request, slug: str) -> Response:
        rounds = event_rounds(self.event(request, slug))
        return Response(s.RoundOutput(rounds, many=True).data)


class EntriesApi(EventApi):
    @extend_schema(
        operation_id="events_entries", responses={200: s.EntryOutput(many=True), **_READ_ERRORS}
    )
    def get(self, request: Request, slug: str) -> Response:
        rows = event_entries(self.event(request, slug))
        return Response(s.EntryOutput(rows, many=True).data)


class AnnouncementsApi(EventApi):
    @extend_schema(
        operation_id="events_announcements",
        responses={200: s.AnnouncementOutput(many=True), **_READ_ERRORS},
    )
    def get(self, request: Request, slug: str) -> Response:
        notes = event_announcements(self.event(request, slug))
        return Response(s.AnnouncementOutput(notes, many=True).data)


class BracketApi(EventApi):
    @extend_schema(
        operation_id="events_bracket",
        responses={200: s.BracketOutput, 404: _error("not_found, or no_bracket (not elimination)")},
    )
    def get(self, request: Request, slug: str) -> Response:
        bracket = event_bracket(self.event(request, slug))
        if bracket is None:
            raise EventError("no_bracket", "this event's format has no bracket", 404)
        return Response(s.BracketOutput(bracket).data)


class EventCallApi(EventApi):
    """``POST /api/events/{slug}/<call>/``: one service called on the event; answers the event.
    ``player`` calls pass the logged-in user as ``user``, the organizer calls as ``actor``."""

    call: Any = None
    player = False

    def post(self, request: Request, slug: str) -> Response:
        event = self.event(request, slug)
        who = {"user" if self.player else "actor": signed_in(request)}
        type(self).call(event_id=event.pk, **who, **self.arguments(request))
        return self.event_answer(request, slug)

    def arguments(self, request: Request) -> dict[str, Any]:
        return {}


def _call_schema(name: str, description: str, request: Any = None, **errors: str) -> Any:
    own = {int(code): _error(text) for code, text in errors.items()}
    return extend_schema_view(
        post=extend_schema(
            operation_id=f"events_{name}",
            description=description,
            request=request,
            # A call's own description of a status replaces the common one.
            responses={200: s.EventOutput, **_CALL_ERRORS, **own},
        )
    )


@_call_schema(
    "register",
    "Enter the event (registration open, its conditions met).",
    **{
        "403": "not_eligible: an entry condition not met",
        "409": "wrong_status or event_full",
        "429": "throttled: too many registrations and withdrawals, with retry_after (seconds)",
    },
)
class RegisterApi(EventCallApi):
    call = staticmethod(entries.entry_register)
    player = True
    throttle_classes = (EntryThrottle,)


@_call_schema(
    "withdraw",
    "Leave the event; once it runs, your table plays on with you absent.",
    **{
        "400": "not_registered",
        "429": "throttled: too many registrations and withdrawals, with retry_after (seconds)",
    },
)
class WithdrawApi(EventCallApi):
    call = staticmethod(entries.entry_withdraw)
    player = True
    throttle_classes = (EntryThrottle,)


@_call_schema("check_in", "Confirm you will play (check-in open).", **{"400": "not_registered"})
class CheckInApi(EventCallApi):
    call = staticmethod(entries.entry_check_in)
    player = True


@_call_schema("open_registration", "Organizers: draft to registration.")
class OpenRegistrationApi(EventCallApi):
    call = staticmethod(services.event_open_registration)


@_call_schema("open_check_in", "Organizers: registration to check-in.")
class OpenCheckInApi(EventCallApi):
    call = staticmethod(services.event_open_check_in)


@_call_schema("close", "Organizers: close registration or check-in now, whichever is open.")
class CloseWindowApi(EventCallApi):
    call = staticmethod(services.event_close_window)


@_call_schema(
    "start",
    "Organizers: drop the players not checked in, seed the rest, start round 1.",
    **{"400": "bad_request: the format cannot run with these players"},
)
class StartApi(EventCallApi):
    call = staticmethod(services.event_start)


@_call_schema("pause", "Organizers: freeze every table's clock and hold back new rounds.")
class PauseApi(EventCallApi):
    call = staticmethod(organizer.event_pause)


@_call_schema("resume", "Organizers: restart the clocks and a round that waited.")
class ResumeApi(EventCallApi):
    call = staticmethod(organizer.event_resume)


@_call_schema("cancel", "Organizers: call the event off, with a reason.", request=s.ReasonInput)
class CancelApi(EventCallApi):
    call = staticmethod(services.event_cancel)

    def arguments(self, request: Request) -> dict[str, Any]:
        data = s.ReasonInput(data=request.data)
        data.is_valid(raise_exception=True)
        return {"reason": data.validated_data["reason"]}


class AnnounceApi(EventApi):
    @extend_schema(
        operation_id="events_announce",
        request=s.AnnouncementInput,
        responses={201: s.AnnouncementOutput, **_CALL_ERRORS},
    )
    def post(self, request: Request, slug: str) -> Response:
        event = self.event(request, slug)
        data = s.AnnouncementInput(data=request.data)
        data.is_valid(raise_exception=True)
        note = organizer.announce(
            event_id=event.pk, text=data.validated_data["text"], actor=signed_in(request)
        )
        row = {"id": note.pk, "text": note.text, "author": note.author.username}
        return Response(
            s.AnnouncementOutput({**row, "created_at": note.created_at}).data,
            status=status.HTTP_201_CREATED,
        )


class EntryRemoveApi(EventApi):
    """Organizers: withdraw or disqualify a player, with a reason."""

    disqualify = False

    def post(self, request: Request, slug: str, entry_id: int) -> Response:
        event = self.event(request, slug)
        data = s.ReasonInput(data=request.data)
        data.is_valid(raise_exception=True)
        entry = organizer.entry_remove(
            event_id=event.pk,
            entry_id=entry_id,
            actor=signed_in(request),
            disqualify=self.disqualify,
            reason=data.validated_data["reason"],
        )
        entry.refresh_from_db()
        return Response(s.EntryOutput(entry_row(event, entry)).data)


def _entry_schema(name: str) -> Any:
    return extend_schema_view(
        post=extend_schema(
            operation_id=f"events_entry_{name}",
            request=s.ReasonInput,
            responses={200: s.EntryOutput, **_CALL_ERRORS},
        )
    )


@_entry_schema("withdraw")
class EntryWithdrawApi(EntryRemoveApi):
    pass


@_entry_schema("disqualify")
class EntryDisqualifyApi(EntryRemoveApi):
    disqualify = True


class AdjudicateApi(EventApi):
    @extend_schema(
        operation_id="events_table_adjudicate",
        request=s.AdjudicateInput,
        responses={200: s.RoundTableOutput, **_CALL_ERRORS},
        description="Organizers: decide a table's result, a place per player and a reason. A "
        "game in play ends as adjudicated; its result comes in as the game finalizes.",
    )
    def post(self, request: Request, slug: str, round_table_id: int) -> Response:
        event = self.event(request, slug)
        data = s.AdjudicateInput(data=request.data)
        data.is_valid(raise_exception=True)
        organizer.round_table_adjudicate(
            event_id=event.pk,
            round_table_id=round_table_id,
            places=data.validated_data["places"],
            reason=data.validated_data["reason"],
            actor=signed_in(request),
        )
        row = table_row(round_table_get(event.pk, round_table_id), entry_names(event))
        return Response(s.RoundTableOutput(row).data)


class RoundCallApi(EventApi):
    def round_answer(self, event: Tournament, round_id: int) -> Response:
        round_ = event.round_set.prefetch_related("tables__table").get(pk=round_id)
        return Response(s.RoundOutput(round_row(round_, entry_names(event))).data)


class ReseatApi(RoundCallApi):
    @extend_schema(
        operation_id="events_round_reseat",
        request=s.ReseatInput,
        responses={200: s.RoundOutput, **_CALL_ERRORS},
        description="Organizers: seat a waiting round's players at other tables (entry ids).",
    )
    def post(self, request: Request, slug: str, round_id: int) -> Response:
        event = self.event(request, slug)
        data = s.ReseatInput(data=request.data)
        data.is_valid(raise_exception=True)
        organizer.round_reseat(
            event_id=event.pk,
            round_id=round_id,
            tables=data.validated_data["tables"],
            actor=signed_in(request),
        )
        return self.round_answer(event, round_id)


class RoundStartApi(RoundCallApi):
    @extend_schema(
        operation_id="events_round_start",
        request=None,
        responses={200: s.RoundOutput, **_CALL_ERRORS},
        description="Organizers: start a round that waits for them.",
    )
    def post(self, request: Request, slug: str, round_id: int) -> Response:
        event = self.event(request, slug)
        organizer.round_start(event_id=event.pk, round_id=round_id, actor=signed_in(request))
        return self.round_answer(event, round_id)
