"""The tables and rule sets API's answers (PROTOCOL.md, docs/tables.md), one ``TypedDict``
each: what ``games.selectors`` (and the rule set views) build and, through
``config.payloads.serializer_for``, what the schema documents. A view (``view``) and the rules
are the engine's and stay free-form here.
"""

from __future__ import annotations

from typing import Annotated, Any, NotRequired, TypedDict

from rest_framework import serializers

from config.payloads import Doc, IsoTime
from games.models import RULE_FIELDS, RuleSet, Table, TableEvent

#: A JSON object of the engine's (a view, the rules): PROTOCOL.md gives its shape.
JsonObject = dict[str, Any]


class ClockOutput(TypedDict):
    turn_seconds: int
    time_bank_seconds: int
    turn_started: IsoTime | None
    turn_ends: Annotated[
        IsoTime | None, Doc("End of the turn clock; the mover's bank runs after it")
    ]
    banks: Annotated[dict[str, float], Doc("Seconds of bank each, as of the turn's start")]
    paused: bool
    remaining: Annotated[
        float | None, Doc("Seconds the mover had left when paused; null unless paused")
    ]
    between_hands_seconds: Annotated[int, Doc("The break between hands, in seconds (0: none)")]
    break_ends: Annotated[
        IsoTime | None,
        Doc("While a break between hands runs: when it ends and the turn clock starts"),
    ]


class HandScoreOutput(TypedDict):
    melded: int
    in_hand: int
    net: int


class LastHandOutput(TypedDict):
    """The most recently finished hand, public once it is over (its cards left in hand are
    scored in the open): the summary shown during the break between hands."""

    number: int
    went_out: Annotated[str | None, Doc("Who went out; null when the stock ran out")]
    melds: Annotated[list[JsonObject], Doc("The melds at the hand's end, as the views write them")]
    left: Annotated[dict[str, list[str]], Doc("The cards left in each player's hand")]
    scores: dict[str, HandScoreOutput]
    totals: Annotated[dict[str, int], Doc("Each player's total after the hand")]


class TableOutput(TypedDict):
    id: int
    status: Annotated[str, Doc(choices=Table.Status.choices)]
    version: int
    view: Annotated[JsonObject | None, Doc("Your player view, else the public one")]
    deadline: IsoTime | None
    ruleset: str
    rules: JsonObject
    overrides: JsonObject
    seats: int
    players: list[str]
    creator: str
    turn_seconds: int
    time_bank_seconds: int
    between_hands_seconds: Annotated[int, Doc("The break between hands, in seconds (0: none)")]
    clock: ClockOutput
    last_hand: Annotated[
        LastHandOutput | None, Doc("The most recently finished hand; null before any ended")
    ]
    rated: bool
    club: Annotated[str | None, Doc("The club's slug; null for a table of no club")]
    created_at: IsoTime
    url: str


class SeatActions(TypedDict):
    """What one person may do with a seat at a waiting table now, by the services' own checks
    (``games.refusals``); all false once the game has begun. The ``actions`` of the answer about
    one table and of a waiting table's ``state`` frames (docs/tables.md)."""

    join: Annotated[bool, Doc("You may take a seat (not seated, and accepted)")]
    leave: Annotated[bool, Doc("You may give up your seat")]
    start: Annotated[bool, Doc("You may start the game (the creator)")]


class TableAnswerOutput(TableOutput):
    """One table, answered to one caller: the table and what they may do with a seat now."""

    actions: Annotated[
        SeatActions,
        Doc("What you may do now, by the services' own checks; all false once it started"),
    ]


class ActionOutput(TypedDict):
    version: int
    view: JsonObject


class RevealedOutput(TypedDict):
    """The seed of the hand this row's change ended, no longer secret."""

    hand: int
    seed: str


class LogEntryOutput(TypedDict):
    """A row of a table's log. `kind` says which of the optional keys it has:
    `start` players, hand, commitment and seed; `deal` hand, commitment and seed; `timeout`
    deadline, late_ms and by, or absent; `withdraw` reason; `adjudicate` placements and
    reason; and the row whose change ended a hand `revealed`."""

    version: int
    kind: Annotated[str, Doc(choices=TableEvent.Kind.values)]
    player: str | None
    actor: str | None
    action: JsonObject | None
    client_id: str | None
    at: IsoTime
    players: NotRequired[Annotated[list[str], Doc("Who sits, in seat order")]]
    hand: NotRequired[Annotated[int, Doc("The hand dealt")]]
    commitment: NotRequired[Annotated[str, Doc("SHA-256 of the hand's seed")]]
    seed: NotRequired[Annotated[str | None, Doc("The hand's seed; null until the hand is over")]]
    revealed: NotRequired[RevealedOutput]
    deadline: NotRequired[Annotated[IsoTime, Doc("The deadline the server played the turn at")]]
    late_ms: NotRequired[Annotated[int, Doc("How late the server played it, in milliseconds")]]
    by: NotRequired[Annotated[str, Doc("timer or sweep: what played it")]]
    absent: NotRequired[Annotated[bool, Doc("An absent player's turn, played at once")]]
    reason: NotRequired[Annotated[str, Doc("The organizer's reason")]]
    placements: NotRequired[Annotated[dict[str, int], Doc("Place by username, as decided")]]
    events: Annotated[
        list[JsonObject],
        Doc("The engine's events; hidden cards after the game", field=serializers.JSONField),
    ]


class RulesOutput(serializers.ModelSerializer):
    """Every field of the engine's configuration (``Rules.from_dict`` takes this object)."""

    class Meta:
        model = RuleSet
        fields = RULE_FIELDS


class RuleSetOutput(TypedDict):
    slug: Annotated[str, Doc(field=serializers.SlugField)]
    name: str
    description: str
    preset: Annotated[bool, Doc("One of the six presets of RULES.md.")]
    summary: Annotated[list[str], Doc("The rules in plain English, one sentence each.")]
    url: Annotated[str, Doc("The rule set's web page.", field=serializers.URLField)]
    rules: Annotated[JsonObject, Doc(field=RulesOutput)]
    between_hands_seconds: Annotated[
        int, Doc("Seconds between hands, no clock running (a setting of the service, not a rule)")
    ]
