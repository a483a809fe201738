"""Rebuild ratings from the finished games: ``python manage.py ratings_recompute [--pool P]``.

It replays the ledger of rated games in its order (new finished rated games join it first, in
the order they finished) and produces exactly the ratings the finalization hook produced. Use it
after restoring a backup, after changing the rating constants, or to check the stored ratings.
"""

from __future__ import annotations

import json as jsonlib
import time
from dataclasses import asdict
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from ratings.audit import ratings_check
from ratings.recompute import ratings_recompute


class Command(BaseCommand):
    help = "Rebuild every rating (or one pool's) from the finished games, in the order rated."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--pool",
            help="Only this pool: global, ruleset:<preset slug> or club:<club slug>.",
        )
        parser.add_argument("--json", action="store_true", help="Print the summary as JSON.")
        parser.add_argument(
            "--check",
            action="store_true",
            help="Change nothing: rebuild, compare with the stored ratings, report, roll back "
            "(exit status 1 if they differ).",
        )

    def handle(self, *args: Any, pool: str | None, **options: Any) -> None:
        if options["check"]:
            self._check(pool, as_json=options["json"])
            return
        started = time.perf_counter()
        try:
            summary = ratings_recompute(pool)
        except ValueError as exc:
            raise CommandError(str(exc)) from None
        seconds = time.perf_counter() - started
        figures = {**asdict(summary), "seconds": round(seconds, 3)}
        if options["json"]:
            self.stdout.write(_dumps(figures))
            return
        rate = summary.games / seconds if seconds else 0.0
        self.stdout.write(
            self.style.SUCCESS(
                f"Recomputed {summary.games} games ({summary.counted} rated, "
                f"{summary.added_to_ledger} new to the ledger): {summary.changes} rating changes, "
                f"{summary.players} ratings in {', '.join(summary.pools) or 'no pool'}, "
                f"in {seconds:.2f} s ({rate:.0f} games/s)."
            )
        )

    def _check(self, pool: str | None, *, as_json: bool) -> None:
        try:
            found = ratings_check(pool)
        except ValueError as exc:
            raise CommandError(str(exc)) from None
        if as_json:
            self.stdout.write(_dumps(asdict(found)))
        elif found.equal:
            self.stdout.write(self.style.SUCCESS("The stored ratings equal a rebuild."))
        else:
            rows = ", ".join(f"{kind} {n}" for kind, n in found.differences.items() if n)
            self.stdout.write(
                f"The stored ratings differ from a rebuild (rows differing: {rows}; finished "
                f"games never rated: {found.unrated_games}). "
                "Run ratings_recompute without --check to rebuild them."
            )
        if not found.equal:
            raise CommandError("ratings differ from a rebuild", returncode=1)


def _dumps(figures: dict[str, Any]) -> str:
    return jsonlib.dumps(figures, sort_keys=True)
