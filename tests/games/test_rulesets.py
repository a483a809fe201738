"""Rule sets: the preset migration, the model's checks, the public pages and the API."""

import importlib
import re
from typing import Any

import pytest
import yaml
from django.apps import apps
from django.core.exceptions import ValidationError
from django.test import Client
from django.utils.html import escape

from games.engine.errors import ConfigError
from games.engine.rules import PRESETS, Rules
from games.engine.summary import rules_summary
from games.models import RULE_FIELDS, RuleSet

pytestmark = pytest.mark.django_db

PRESET_NAMES = {
    "standard": "Standard",
    "no-jokers": "No jokers",
    "five-ten-fifteen": "Five-ten-fifteen",
    "six-deal": "Six-deal",
    "reshuffle-classic": "Reshuffle classic",
    "strict-club": "Strict club",
}


def custom_ruleset(**fields: Any) -> RuleSet:
    """A saved, non-preset rule set that passed the model's checks."""
    ruleset = RuleSet(**{"slug": "house", "name": "House rules", **fields})
    ruleset.full_clean()
    ruleset.save()
    return ruleset


# --- The presets migration -----------------------------------------------------------------------


def test_the_six_presets_exist_after_migrating() -> None:
    presets = RuleSet.objects.filter(is_preset=True)
    assert {r.slug: r.name for r in presets} == PRESET_NAMES
    assert set(PRESET_NAMES) == set(PRESETS)
    assert all(r.description for r in presets)


@pytest.mark.parametrize("slug", list(PRESETS))
def test_each_preset_equals_the_engine_preset(slug: str) -> None:
    ruleset = RuleSet.objects.get(slug=slug)
    assert ruleset.to_rules() == PRESETS[slug]
    assert ruleset.rules_dict() == PRESETS[slug].to_dict()
    ruleset.full_clean()


def test_the_migration_functions_recreate_and_remove_exactly_the_presets() -> None:
    migration = importlib.import_module("games.migrations.0002_presets")
    custom_ruleset()
    migration.delete_presets(apps, None)
    assert list(RuleSet.objects.values_list("slug", flat=True)) == ["house"]
    migration.create_presets(apps, None)
    migration.create_presets(apps, None)  # running twice changes nothing
    assert RuleSet.objects.count() == len(PRESETS) + 1
    for slug, rules in PRESETS.items():
        assert RuleSet.objects.get(slug=slug).to_rules() == rules


# --- The model -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("field", "value"),
    [("jokers_per_deck", 3), ("values", "bogus"), ("min_naturals", 4), ("target", 0)],
)
def test_clean_names_the_field_at_fault(field: str, value: Any) -> None:
    ruleset = RuleSet(slug="bad", name="Bad", **{field: value})
    with pytest.raises(ValidationError) as caught:
        ruleset.clean()
    assert set(caught.value.message_dict) == {field}
    assert str(value) in caught.value.message_dict[field][0]


def test_clean_accepts_a_playable_house_configuration() -> None:
    ruleset = custom_ruleset(values="five_ten", run_wraps=True, target=300, hand_size_five_plus=6)
    assert ruleset.to_rules() == Rules(
        values="five_ten", run_wraps=True, target=300, hand_size_five_plus=6
    )


def test_to_rules_applies_overrides_and_leaves_the_rest() -> None:
    strict = RuleSet.objects.get(slug="strict-club")
    rules = strict.to_rules({"target": 300, "turn_seconds": 20})
    assert (rules.target, rules.turn_seconds) == (300, 20)
    assert rules.rummy_call and rules.must_discard_to_go_out
    assert strict.to_rules() == PRESETS["strict-club"]  # the row itself is untouched


@pytest.mark.parametrize(
    ("overrides", "field"),
    [({"jokers_per_deck": 3}, "jokers_per_deck"), ({"colour": "red"}, "colour")],
)
def test_to_rules_refuses_a_bad_override_naming_it(overrides: dict[str, Any], field: str) -> None:
    with pytest.raises(ConfigError) as caught:
        RuleSet.objects.get(slug="standard").to_rules(overrides)
    assert caught.value.field == field


# --- The pages -----------------------------------------------------------------------------------


def test_list_page_shows_every_rule_set_without_login() -> None:
    custom_ruleset(description="Played on Thursdays.")
    response = Client().get("/rules/")
    assert response.status_code == 200
    html = response.content.decode()
    for ruleset in RuleSet.objects.all():
        assert f'href="/rules/{ruleset.slug}/"' in html
        assert escape(ruleset.name) in html
        assert escape(ruleset.description) in html
    assert html.count("(preset)") == len(PRESETS)
    # Presets first, then the others.
    assert html.index("Strict club") < html.index("House rules")


