"""The tables and rule sets API's answers (PROTOCOL.md, docs/tables.md), one ``TypedDict``
each: what ``games.selectors`` (and the rule set views) build and, through
``config.payloads.serializer_for``, what the schema documents. A view (``view``) and the rules
are the engine's and stay free-form here.
"""

from __future__ import annotations

from enum import StrEnum
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


class ListedTableOutput(TypedDict):
    """A table as the lobby lists it (docs/lobby.md): the ``table`` of the lobby socket's
    ``table`` frames."""

    id: int
    status: Annotated[str, Doc(choices=Table.Status.choices)]
    ruleset: str
    ruleset_name: str
    seats: int
    players: list[str]
    turn_seconds: int
    rated: bool
    club: Annotated[str | None, Doc("The club's slug; null for a table of no club")]
    created_at: IsoTime
    url: str


class LiveCounts(TypedDict):
    """How much is going on: tables in play and their players, tables waiting for players."""

    tables_playing: int
    players_playing: int
    tables_waiting: int


class SeatActions(TypedDict):
    """What one person may do with a seat at a waiting table now, by the services' own checks
    (``games.refusals``); all false once the game has begun. The ``actions`` of the answer about
    one table and of a waiting table's ``state`` frames (docs/tables.md)."""

    join: Annotated[bool, Doc("You may take a seat (not seated, and accepted)")]
    leave: Annotated[bool, Doc("You may give up your seat")]
    start: Annotated[bool, Doc("You may start the game (the creator)")]


class RatingChangeOutput(TypedDict):
    """One player's rating in the global pool (the one the player page shows first) before
    and after the game, in whole points as the pages show them; ``change`` is their difference."""

    before: int
    after: int
    change: int
    provisional: Annotated[bool, Doc("Still provisional after this game (its deviation)")]
    deviation: Annotated[int, Doc("The rating's deviation after this game, whole points")]


class RematchStatus(StrEnum):
    """Where a rematch offer stands: open for answers, or over one of three ways."""

    OPEN = "open"
    STARTED = "started"  # everyone accepted: ``table`` names the new table
    DECLINED = "declined"
    EXPIRED = "expired"


#: The values of ``RematchStatus``, as the schema's ``RematchStatusEnum`` names them.
REMATCH_STATUSES = [s.value for s in RematchStatus]


class RematchOutput(TypedDict):
    """A rematch offer at a finished table: who accepted and who declined (first first), when
    it expires (REMATCH_SECONDS after the first answer) and the new table once everyone
    accepted. ``status`` says the same in one word, and changes when the offer expires."""

    accepted: list[str]
    declined: list[str]
    expires: IsoTime
    table: Annotated[int | None, Doc("The new table, once every player accepted")]
    status: Annotated[str, Doc(choices=REMATCH_STATUSES)]


class GameOverOutput(TypedDict):
    """What a finished table adds to the answer about it and to its state frames (null on a
    table that is not finished)."""

    ratings: Annotated[
        dict[str, RatingChangeOutput] | None,
        Doc("By username; null for an unrated table or until the ratings are written"),
    ]
    rematch: Annotated[RematchOutput | None, Doc("Null until a player answers a rematch")]


class TableAnswerOutput(TableOutput, GameOverOutput):
    """One table, answered to one caller: the table, what they may do with a seat now, and,
    once the game is over, the rating changes and the rematch offer."""

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


class MoveKind(StrEnum):
    """What a move of the move log tells (``games.moves``)."""

    DEAL = "deal"
    DRAW = "draw"
    TAKE = "take"
    MELD = "meld"
    LAYOFF = "layoff"
    DISCARD = "discard"
    RUMMY = "rummy"
    TIMEOUT = "timeout"
    ABSENT = "absent"
    BACK = "back"
    PAUSE = "pause"
    RESUME = "resume"
    WITHDRAW = "withdraw"
    ADJUDICATE = "adjudicate"
    HAND_OVER = "hand_over"
    GAME_OVER = "game_over"


class MoveOutput(TypedDict):
    """One public happening at a table, in words, for one reader (docs/tables.md, "Moves"):
    never a card that reader may not see."""

    version: Annotated[int, Doc("The log row (table version) it came from")]
    hand: Annotated[int | None, Doc("The hand it belongs to")]
    kind: Annotated[str, Doc(choices=[k.value for k in MoveKind])]
    player: Annotated[str | None, Doc("Who did it; for a timeout, who timed out")]
    actor: Annotated[str | None, Doc("The organizer, for pause, resume, withdraw and adjudicate")]
    cards: Annotated[list[str], Doc("The cards it shows you; a joker as `*9S`")]
    count: Annotated[int | None, Doc("take and rummy: cards taken from the pile; draw: 1")]
    meld: Annotated[int | None, Doc("meld and layoff: the meld's id")]
    text: Annotated[str, Doc("The whole line in words, with card symbols")]


class ReplayStepOutput(TypedDict):
    """One log row of a finished game: what happened, and the full state after it."""

    version: int
    hand: int | None
    moves: list[MoveOutput]
    state: Annotated[JsonObject, Doc("The engine's full state after the row (PROTOCOL.md)")]


class ReplayOutput(TypedDict):
    """A finished game, step by step from the first deal, every card shown."""

    table: int
    players: list[str]
    steps: list[ReplayStepOutput]
