"""The games admin: rule sets are edited under the engine's checks; tables are only viewed."""

from collections import Counter
from typing import Any

import pytest
from django.contrib import admin
from django.contrib.admin.utils import flatten_fieldsets
from django.test import Client
from django.utils import timezone

from games.engine.rules import PRESETS
from games.models import (
    RULE_FIELDS,
    FinalizerFailure,
    FinalizerRun,
    GameResult,
    HandResult,
    RuleSet,
    Seat,
    Table,
    TableEvent,
)
from tests.accounts.factories import UserFactory
from tests.games.tables import players, started_table

pytestmark = pytest.mark.django_db

RULESETS = "/admin/games/ruleset/"


@pytest.fixture
def table() -> Table:
    """A finished two-player table with its seats, one log row and its result."""
    ann, bob = UserFactory(username="ann"), UserFactory(username="bob")
    standard = RuleSet.objects.get(slug="standard")
    table = Table.objects.create(
        ruleset=standard, rules=standard.rules_dict(), seats=2, creator=ann, status="finished"
    )
    Seat.objects.create(table=table, user=ann, position=0)
    Seat.objects.create(table=table, user=bob, position=1)
    TableEvent.objects.create(
        table=table, version=1, kind="start", actor=ann, data={"players": ["ann", "bob"]}
    )
    GameResult.objects.create(
        table=table,
        winner="ann",
        ended="target",
        placements=[
            {"player": "ann", "user": ann.pk, "place": 1, "score": 510},
            {"player": "bob", "user": bob.pk, "place": 2, "score": 320},
        ],
        hands=[],
        finished_at=timezone.now(),
    )
    for name, user, net in (("ann", ann, 60), ("bob", bob, -15)):
        HandResult.objects.create(
            table=table, hand=1, player=name, user=user, melded=max(net, 0), in_hand=0, net=net
        )
    FinalizerRun.objects.create(table=table, hook="ratings")
    FinalizerFailure.objects.create(
        table=table, hook="tournaments", attempts=5, error="a reason", failed_at=timezone.now()
    )
    return table


def house_ruleset() -> RuleSet:
    return RuleSet.objects.create(slug="house", name="House rules", target=300)


def form_data(ruleset: RuleSet, **changes: Any) -> dict[str, Any]:
    """What the admin's change form posts for ``ruleset`` with ``changes`` typed in."""
    values = {
        "slug": ruleset.slug,
        "name": ruleset.name,
        "description": ruleset.description,
        **ruleset.rules_dict(),
        "between_hands_seconds": ruleset.between_hands_seconds,
        **changes,
    }
    data = {}
    for name, value in values.items():
        if value is True:
            data[name] = "on"
        elif value is not False:  # an unchecked box is simply not sent
            data[name] = "" if value is None else str(value)
    return data


def form_errors(response: Any) -> dict[str, list[str]]:
    assert response.status_code == 200, response.status_code
    return dict(response.context["adminform"].form.errors)


# --- Rule sets -----------------------------------------------------------------------------------


def test_fieldsets_cover_every_rule_field_exactly_once() -> None:
    model_admin = admin.site.get_model_admin(RuleSet)
    counts = Counter(flatten_fieldsets(model_admin.fieldsets))
    assert {name: counts[name] for name in RULE_FIELDS} == dict.fromkeys(RULE_FIELDS, 1)
    for name in ("slug", "name", "description", "is_preset", "between_hands_seconds"):
        assert counts[name] == 1
    assert set(counts) - set(RULE_FIELDS) == {
        "slug",
        "name",
        "description",
        "is_preset",
        "table_sizes",
        "between_hands_seconds",  # the service's setting, not an engine rule
    }


def test_every_games_model_with_an_admin_is_covered_here() -> None:
    registered = {model for model in admin.site._registry if model._meta.app_label == "games"}
    assert registered == {
        RuleSet,
        Table,
        TableEvent,
        GameResult,
        HandResult,
        FinalizerRun,
        FinalizerFailure,
    }


@pytest.mark.parametrize(
    "url",
    [
        RULESETS,
        f"{RULESETS}?is_preset__exact=1",
        f"{RULESETS}?q=club",
        f"{RULESETS}add/",
        "/admin/games/table/",
        "/admin/games/table/?status__exact=finished",
        "/admin/games/table/?q=bob",
        "/admin/games/tableevent/",
        "/admin/games/tableevent/?kind__exact=start",
        "/admin/games/gameresult/",
        "/admin/games/handresult/",
        "/admin/games/handresult/?went_out__exact=0",
        "/admin/games/finalizerrun/",
        "/admin/games/finalizerrun/?hook=ratings",
        "/admin/games/finalizerfailure/",
        "/admin/games/finalizerfailure/?hook=tournaments",
    ],
)
def test_admin_pages_load(admin_client: Client, table: Table, url: str) -> None:
    assert admin_client.get(url).status_code == 200


