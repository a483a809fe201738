"""The lobby's create-table form: a rule set, seats, the clock, time bank and break between
hands, rated, a club (one of the creator's), and rule overrides."""

from __future__ import annotations

from typing import Any

from django import forms

from accounts.models import Club
from games.engine.rules import MAX_PLAYERS, MIN_PLAYERS, TARGET_MAX
from games.models import BETWEEN_HANDS_SECONDS_MAX, RuleSet, Table
from games.services import TIME_BANK_SECONDS_MAX, TURN_SECONDS_MAX

# The overrides the form offers; any other field can be overridden through the API.
OVERRIDABLE = ("target", "jokers_per_deck", "stock_out", "rummy_call", "must_discard_to_go_out")
# A house-rule switch: empty keeps the rule set's choice (NullBooleanField reads "true"/"false").
_AS_RULESET = [("", "As the rule set says"), ("true", "Yes"), ("false", "No")]


class TableForm(forms.Form):
    ruleset = forms.ModelChoiceField(
        queryset=RuleSet.objects.all(), to_field_name="slug", empty_label=None, initial="standard"
    )
    seats = forms.TypedChoiceField(
        choices=[(n, n) for n in range(MIN_PLAYERS, MAX_PLAYERS + 1)], coerce=int, initial=4
    )
    turn_seconds = forms.IntegerField(
        min_value=1, max_value=TURN_SECONDS_MAX, initial=60, help_text="Seconds per turn."
    )
    time_bank_seconds = forms.IntegerField(
        min_value=0,
        max_value=TIME_BANK_SECONDS_MAX,
        required=False,
        help_text="Extra seconds per player for the whole game, used once a turn's time is up. "
        "Leave empty for the rule set's time bank.",
    )
    between_hands_seconds = forms.IntegerField(
        min_value=0,
        max_value=BETWEEN_HANDS_SECONDS_MAX,
        required=False,
        label="Break between hands",
        help_text="Seconds between hands to read the hand's summary, no clock running; 0 for "
        "none. Leave empty for the rule set's break.",
    )
    rated = forms.BooleanField(required=False, initial=True)
    club = forms.ModelChoiceField(
        queryset=Club.objects.none(),
        to_field_name="slug",
        required=False,
        empty_label="No club: open to everyone",
        help_text="A club's table seats only its members; a rated result also counts on the "
        "club's leaderboard.",
    )
    target = forms.IntegerField(
        min_value=1,
        max_value=TARGET_MAX,
        required=False,
        help_text="Leave empty for the rule set's target.",
    )
    jokers_per_deck = forms.IntegerField(min_value=0, max_value=2, required=False)
    stock_out = forms.ChoiceField(
        choices=[("", "As the rule set says"), *RuleSet.StockOut.choices], required=False
    )
    rummy_call = forms.NullBooleanField(required=False, widget=forms.Select(choices=_AS_RULESET))
    must_discard_to_go_out = forms.NullBooleanField(
        required=False, widget=forms.Select(choices=_AS_RULESET)
    )

    def __init__(self, *args: Any, user: Any = None, **kwargs: Any) -> None:
        """``user``'s clubs are the club choices; without any, the form has no club field."""
        super().__init__(*args, **kwargs)
        clubs = Club.objects.none()
        if user is not None and user.is_authenticated:
            clubs = Club.objects.filter(memberships__user=user)
        if clubs.exists():
            club = self.fields["club"]
            assert isinstance(club, forms.ModelChoiceField)
            club.queryset = clubs
        else:
            del self.fields["club"]

    def overrides(self) -> dict[str, Any]:
        """The override fields the player filled in."""
        data = self.cleaned_data
        return {k: data[k] for k in OVERRIDABLE if data.get(k) not in (None, "")}


class LobbyFilterForm(forms.Form):
    """The lobby's filters (``games.listing.table_filter`` reads the same names): rule set,
    seats, club, rated; empty is any. Only rendered: the query is read by ``table_filter``."""

    ruleset = forms.ChoiceField(required=False, label="Rule set")
    seats = forms.ChoiceField(
        required=False,
        choices=[("", "Any"), *[(str(n), str(n)) for n in range(MIN_PLAYERS, MAX_PLAYERS + 1)]],
    )
    club = forms.ChoiceField(required=False)
    rated = forms.ChoiceField(
        required=False, choices=[("", "Any"), ("true", "Rated"), ("false", "Unrated")]
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("auto_id", "filter_%s")  # apart from the create form's ids
        super().__init__(*args, **kwargs)
        rulesets = RuleSet.objects.values_list("slug", "name")
        self.fields["ruleset"].choices = [("", "Any"), *rulesets]  # type: ignore[attr-defined]
        # The clubs with a table to join or watch: a choice that would list nothing is no help.
        live = Table.objects.filter(status__in=(Table.Status.WAITING, Table.Status.PLAYING))
        clubs = (
            Club.objects.filter(tables__in=live)
            .distinct()
            .order_by("name")
            .values_list("slug", "name")
        )
        if clubs:
            self.fields["club"].choices = [("", "Any"), *clubs]  # type: ignore[attr-defined]
        else:
            del self.fields["club"]
