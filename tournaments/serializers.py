"""Shapes of the events API's requests and answers (``tournaments.apis``), for the schema and to
hold each answer to its documented fields."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from tournaments.bracket_view import MatchState
from tournaments.models import FORMAT_CHOICES, Entry, Round, Tournament


def _one_of(choices: Any) -> str:
    # Plain strings, not enums: several models have a "status" with its own values, and the
    # schema's enum names would collide (games' tables have one too).
    return "One of " + ", ".join(choices.values)


class EventSummaryOutput(serializers.Serializer):
    slug = serializers.CharField()
    name = serializers.CharField()
    url = serializers.CharField(help_text="The event's page")
    club = serializers.CharField(allow_null=True, help_text="The club's slug")
    club_name = serializers.CharField(allow_null=True)
    status = serializers.CharField(help_text=_one_of(Tournament.Status))
    status_label = serializers.CharField()
    format = serializers.ChoiceField(choices=FORMAT_CHOICES)
    format_name = serializers.CharField()
    starts_at = serializers.DateTimeField(allow_null=True)
    champion = serializers.CharField(allow_null=True)


class ConditionsOutput(serializers.Serializer):
    min_rating = serializers.FloatField(allow_null=True)
    max_rating = serializers.FloatField(allow_null=True)
    min_rated_games = serializers.IntegerField()
    members_only = serializers.BooleanField()


class RoundBriefOutput(serializers.Serializer):
    id = serializers.IntegerField()
    number = serializers.IntegerField()
    name = serializers.CharField()
    status = serializers.CharField(help_text=_one_of(Round.Status))


class EntryOutput(serializers.Serializer):
    id = serializers.IntegerField()
    username = serializers.CharField()
    status = serializers.CharField(help_text=_one_of(Entry.Status))
    status_label = serializers.CharField()
    seed = serializers.IntegerField(allow_null=True)
    rating = serializers.FloatField(allow_null=True, help_text="In the event's pool at its start")
    reason = serializers.CharField(help_text="Why an organizer withdrew or disqualified them")
    registered_at = serializers.DateTimeField()
    checked_in_at = serializers.DateTimeField(allow_null=True)


class EventOutput(EventSummaryOutput):
    description = serializers.CharField()
    ruleset = serializers.CharField()
    ruleset_name = serializers.CharField()
    overrides = serializers.JSONField(help_text="Rule fields changed from the rule set")
    turn_seconds = serializers.IntegerField()
    time_bank_seconds = serializers.IntegerField()
    rated = serializers.BooleanField()
    table_size = serializers.IntegerField()
    rounds = serializers.IntegerField(allow_null=True)
    options = serializers.JSONField(help_text="Format settings")
    seeding = serializers.ChoiceField(choices=Tournament.Seeding.choices)
    online = serializers.BooleanField()
    auto_advance = serializers.BooleanField()
    paused = serializers.BooleanField()
    registration_opens_at = serializers.DateTimeField(allow_null=True)
    registration_closes_at = serializers.DateTimeField(allow_null=True)
    check_in_opens_at = serializers.DateTimeField(allow_null=True)
    check_in_closes_at = serializers.DateTimeField(allow_null=True)
    started_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)
    max_players = serializers.IntegerField(allow_null=True)
    conditions = ConditionsOutput()
    counts = serializers.DictField(child=serializers.IntegerField(), help_text="Entries by status")
    current_round = RoundBriefOutput(allow_null=True)
    my_entry = EntryOutput(allow_null=True, help_text="Yours, when logged in and entered")
    is_admin = serializers.BooleanField(help_text="Whether you organize this event")


class SeatOutput(serializers.Serializer):
    username = serializers.CharField()
    place = serializers.IntegerField(allow_null=True)
    points = serializers.IntegerField(allow_null=True)


class RoundTableOutput(serializers.Serializer):
    id = serializers.IntegerField(help_text="The round table's id (for adjudicate)")
    key = serializers.CharField(help_text="The format's name for it: W1-3, GF, T4, final")
    players = serializers.ListField(child=serializers.CharField(), help_text="In seat order")
    table = serializers.IntegerField(allow_null=True, help_text="The live game's table id")
    url = serializers.CharField(allow_null=True, help_text="Where to watch it")
    playing = serializers.BooleanField(help_text="Its game is in play")
    placements = serializers.DictField(
        child=serializers.IntegerField(), allow_null=True, help_text="Place by username"
    )
    points = serializers.DictField(
        child=serializers.IntegerField(), allow_null=True, help_text="Game points by username"
    )
    adjudicated = serializers.CharField(help_text="An organizer's reason, if they decided it")
    seats = SeatOutput(many=True)


class RoundOutput(RoundBriefOutput):
    status_label = serializers.CharField()
    started_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)
    byes = serializers.ListField(child=serializers.CharField())
    tables = RoundTableOutput(many=True)


class StandingOutput(serializers.Serializer):
    rank = serializers.IntegerField()
    entry = serializers.IntegerField()
    username = serializers.CharField()
    points = serializers.FloatField()
    tiebreaks = serializers.DictField(child=serializers.FloatField())
    eliminated = serializers.BooleanField()


class StandingsOutput(serializers.Serializer):
    round = serializers.IntegerField(allow_null=True, help_text="As of this finished round")
    final = serializers.BooleanField()
    tiebreaks = serializers.ListField(
        child=serializers.CharField(), help_text="In their order of application"
    )
    rows = StandingOutput(many=True)


class SlotOutput(serializers.Serializer):
    username = serializers.CharField(allow_null=True)
    seed = serializers.IntegerField(allow_null=True)
    source = serializers.CharField(help_text='"seed 4", "bye", "winner of W1-2", ...')  # type: ignore[assignment]  # a field named as a Field attribute
    bye = serializers.BooleanField()
    won = serializers.BooleanField()


class MatchOutput(serializers.Serializer):
    key = serializers.CharField()
    side = serializers.ChoiceField(choices=["winners", "losers", "final", "third"])
    round = serializers.IntegerField(help_text="Within its side")
    slots = SlotOutput(many=True)
    winner = serializers.CharField(allow_null=True)
    state = serializers.ChoiceField(
        choices=[s.value for s in MatchState],
        help_text="walkover: a player had left the event, the other went through without play",
    )
    played_in = serializers.IntegerField(allow_null=True, help_text="The event round")
    table = serializers.IntegerField(allow_null=True)
    url = serializers.CharField(allow_null=True)


class ColumnOutput(serializers.Serializer):
    label = serializers.CharField()  # type: ignore[assignment]  # a field named as a Field attribute
    matches = MatchOutput(many=True)


class SideOutput(serializers.Serializer):
    side = serializers.CharField()
    label = serializers.CharField()  # type: ignore[assignment]  # a field named as a Field attribute
    columns = ColumnOutput(many=True)


class BracketOutput(serializers.Serializer):
    sides = SideOutput(many=True)


class AnnouncementOutput(serializers.Serializer):
    id = serializers.IntegerField()
    text = serializers.CharField()
    author = serializers.CharField()
    created_at = serializers.DateTimeField()


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