def test_change_pages_load(admin_client: Client, table: Table) -> None:
    house = house_ruleset()
    for ruleset in (RuleSet.objects.get(slug="standard"), house):
        assert admin_client.get(f"{RULESETS}{ruleset.pk}/change/").status_code == 200
    html = admin_client.get(f"/admin/games/table/{table.pk}/change/").content.decode()
    assert "ann" in html and "bob" in html  # the seats inline
    event = table.events.get()
    assert admin_client.get(f"/admin/games/tableevent/{event.pk}/change/").status_code == 200
    result = table.result
    assert admin_client.get(f"/admin/games/gameresult/{result.pk}/change/").status_code == 200


def test_change_page_says_which_table_sizes_a_set_deals(admin_client: Client) -> None:
    one_deck = RuleSet.objects.create(slug="one-deck", name="One deck", two_decks_from=9)
    html = admin_client.get(f"{RULESETS}{one_deck.pk}/change/").content.decode()
    assert "2, 3, 4, 5, 6, 7 players" in html


def test_add_form_creates_a_house_set_never_a_preset(admin_client: Client) -> None:
    data = form_data(RuleSet(slug="thursday", name="Thursday", target=250), is_preset=True)
    response = admin_client.post(f"{RULESETS}add/", data)
    assert response.status_code == 302, form_errors(response)
    thursday = RuleSet.objects.get(slug="thursday")
    assert thursday.target == 250
    assert thursday.is_preset is False
    assert thursday.between_hands_seconds == 8


def test_the_break_between_hands_is_set_in_the_admin_from_0_to_120(admin_client: Client) -> None:
    house = house_ruleset()
    url = f"{RULESETS}{house.pk}/change/"
    errors = form_errors(admin_client.post(url, form_data(house, between_hands_seconds=121)))
    assert set(errors) == {"between_hands_seconds"}
    response = admin_client.post(url, form_data(house, between_hands_seconds=0))
    assert response.status_code == 302, form_errors(response)
    house.refresh_from_db()
    assert house.between_hands_seconds == 0
    # Not an engine rule: the rules the engine reads are as they were.
    assert "between_hands_seconds" not in house.rules_dict()


def test_change_form_shows_the_engine_refusal_on_the_field(admin_client: Client) -> None:
    house = house_ruleset()
    response = admin_client.post(
        f"{RULESETS}{house.pk}/change/", form_data(house, jokers_per_deck=5)
    )
    errors = form_errors(response)
    assert set(errors) == {"jokers_per_deck"}
    assert "from 0 to 2" in errors["jokers_per_deck"][0]
    house.refresh_from_db()
    assert house.jokers_per_deck == 2


def test_change_form_refuses_a_set_no_table_can_be_dealt(admin_client: Client) -> None:
    house = house_ruleset()
    # One deck (54 cards) at any table, yet 2 x 30 or 3 x 20 cards and more to deal.
    data = form_data(house, two_decks_from=9, hand_size_two=30, hand_size=20)
    errors = form_errors(admin_client.post(f"{RULESETS}{house.pk}/change/", data))
    assert set(errors) == {"hand_size_two", "hand_size"}
    assert "2 players x 30 cards need 61 cards" in errors["hand_size_two"][0]
    assert "3 players x 20 cards need 61 cards" in errors["hand_size"][0]
    house.refresh_from_db()
    assert (house.hand_size_two, house.hand_size) == (13, 7)


def test_change_form_accepts_a_set_some_tables_can_be_dealt(admin_client: Client) -> None:
    house = house_ruleset()
    data = form_data(house, two_decks_from=9, run_wraps=True)  # one deck: 8 seats cannot deal
    response = admin_client.post(f"{RULESETS}{house.pk}/change/", data)
    assert response.status_code == 302, form_errors(response)
    house.refresh_from_db()
    assert (house.two_decks_from, house.run_wraps) == (9, True)


def test_a_preset_keeps_the_engine_rules_but_its_text_may_change(admin_client: Client) -> None:
    standard = RuleSet.objects.get(slug="standard")
    data = form_data(standard, slug="renamed", jokers_per_deck=0, description="Our default.")
    response = admin_client.post(f"{RULESETS}{standard.pk}/change/", data)
    assert response.status_code == 302, form_errors(response)
    standard.refresh_from_db()
    assert standard.slug == "standard"
    assert standard.description == "Our default."
    assert standard.to_rules() == PRESETS["standard"]
    assert standard.is_preset


def test_a_preset_cannot_be_deleted(admin_client: Client) -> None:
    standard = RuleSet.objects.get(slug="standard")
    change = admin_client.get(f"{RULESETS}{standard.pk}/change/").content.decode()
    assert f"{RULESETS}{standard.pk}/delete/" not in change
    assert admin_client.get(f"{RULESETS}{standard.pk}/delete/").status_code == 403
    assert admin_client.post(f"{RULESETS}{standard.pk}/delete/", {"post": "yes"}).status_code == 403
    # Nor through the changelist's bulk action, even alongside a set that may go.
    selected = {"action": "delete_selected", "_selected_action": [standard.pk, house_ruleset().pk]}
    confirm = admin_client.post(RULESETS, selected).content.decode()
    assert "Cannot delete rule set" in confirm
    assert "preset rule set" in confirm
    assert admin_client.post(RULESETS, {**selected, "post": "yes"}).status_code == 403
    assert RuleSet.objects.filter(slug__in=["standard", "house"]).count() == 2


