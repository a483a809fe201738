"""The event pages' forms: creating an event (``/events/new/``), and reading the organizer tools'
small forms (a place per player, a seating written one table per line)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django import forms

from accounts.models import Club
from config.errors import ServiceError
from games.engine.rules import MAX_PLAYERS, MIN_PLAYERS, TARGET_MAX
from games.models import RuleSet
from tournaments.errors import EventError
from tournaments.formats import Settings
from tournaments.limits import (
    DESCRIPTION_MAX,
    NAME_MAX,
    PLAYERS_MAX,
    RATED_GAMES_MAX,
    RATING_BOUND,
    TURN_SECONDS_MAX,
    whole_number,
)
from tournaments.models import FORMAT_CHOICES, Tournament
from tournaments.payloads import RoundTableOutput

_WHEN = forms.DateTimeInput(attrs={"type": "datetime-local"}, format="%Y-%m-%dT%H:%M")
_DEFAULTS = Settings()
# The format options the form offers, each as the ``Settings`` field it sets.
OPTION_FIELDS = ("third_place", "grand_final_reset", "double_round", "advance", "min_table")
# The options each format reads (the formats' modules say how): the others are left out.
FORMAT_OPTIONS = {
    "single_elimination": ("third_place",),
    "double_elimination": ("grand_final_reset",),
    "round_robin": ("double_round", "min_table", "placement_points"),
    "swiss": (),
    "multi_table_elimination": ("advance", "min_table"),
    "swiss_tables": ("min_table", "placement_points"),
}
#: The format's own fields: the options it reads, and ``rounds`` for the Swiss formats. The
#: create form shows only the chosen format's (``static/js/event_form.js``; without JS it shows
#: them all, saying whose they are) and the server ignores the others.
FORMAT_FIELDS = {
    name: (*options, *(("rounds",) if name in ("swiss", "swiss_tables") else ()))
    for name, options in FORMAT_OPTIONS.items()
}
WINDOWS = (
    "registration_opens_at",
    "registration_closes_at",
    "check_in_opens_at",
    "check_in_closes_at",
    "starts_at",
)
PLAIN = (
    "description",
    "turn_seconds",
    "time_bank_seconds",
    "rated",
    "table_size",
    "rounds",
    "seeding",
    "online",
    "auto_advance",
    "max_players",
    "min_rating",
    "max_rating",
    "min_rated_games",
    "members_only",
    *WINDOWS,
)


def _when(label: str) -> forms.DateTimeField:
    return forms.DateTimeField(label=label, required=False, widget=_WHEN, help_text="UTC")


class EventForm(forms.Form):
    """A new event, in draft; ``event_create`` checks the settings together."""

    name = forms.CharField(max_length=NAME_MAX)
    description = forms.CharField(
        max_length=DESCRIPTION_MAX, widget=forms.Textarea(attrs={"rows": 3}), required=False
    )
    club = forms.ModelChoiceField(
        queryset=Club.objects.none(), to_field_name="slug", required=False
    )
    ruleset = forms.ModelChoiceField(
        queryset=RuleSet.objects.all(), to_field_name="slug", empty_label=None, initial="standard"
    )
    target = forms.IntegerField(
        min_value=1,
        max_value=TARGET_MAX,
        required=False,
        help_text="Leave empty for the rule set's target.",
    )
    turn_seconds = forms.IntegerField(min_value=1, max_value=TURN_SECONDS_MAX, initial=60)
    time_bank_seconds = forms.IntegerField(min_value=0, max_value=TURN_SECONDS_MAX, initial=0)
    rated = forms.BooleanField(required=False, initial=True)
    format = forms.ChoiceField(choices=FORMAT_CHOICES)
    table_size = forms.TypedChoiceField(
        choices=[(n, n) for n in range(MIN_PLAYERS, MAX_PLAYERS + 1)], coerce=int, initial=2
    )
    rounds = forms.IntegerField(
        min_value=1, max_value=99, required=False, help_text="Swiss formats; empty: the default."
    )
    third_place = forms.BooleanField(
        required=False, help_text="Single elimination: play a third-place match."
    )
    grand_final_reset = forms.BooleanField(
        required=False, initial=True, help_text="Double elimination: a second final if needed."
    )
    double_round = forms.BooleanField(
        required=False, help_text="Round robin: play the schedule twice."
    )
    advance = forms.IntegerField(
        min_value=1,
        max_value=PLAYERS_MAX,
        required=False,
        help_text="Multi-table elimination: the top K go on.",
    )
    min_table = forms.IntegerField(
        min_value=2,
        max_value=MAX_PLAYERS,
        required=False,
        help_text="Round robin, multi-table elimination, Swiss tables: the smallest table.",
    )
    placement_points = forms.CharField(
        max_length=200,
        required=False,
        help_text="Round robin, Swiss tables: points by place at a table, e.g. 4, 2, 1, 0.",
    )
    seeding = forms.ChoiceField(choices=Tournament.Seeding.choices, initial="rating")
    auto_advance = forms.BooleanField(
        required=False, initial=True, help_text="Start each next round by itself."
    )
    online = forms.BooleanField(
        required=False, initial=True, help_text="Off: played face to face, results entered here."
    )
    registration_opens_at = _when("Registration opens")
    registration_closes_at = _when("Registration closes")
    check_in_opens_at = _when("Check-in opens")
    check_in_closes_at = _when("Check-in closes")
    starts_at = _when("Starts")
    max_players = forms.IntegerField(min_value=2, max_value=PLAYERS_MAX, required=False)
    min_rating = forms.FloatField(min_value=-RATING_BOUND, max_value=RATING_BOUND, required=False)
    max_rating = forms.FloatField(min_value=-RATING_BOUND, max_value=RATING_BOUND, required=False)
    min_rated_games = forms.IntegerField(min_value=0, max_value=RATED_GAMES_MAX, initial=0)
    members_only = forms.BooleanField(required=False, help_text="Only the club's members enter.")

    def __init__(self, *args: Any, clubs: Any = None, staff: bool = False, **kwargs: Any) -> None:
        """``clubs``: those the creator organizes; only staff may leave the club empty."""
        super().__init__(*args, **kwargs)
        field = self.fields["club"]
        assert isinstance(field, forms.ModelChoiceField)
        field.queryset = clubs if clubs is not None else Club.objects.none()
        field.required = not staff
        field.empty_label = "No club" if staff else None

    def rows(self) -> list[tuple[Any, str]]:
        """Each field with the formats it belongs to (space-separated; empty: every format)."""
        owners = {
            field: " ".join(f for f, names in FORMAT_FIELDS.items() if field in names)
            for field in {n for names in FORMAT_FIELDS.values() for n in names}
        }
        return [(self[name], owners.get(name, "")) for name in self.fields]

    def clean_placement_points(self) -> tuple[int, ...] | None:
        text = self.cleaned_data.get("placement_points", "").strip()
        if not text:
            return None
        try:
            return tuple(int(p) for p in text.replace(" ", "").split(","))
        except ValueError:
            raise forms.ValidationError("Whole numbers separated by commas.") from None

    def service_fields(self) -> dict[str, Any]:
        """The keyword arguments of ``event_create`` besides name and format."""
        data = self.cleaned_data
        fields = {name: data[name] for name in PLAIN}
        if "rounds" not in FORMAT_FIELDS.get(data["format"], ()):
            fields["rounds"] = None  # another format's field, left as it was typed
        fields["ruleset"] = data["ruleset"]
        fields["club"] = data.get("club")
        fields["overrides"] = {"target": data["target"]} if data.get("target") else {}
        fields["min_rated_games"] = data["min_rated_games"] or 0
        fields["options"] = self.options()
        return fields

    def options(self) -> dict[str, Any]:
        """The options the chosen format reads, where they differ from the defaults."""
        data = self.cleaned_data
        chosen = {n: data[n] for n in OPTION_FIELDS if data.get(n) not in (None, "")}
        if data.get("placement_points"):
            chosen["placement_points"] = list(data["placement_points"])
        defaults = {n: getattr(_DEFAULTS, n) for n in (*OPTION_FIELDS, "placement_points")}
        defaults["placement_points"] = list(defaults["placement_points"])
        read = FORMAT_OPTIONS.get(data["format"], ())
        return {n: v for n, v in chosen.items() if n in read and v != defaults[n]}

    def refused(self, exc: ServiceError) -> None:
        """Show a service's refusal on the field it names (``"turn_seconds: ..."``)."""
        field, _, rest = exc.message.partition(": ")
        if field in self.fields and rest:
            self.add_error(field, rest)
        else:
            self.add_error(None, exc.message)


