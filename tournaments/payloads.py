"""The events API's answers (docs/tournaments.md), one ``TypedDict`` each: what
``tournaments.selectors`` and ``tournaments.bracket_view`` return (the pages read the same) and,
through ``config.payloads.serializer_for``, what the schema documents and the views answer with
(``tournaments.serializers``)."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Annotated, Any, Literal, TypedDict

from django.db.models import TextChoices

from config.payloads import Doc
from tournaments.models import FORMAT_CHOICES, Entry, Round, Tournament


def _one_of(choices: type[TextChoices]) -> Doc:
    # Plain strings, not enums: several models have a "status" with its own values, and the
    # schema's enum names would collide (games' tables have one too).
    return Doc("One of " + ", ".join(choices.values))


class EventSummaryOutput(TypedDict):
    slug: str
    name: str
    url: Annotated[str, Doc("The event's page")]
    club: Annotated[str | None, Doc("The club's slug")]
    club_name: str | None
    status: Annotated[str, _one_of(Tournament.Status)]
    status_label: str
    format: Annotated[str, Doc(choices=FORMAT_CHOICES)]
    format_name: str
    starts_at: datetime | None
    champion: str | None


class ConditionsOutput(TypedDict):
    min_rating: float | None
    max_rating: float | None
    min_rated_games: int
    members_only: bool


class RoundBriefOutput(TypedDict):
    id: int
    number: int
    name: str
    status: Annotated[str, _one_of(Round.Status)]


class EntryOutput(TypedDict):
    id: int
    username: str
    status: Annotated[str, _one_of(Entry.Status)]
    status_label: str
    standing: Annotated[
        str,
        Doc(
            "How the player stands: registered, checked_in, no_show, playing, knocked_out, "
            "withdrawn, disqualified, winner, place (a final place below the winner), cancelled"
        ),
    ]
    standing_label: Annotated[str, Doc('In words: "Knocked out", "2nd place"')]
    seed: int | None
    rating: Annotated[float | None, Doc("In the event's pool at its start")]
    rating_now: Annotated[int, Doc("The player's current rating in the event's pool, rounded")]
    reason: Annotated[str, Doc("Why an organizer withdrew or disqualified them")]
    registered_at: datetime
    checked_in_at: datetime | None


class SeedRowOutput(TypedDict):
    position: Annotated[int, Doc("The seed the start would give (1 is the top seed)")]
    entry: Annotated[int, Doc("The entry's id")]
    username: str
    status: Annotated[str, Doc("registered or checked_in")]
    rating: Annotated[int, Doc("Current rating in the event's pool, rounded")]


class EventOutput(EventSummaryOutput):
    description: str
    ruleset: str
    ruleset_name: str
    overrides: Annotated[dict[str, Any], Doc("Rule fields changed from the rule set")]
    turn_seconds: int
    time_bank_seconds: int
    rated: bool
    table_size: int
    rounds: int | None
    options: Annotated[dict[str, Any], Doc("Format settings")]
    seeding: Annotated[str, Doc(choices=Tournament.Seeding.choices)]
    online: bool
    auto_advance: bool
    paused: bool
    registration_opens_at: datetime | None
    registration_closes_at: datetime | None
    check_in_opens_at: datetime | None
    check_in_closes_at: datetime | None
    started_at: datetime | None
    finished_at: datetime | None
    max_players: int | None
    conditions: ConditionsOutput
    counts: Annotated[dict[str, int], Doc("Entries by status")]
    status_text: Annotated[
        str, Doc('Where the event stands, in words: "Running · Final: running · 2 playing, ...')
    ]
    current_round: RoundBriefOutput | None
    my_entry: Annotated[EntryOutput | None, Doc("Yours, when logged in and entered")]
    is_admin: Annotated[bool, Doc("Whether you organize this event")]


class SeatOutput(TypedDict):
    username: str
    place: int | None
    points: int | None


class RoundTableOutput(TypedDict):
    id: Annotated[int, Doc("The round table's id (for adjudicate)")]
    key: Annotated[str, Doc("The format's name for it: W1-3, GF, T4, final")]
    players: Annotated[list[str], Doc("In seat order")]
    table: Annotated[int | None, Doc("The live game's table id")]
    url: Annotated[str | None, Doc("Where to watch it")]
    playing: Annotated[bool, Doc("Its game is in play")]
    placements: Annotated[dict[str, int] | None, Doc("Place by username")]
    points: Annotated[dict[str, int] | None, Doc("Game points by username")]
    adjudicated: Annotated[str, Doc("An organizer's reason, if they decided it")]
    seats: list[SeatOutput]


class RoundOutput(RoundBriefOutput):
    status_label: str
    started_at: datetime | None
    finished_at: datetime | None
    byes: list[str]
    tables: list[RoundTableOutput]


class StandingOutput(TypedDict):
    rank: int
    entry: int
    username: str
    points: float
    tiebreaks: dict[str, float]
    eliminated: bool


class StandingsOutput(TypedDict):
    round: Annotated[int | None, Doc("As of this finished round")]
    final: bool
    tiebreaks: Annotated[list[str], Doc("In their order of application")]
    rows: list[StandingOutput]


class SlotOutput(TypedDict):
    username: str | None
    seed: int | None
    source: Annotated[str, Doc('"seed 4", "bye", "winner of W1-2", ...')]
    bye: bool
    won: bool
    points: Annotated[int | None, Doc("The player's game points in this match, once played")]


class MatchState(StrEnum):
    """Where a bracket's match stands."""

    BYE = "bye"
    WALKOVER = "walkover"  # a player had left: the other went through without play
    DONE = "done"
    PLAYING = "playing"  # its game is on
    READY = "ready"  # both players known
    WAITING = "waiting"


class MatchOutput(TypedDict):
    key: str
    side: Literal["winners", "losers", "final", "third"]
    round: Annotated[int, Doc("Within its side")]
    slots: list[SlotOutput]
    winner: str | None
    state: Annotated[
        MatchState,
        Doc("walkover: a player had left the event, the other went through without play"),
    ]
    played_in: Annotated[int | None, Doc("The event round")]
    table: int | None
    url: str | None


class ColumnOutput(TypedDict):
    label: str
    matches: list[MatchOutput]


class SideOutput(TypedDict):
    side: str
    label: str
    columns: list[ColumnOutput]


class BracketOutput(TypedDict):
    sides: list[SideOutput]


class AnnouncementOutput(TypedDict):
    id: int
    text: str
    author: str
    created_at: datetime
