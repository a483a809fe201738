"""The rule sets, public: two pages (/rules/) and two API calls (/api/rulesets/).

No login is needed anywhere here: anyone choosing a table, and any bot, may read the rules.
Presets come first (the model's ordering).
"""

from __future__ import annotations

from typing import Any

from django.db.models import Field
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework.exceptions import NotFound
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

import config.payloads
from config.exceptions import ErrorOutput
from games.engine.summary import rules_summary
from games.models import RULE_FIELDS, RuleSet
from games.payloads import RuleSetOutput as RuleSetPayload

# --- Pages -------------------------------------------------------------------------------------


def ruleset_list_page(request: HttpRequest) -> HttpResponse:
    return render(request, "games/ruleset_list.html", {"rulesets": RuleSet.objects.all()})


def ruleset_page(request: HttpRequest, slug: str) -> HttpResponse:
    ruleset = get_object_or_404(RuleSet, slug=slug)
    context = {
        "ruleset": ruleset,
        "summary": rules_summary(ruleset.to_rules()),
        "fields": _field_rows(ruleset),
    }
    return render(request, "games/ruleset_detail.html", context)


def _rule_field(name: str) -> Field[Any, Any]:
    """A rule field of the model (every one is a plain column, never a relation)."""
    field = RuleSet._meta.get_field(name)
    assert isinstance(field, Field)
    return field


def _field_rows(ruleset: RuleSet) -> list[dict[str, Any]]:
    """One row per rule field: its name, label, value as a reader says it, and help text."""
    rows = []
    # The break between hands is the service's setting, not an engine rule, shown beside them.
    for name in (*RULE_FIELDS, "between_hands_seconds"):
        field = _rule_field(name)
        rows.append(
            {
                "name": name,
                "label": field.verbose_name.capitalize(),
                "value": _shown(ruleset, name),
                "help": field.help_text,
            }
        )
    return rows


def _shown(ruleset: RuleSet, name: str) -> str:
    value = getattr(ruleset, name)
    if _rule_field(name).choices:
        return str(getattr(ruleset, f"get_{name}_display")())
    if isinstance(value, bool):
        return "Yes" if value else "No"
    return "Not set" if value is None else str(value)


# --- API ---------------------------------------------------------------------------------------


# The answer's serializer, for the schema and to answer with, from its one typed definition.
RuleSetOutput = config.payloads.serializer_for(RuleSetPayload)


def _ruleset_data(request: Request, ruleset: RuleSet) -> dict[str, Any]:
    return RuleSetOutput(
        {
            "slug": ruleset.slug,
            "name": ruleset.name,
            "description": ruleset.description,
            "preset": ruleset.is_preset,
            "summary": rules_summary(ruleset.to_rules()),
            "url": request.build_absolute_uri(ruleset.get_absolute_url()),
            "rules": ruleset.rules_dict(),
            "between_hands_seconds": ruleset.between_hands_seconds,
        }
    ).data


class RuleSetListApi(APIView):
    permission_classes = (AllowAny,)

    @extend_schema(operation_id="rulesets_list", responses={200: RuleSetOutput(many=True)})
    def get(self, request: Request) -> Response:
        return Response([_ruleset_data(request, ruleset) for ruleset in RuleSet.objects.all()])


class RuleSetDetailApi(APIView):
    permission_classes = (AllowAny,)

    @extend_schema(
        operation_id="rulesets_retrieve",
        responses={
            200: RuleSetOutput,
            404: OpenApiResponse(ErrorOutput, description="not_found"),
        },
    )
    def get(self, request: Request, slug: str) -> Response:
        ruleset = RuleSet.objects.filter(slug=slug).first()
        if ruleset is None:
            # Raised as DRF's NotFound (not Http404) so the answer has the API's error shape.
            raise NotFound(f"There is no rule set {slug!r}.")
        return Response(_ruleset_data(request, ruleset))
