"""Shapes of the events API's requests and answers (``tournaments.apis``), for the schema and to
hold each answer to its documented fields."""

from __future__ import annotations

from rest_framework import serializers

from config.payloads import serializer_for
from tournaments import payloads
from tournaments.models import FORMAT_CHOICES, Tournament

# The answers, from their one typed definition in tournaments.payloads.
EventSummaryOutput = serializer_for(payloads.EventSummaryOutput)
EventOutput = serializer_for(payloads.EventOutput)
EntryOutput = serializer_for(payloads.EntryOutput)
RoundOutput = serializer_for(payloads.RoundOutput)
RoundTableOutput = serializer_for(payloads.RoundTableOutput)
StandingsOutput = serializer_for(payloads.StandingsOutput)
BracketOutput = serializer_for(payloads.BracketOutput)
AnnouncementOutput = serializer_for(payloads.AnnouncementOutput)
SeedRowOutput = serializer_for(payloads.SeedRowOutput)


class SeedOrderInput(serializers.Serializer):
    order = serializers.ListField(
        child=serializers.IntegerField(),
        help_text="Entry ids, the top seed first: every player still entered, once each",
    )


class AnnouncementInput(serializers.Serializer):
    text = serializers.CharField(max_length=2000, allow_blank=True)


class ReasonInput(serializers.Serializer):
    reason = serializers.CharField(max_length=500, allow_blank=True, default="")


class AdjudicateInput(serializers.Serializer):
    places = serializers.DictField(
        child=serializers.IntegerField(min_value=1), help_text="Each player's place by username"
    )
    reason = serializers.CharField(max_length=500, allow_blank=True, default="")


class ReseatInput(serializers.Serializer):
    tables = serializers.ListField(
        child=serializers.ListField(child=serializers.IntegerField()),
        help_text="Entry ids, one list per table, in seat order",
    )


class EventInput(serializers.Serializer):
    """``POST /api/events/``: the event's fields as on the model; the service checks them."""

    name = serializers.CharField(max_length=120)
    description = serializers.CharField(allow_blank=True, default="")
    club = serializers.CharField(allow_null=True, default=None, help_text="A club's slug")
    ruleset = serializers.CharField(default="standard", help_text="A rule set's slug")
    overrides = serializers.DictField(default=dict, help_text="Rule fields changed: target, ...")
    turn_seconds = serializers.IntegerField(default=60)
    time_bank_seconds = serializers.IntegerField(default=0, min_value=0)
    rated = serializers.BooleanField(default=True)
    format = serializers.ChoiceField(choices=FORMAT_CHOICES)
    table_size = serializers.IntegerField(default=2, min_value=2, max_value=8)
    rounds = serializers.IntegerField(allow_null=True, default=None, min_value=1, max_value=99)
    options = serializers.DictField(default=dict, help_text="Format settings")
    seeding = serializers.ChoiceField(choices=Tournament.Seeding.choices, default="rating")
    online = serializers.BooleanField(default=True)
    auto_advance = serializers.BooleanField(default=True)
    registration_opens_at = serializers.DateTimeField(allow_null=True, default=None)
    registration_closes_at = serializers.DateTimeField(allow_null=True, default=None)
    check_in_opens_at = serializers.DateTimeField(allow_null=True, default=None)
    check_in_closes_at = serializers.DateTimeField(allow_null=True, default=None)
    starts_at = serializers.DateTimeField(allow_null=True, default=None)
    max_players = serializers.IntegerField(allow_null=True, default=None, min_value=2)
    min_rating = serializers.FloatField(allow_null=True, default=None)
    max_rating = serializers.FloatField(allow_null=True, default=None)
    min_rated_games = serializers.IntegerField(default=0, min_value=0)
    members_only = serializers.BooleanField(default=False)
