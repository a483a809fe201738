"""Shapes of the events API's requests and answers (``tournaments.apis``), for the schema and to
hold each answer to its documented fields."""

from __future__ import annotations

from rest_framework import serializers

from config.payloads import serializer_for
from games.engine.rules import MAX_PLAYERS, MIN_PLAYERS
from tournaments import payloads
from tournaments.limits import (
    ANNOUNCEMENT_MAX,
    DESCRIPTION_MAX,
    ID_MAX,
    NAME_MAX,
    PLAYERS_MAX,
    RATED_GAMES_MAX,
    RATING_BOUND,
    REASON_MAX,
    SLUG_MAX,
    TURN_SECONDS_MAX,
)
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
        child=serializers.IntegerField(min_value=1, max_value=ID_MAX),
        help_text="Entry ids, the top seed first: every player still entered, once each",
    )


class AnnouncementInput(serializers.Serializer):
    text = serializers.CharField(max_length=ANNOUNCEMENT_MAX, allow_blank=True)


class ReasonInput(serializers.Serializer):
    reason = serializers.CharField(max_length=REASON_MAX, allow_blank=True, default="")


class AdjudicateInput(serializers.Serializer):
    places = serializers.DictField(
        child=serializers.IntegerField(min_value=1, max_value=MAX_PLAYERS),
        help_text="Each player's place by username",
    )
    reason = serializers.CharField(max_length=REASON_MAX, allow_blank=True, default="")


class ReseatInput(serializers.Serializer):
    tables = serializers.ListField(
        child=serializers.ListField(child=serializers.IntegerField(min_value=1, max_value=ID_MAX)),
        help_text="Entry ids, one list per table, in seat order",
    )


class EventInput(serializers.Serializer):
    """``POST /api/events/``: the event's fields as on the model; the service checks them."""

    name = serializers.CharField(max_length=NAME_MAX)
    description = serializers.CharField(max_length=DESCRIPTION_MAX, allow_blank=True, default="")
    club = serializers.CharField(
        max_length=SLUG_MAX, allow_null=True, default=None, help_text="A club's slug"
    )
    ruleset = serializers.CharField(
        max_length=SLUG_MAX, default="standard", help_text="A rule set's slug"
    )
    overrides = serializers.DictField(default=dict, help_text="Rule fields changed: target, ...")
    turn_seconds = serializers.IntegerField(default=60, min_value=1, max_value=TURN_SECONDS_MAX)
    time_bank_seconds = serializers.IntegerField(default=0, min_value=0, max_value=TURN_SECONDS_MAX)
    rated = serializers.BooleanField(default=True)
    format = serializers.ChoiceField(choices=FORMAT_CHOICES)
    table_size = serializers.IntegerField(default=2, min_value=MIN_PLAYERS, max_value=MAX_PLAYERS)
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
    max_players = serializers.IntegerField(
        allow_null=True, default=None, min_value=2, max_value=PLAYERS_MAX
    )
    min_rating = serializers.FloatField(
        allow_null=True, default=None, min_value=-RATING_BOUND, max_value=RATING_BOUND
    )
    max_rating = serializers.FloatField(
        allow_null=True, default=None, min_value=-RATING_BOUND, max_value=RATING_BOUND
    )
    min_rated_games = serializers.IntegerField(default=0, min_value=0, max_value=RATED_GAMES_MAX)
    members_only = serializers.BooleanField(default=False)
