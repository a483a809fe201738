"""``python manage.py simulate_event --format F --players N --table-size S [--rounds R]
[--target T] [--seed X] [--json]``: a whole event played by bots through the real services.

A demo (``--target 100`` finishes in seconds) and an end-to-end check of tables, the engine,
finalization, ratings and advancement. See ``tournaments.simulation``.
"""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from config.errors import ServiceError
from tournaments.models import FORMAT_CHOICES
from tournaments.simulation import Plan, simulate, summary

SLUGS = [slug for slug, _ in FORMAT_CHOICES]


class Command(BaseCommand):
    help = (
        "Create bot players and run a whole event with them through the real services. "
        f"Formats: {', '.join(SLUGS)}."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--format", required=True, choices=SLUGS, help="The event's format.")
        parser.add_argument("--players", type=int, required=True, help="How many bots enter.")
        parser.add_argument(
            "--table-size", type=int, default=2, help="Seats per table, 2 to 8 (default 2)."
        )
        parser.add_argument("--rounds", type=int, help="Rounds, for the Swiss formats.")
        parser.add_argument(
            "--target", type=int, help="Override the rule set's target (e.g. 100 for a demo)."
        )
        parser.add_argument("--seed", type=int, default=0, help="Seeds the bots (default 0).")
        parser.add_argument("--json", action="store_true", help="Print one JSON object.")

    def handle(self, *args: Any, **options: Any) -> None:
        if options["players"] < 2:
            raise CommandError("--players: an event needs at least 2 players")
        plan = Plan(
            format=options["format"],
            players=options["players"],
            table_size=options["table_size"],
            rounds=options["rounds"],
            target=options["target"],
            seed=options["seed"],
        )
        try:
            event = simulate(plan)
        except ServiceError as exc:
            raise CommandError(exc.message) from None
        result = summary(event)
        if options["json"]:
            self.stdout.write(json.dumps(result))
            return
        self._print(result)

    def _print(self, result: dict[str, Any]) -> None:
        for played in result["rounds"]:
            self.stdout.write(f"Round {played['number']}: {len(played['tables'])} tables")
        self.stdout.write("Standings:")
        for row in result["standings"][:10]:
            self.stdout.write(f"  {row['rank']:>3}. {row['username']:<16} {row['points']}")
        self.stdout.write(self.style.SUCCESS(f"Champion: {result['champion']}"))
