"""Replay every table's log and compare: ``python manage.py tables_verify [--table ID] [--json]``.

Exit status 0 when every table matches its log, 1 when any does not (each mismatch is printed).
See ``games.verify`` for what is checked and docs/backup.md for when to run it.
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from games.models import Table
from games.verify import verify_tables


class Command(BaseCommand):
    help = "Replay every table's log and report any table whose snapshot or results differ."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--table", type=int, action="append", help="Only this table (may be repeated)."
        )
        parser.add_argument("--json", action="store_true", help="Print the findings as JSON.")

    def handle(self, *args: Any, table: list[int] | None, **options: Any) -> None:
        chosen = None
        if table:
            chosen = list(Table.objects.filter(pk__in=table).order_by("pk"))
            unknown = sorted(set(table) - {t.pk for t in chosen})
            if unknown:
                raise CommandError(f"no table {', '.join(map(str, unknown))}")
        started = time.perf_counter()
        found = verify_tables(chosen)
        seconds = round(time.perf_counter() - started, 3)
        if options["json"]:
            figures = {**asdict(found), "ok": found.ok, "seconds": seconds}
            self.stdout.write(json.dumps(figures, indent=2))
        else:
            for problem in found.problems:
                self.stdout.write(problem)
            summary = (
                f"{found.tables} tables: {found.replayed} replayed, {found.empty} with no log, "
                f"{len(found.problems)} problems, in {seconds:.2f} s. Digest {found.digest}."
            )
            self.stdout.write(self.style.SUCCESS(summary) if found.ok else summary)
        if not found.ok:
            raise CommandError("some tables differ from their logs", returncode=1)
