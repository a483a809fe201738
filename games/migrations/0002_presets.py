"""The six presets of RULES.md as rule sets, their values read from the engine's PRESETS.

The engine is a pure library (no Django), so importing it here is safe. Every field is copied
from the engine's ``Rules`` rather than listed from the model: a rule field the model lacks
fails this migration loudly instead of leaving a preset that differs from the engine's.
"""

from dataclasses import fields

from django.db import migrations

from games.engine.rules import PRESETS, Rules

# slug: (name, one-line description). The slugs are the engine's preset names.
PRESET_TEXT = {
    "standard": (
        "Standard",
        "The classic game to 500: one deck up to four players, two jokers per deck.",
    ),
    "no-jokers": ("No jokers", "Standard rules played without jokers."),
    "five-ten-fifteen": (
        "Five-ten-fifteen",
        "Standard rules with five-ten scoring: 2 to 9 score 5, tens and faces 10, aces 15.",
    ),
    "six-deal": (
        "Six-deal",
        "No jokers, and six cards each at tables of five or more players.",
    ),
    "reshuffle-classic": (
        "Reshuffle classic",
        "No jokers, low-five/high-ten scoring, two decks from six players, and the discard pile "
        "reshuffled when the stock runs out.",
    ),
    "strict-club": (
        "Strict club",
        'Going out needs a discard, a taken top discard must be melded, and "Rummy!" may be called.',
    ),
}


def create_presets(apps, schema_editor):
    RuleSet = apps.get_model("games", "RuleSet")
    for slug, rules in PRESETS.items():
        name, description = PRESET_TEXT[slug]
        values = {f.name: getattr(rules, f.name) for f in fields(Rules)}
        RuleSet.objects.update_or_create(
            slug=slug,
            defaults={"name": name, "description": description, "is_preset": True, **values},
        )


def delete_presets(apps, schema_editor):
    # A preset some table uses is protected (on_delete=PROTECT): then the reverse fails.
    RuleSet = apps.get_model("games", "RuleSet")
    RuleSet.objects.filter(is_preset=True, slug__in=list(PRESETS)).delete()


class Migration(migrations.Migration):
    dependencies = [("games", "0001_tables")]

    operations = [migrations.RunPython(create_presets, delete_presets)]