def parse_places(post: Mapping[str, str], players: list[str]) -> dict[str, int]:
    """The adjudicate form's ``place-<i>`` fields, one per player in seat order.

    :raises EventError: ``bad_request`` for a place missing or not a whole number from 1.
    """
    places: dict[str, int] = {}
    for i, name in enumerate(players):
        place = whole_number(post.get(f"place-{i}"), high=len(players))
        if not place:
            raise EventError(
                "bad_request", f"give {name} a place: a whole number from 1 to {len(players)}"
            )
        places[name] = place
    return places


def parse_seating(text: str, entry_ids: Mapping[str, int]) -> list[list[int]]:
    """A seating written one table per line, usernames separated by commas, as entry ids.

    :raises EventError: ``bad_request`` naming a player who is not in the event.
    """
    tables: list[list[int]] = []
    for line in text.splitlines():
        names = [n.strip() for n in line.split(",") if n.strip()]
        if not names:
            continue
        unknown = [n for n in names if n not in entry_ids]
        if unknown:
            raise EventError("bad_request", f"not in this event: {', '.join(unknown)}")
        tables.append([entry_ids[n] for n in names])
    if not tables:
        raise EventError("bad_request", "write one table per line, usernames separated by commas")
    return tables


def seating_text(tables: list[RoundTableOutput]) -> str:
    """A round's tables as the re-seat form shows them."""
    return "\n".join(", ".join(t["players"]) for t in tables)
