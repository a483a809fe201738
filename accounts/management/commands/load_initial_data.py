"""Load the initial data each app ships, such as the games app's rule presets.

An app ships initial data as fixtures named `initial_*.json` in its `fixtures/` folder. Fixtures
carry primary keys, so loading again updates the same rows instead of adding copies: `make run`
can call this on every start.
"""

from pathlib import Path
from typing import Any

from django.apps import apps
from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand


def initial_fixtures() -> list[Path]:
    """Every `fixtures/initial_*.json` of the project's own apps, in app order."""
    project = Path(settings.BASE_DIR).resolve()
    found: list[Path] = []
    for config in apps.get_app_configs():
        app_dir = Path(config.path).resolve()
        if app_dir.is_relative_to(project):
            found.extend(sorted((app_dir / "fixtures").glob("initial_*.json")))
    return found


class Command(BaseCommand):
    help = "Load every app's fixtures/initial_*.json (safe to repeat)."

    def handle(self, *args: Any, **options: Any) -> None:
        fixtures = initial_fixtures()
        if fixtures:
            call_command("loaddata", *map(str, fixtures), verbosity=options["verbosity"])
        self.stdout.write(f"Initial data: {len(fixtures)} fixture file(s) loaded.")
