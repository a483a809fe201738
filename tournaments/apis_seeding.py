"""``GET``/``POST /api/events/{slug}/seeding/``: the order the start would seed the players in,
and the organizers' manual seeding before the start (``tournaments.seed_order``). Apart from
``apis`` to keep each module small; the same conventions."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework.request import Request
from rest_framework.response import Response

from accounts.auth import signed_in
from tournaments import serializers as s
from tournaments.apis import _CALL_ERRORS, _READ_ERRORS, EventApi
from tournaments.seed_order import event_seed_order, seeding_preview


class SeedingApi(EventApi):
    @extend_schema(
        operation_id="events_seeding",
        responses={200: s.SeedRowOutput(many=True), **_READ_ERRORS},
        description="Before the start: the players still entered in the order the start would "
        "seed them (a random seeding is drawn at the start: by registration until then).",
    )
    def get(self, request: Request, slug: str) -> Response:
        rows = seeding_preview(self.event(request, slug))
        return Response(s.SeedRowOutput(rows, many=True).data)

    @extend_schema(
        operation_id="events_seeding_set",
        request=s.SeedOrderInput,
        responses={200: s.SeedRowOutput(many=True), **_CALL_ERRORS},
        description="Organizers, before the start: seed by hand in this order (entry ids, the "
        "top seed first, every player still entered once). 409 wrong_status once started.",
    )
    def post(self, request: Request, slug: str) -> Response:
        event = self.event(request, slug)
        data = s.SeedOrderInput(data=request.data)
        data.is_valid(raise_exception=True)
        order = data.validated_data["order"]
        event = event_seed_order(event_id=event.pk, actor=signed_in(request), order=order)
        return Response(s.SeedRowOutput(seeding_preview(event), many=True).data)