def test_a_rule_set_in_use_cannot_be_deleted(admin_client: Client, table: Table) -> None:
    house = house_ruleset()
    Table.objects.filter(pk=table.pk).update(ruleset=house)
    url = f"{RULESETS}{house.pk}/delete/"
    page = admin_client.get(url)
    assert page.status_code == 200
    html = page.content.decode()
    assert "would require deleting the following protected related objects" in html
    assert f'href="/admin/games/table/{table.pk}/change/"' in html
    assert admin_client.post(url, {"post": "yes"}).status_code == 200
    assert RuleSet.objects.filter(pk=house.pk).exists()


def test_an_unused_house_set_can_be_deleted(admin_client: Client) -> None:
    house = house_ruleset()
    response = admin_client.post(f"{RULESETS}{house.pk}/delete/", {"post": "yes"})
    assert response.status_code == 302
    assert not RuleSet.objects.filter(pk=house.pk).exists()


# --- Tables, their log and results: view only ----------------------------------------------------


@pytest.mark.parametrize(
    "model", ["table", "tableevent", "gameresult", "handresult", "finalizerrun"]
)
def test_read_only_admins_refuse_add_change_and_delete(
    admin_client: Client, table: Table, model: str
) -> None:
    pk = {
        "table": table.pk,
        "tableevent": table.events.get().pk,
        "gameresult": table.result.pk,
        "handresult": table.hand_results.first().pk,
        "finalizerrun": table.finalizer_runs.get().pk,
    }
    base = f"/admin/games/{model}/"
    assert admin_client.get(f"{base}add/").status_code == 403
    assert admin_client.post(f"{base}add/", {}).status_code == 403
    assert admin_client.post(f"{base}{pk[model]}/change/", {}).status_code == 403
    assert admin_client.get(f"{base}{pk[model]}/delete/").status_code == 403
    changelist = admin_client.get(base).content.decode()
    assert f"{base}add/" not in changelist
    assert Table.objects.filter(pk=table.pk, status="finished").exists()
    assert TableEvent.objects.filter(table=table).count() == 1
    assert GameResult.objects.filter(table=table).count() == 1


def test_table_change_page_is_a_view_with_nothing_to_save(
    admin_client: Client, table: Table
) -> None:
    html = admin_client.get(f"/admin/games/table/{table.pk}/change/").content.decode()
    assert 'name="_save"' not in html
    assert 'name="status"' not in html  # shown, not an input
    assert 'name="seat_set-0-user"' not in html


# --- Tables: pause and resume through the clock services ------------------------------------------


def _table_action(admin_client: Client, action: str, *tables: Table) -> list[str]:
    """Run ``action`` on ``tables`` from the changelist; the messages shown after it."""
    data = {"action": action, "_selected_action": [t.pk for t in tables]}
    response = admin_client.post("/admin/games/table/", data, follow=True)
    assert response.status_code == 200
    return [str(m) for m in response.context["messages"]]


def test_pause_and_resume_actions_call_the_services(admin_client: Client, table: Table) -> None:
    ann, bob = players("cy", "dee")
    playing = started_table([ann, bob])
    said = _table_action(admin_client, "pause_tables", playing, table)
    playing.refresh_from_db()
    assert playing.paused_at is not None and playing.paused_by is not None
    assert playing.paused_by.is_staff
    # The finished table is refused on its own line; the other is paused all the same.
    assert said == [
        f"Table {table.pk}: only a game in play can be paused or resumed",
        "Paused 1 table.",
    ]
    changelist = admin_client.get("/admin/games/table/").content.decode()
    assert "Pause selected tables" in changelist and "Resume selected tables" in changelist

    said = _table_action(admin_client, "resume_tables", playing)
    playing.refresh_from_db()
    assert playing.paused_at is None and said == ["Resumed 1 table."]


def test_an_action_every_table_refuses_reports_each(admin_client: Client, table: Table) -> None:
    waiting = Table.objects.create(
        ruleset=table.ruleset, rules=table.rules, seats=2, creator=table.creator
    )
    said = _table_action(admin_client, "resume_tables", table, waiting)
    refusal = "only a game in play can be paused or resumed"
    assert said == [f"Table {table.pk}: {refusal}", f"Table {waiting.pk}: {refusal}"]


def test_table_change_page_shows_the_clock(admin_client: Client) -> None:
    ann, bob = players("cy", "dee")
    playing = started_table([ann, bob], overrides={"time_bank_seconds": 45})
    _table_action(admin_client, "pause_tables", playing)
    html = admin_client.get(f"/admin/games/table/{playing.pk}/change/").content.decode()
    for label in ("Paused at", "Paused by", "Time bank seconds", "Banks", "Turn started at"):
        assert label in html
    assert "45000" in html  # each player's bank, in milliseconds