def test_detail_page_gives_the_summary_and_every_field() -> None:
    ruleset = RuleSet.objects.get(slug="strict-club")
    response = Client().get("/rules/strict-club/")
    assert response.status_code == 200
    html = response.content.decode()
    assert "<h1>Strict club" in html
    assert escape(ruleset.description) in html
    summary = rules_summary(ruleset.to_rules())
    assert "Going out needs a final discard." in summary
    for sentence in summary:
        assert f"<li>{escape(sentence)}</li>" in html
    for name in RULE_FIELDS:
        assert f"<code>{name}</code>" in html
        assert escape(RuleSet._meta.get_field(name).help_text) in html
    rows = dict(re.findall(r"<code>(\w+)</code></th>\s*<td>([^<]*)</td>", html))
    assert set(rows) == {*RULE_FIELDS, "between_hands_seconds"}
    assert rows["between_hands_seconds"] == "8"
    assert rows["rummy_call"] == "Yes"
    assert rows["run_wraps"] == "No"
    assert rows["target"] == "500"
    assert rows["values"] == "Face value (pip)"
    assert rows["hand_size_five_plus"] == "Not set"


def test_detail_page_of_a_house_set_describes_its_own_rules() -> None:
    custom_ruleset(jokers_per_deck=0, target=250)
    html = Client().get("/rules/house/").content.decode()
    assert "(preset)" not in html
    assert "The game is played to 250 points" in html
    assert "with 0 jokers per deck" in html


def test_detail_page_of_an_unknown_slug_is_404() -> None:
    assert Client().get("/rules/no-such-rules/").status_code == 404


def test_every_page_links_to_the_rules() -> None:
    assert 'href="/rules/"' in Client().get("/").content.decode()


# --- The API -------------------------------------------------------------------------------------


def check_ruleset_json(item: dict[str, Any], ruleset: RuleSet) -> None:
    assert item["slug"] == ruleset.slug
    assert item["name"] == ruleset.name
    assert item["description"] == ruleset.description
    assert item["preset"] is ruleset.is_preset
    assert item["summary"] == rules_summary(ruleset.to_rules())
    assert item["url"] == f"http://testserver/rules/{ruleset.slug}/"
    assert list(item["rules"]) == list(RULE_FIELDS)
    assert Rules.from_dict(item["rules"]) == ruleset.to_rules()


def test_list_api_gives_every_rule_set_presets_first() -> None:
    # Alphabetically first, yet listed after the presets.
    custom_ruleset(slug="aardvark", name="Aardvark", hand_size_five_plus=5)
    response = Client().get("/api/rulesets/")
    assert response.status_code == 200
    body = response.json()
    assert [item["slug"] for item in body[: len(PRESETS)]] == sorted(
        PRESETS, key=lambda slug: PRESET_NAMES[slug]
    )
    assert body[-1]["slug"] == "aardvark"
    for item in body:
        check_ruleset_json(item, RuleSet.objects.get(slug=item["slug"]))
    assert body[-1]["rules"]["hand_size_five_plus"] == 5
    assert body[-1]["preset"] is False


@pytest.mark.parametrize("slug", list(PRESETS))
def test_detail_api_gives_the_engine_preset(slug: str) -> None:
    response = Client().get(f"/api/rulesets/{slug}/")
    assert response.status_code == 200
    body = response.json()
    check_ruleset_json(body, RuleSet.objects.get(slug=slug))
    assert body["rules"] == PRESETS[slug].to_dict()
    assert body["preset"] is True


def test_detail_api_of_an_unknown_slug_is_a_404_error() -> None:
    response = Client().get("/api/rulesets/no-such-rules/")
    assert response.status_code == 404
    body = response.json()
    assert body["error"] == "not_found"
    assert "no-such-rules" in body["message"]


def test_rulesets_api_is_read_only() -> None:
    response = Client().post("/api/rulesets/", {}, content_type="application/json")
    assert response.status_code == 405
    assert response.json()["error"] == "method_not_allowed"


def test_schema_documents_the_rulesets_api() -> None:
    schema = yaml.safe_load(Client().get("/api/schema/").content)
    detail = schema["paths"]["/api/rulesets/{slug}/"]["get"]
    assert set(detail["responses"]) == {"200", "404"}
    assert "/api/rulesets/" in schema["paths"]
    components = schema["components"]["schemas"]
    assert {"slug", "name", "rules", "preset", "summary", "url"} <= set(
        components["RuleSetOutput"]["properties"]
    )
    assert set(components["RulesOutput"]["properties"]) == set(RULE_FIELDS)
