"""Tournament benchmark: prints one JSON object of figures on stdout.

Run from the repository root: ``python bench/tournaments.py [--players N] [--quick] [--part P]``.

Parts (``--part``, default ``all``):

- ``pairing``: for each of the six formats (round robin also at tables of 4), the CPU time
  (``time.process_time``) of ``next_round`` for one round of ``--players`` entrants (10,000; 1,000
  with ``--quick``), and of ``standings`` after the rounds played: round 1, and a later round
  after earlier rounds played with seeded random results (round 4 of Swiss and Swiss tables, of
  double elimination and of the two-seat round robin, round 3 of single elimination, round 2 of
  multi-table elimination and of the multi-seat round robin). Each figure is the median of
  ``--repeats`` calls, in milliseconds. Playing the earlier rounds is not timed.

Target (the tournaments issue): each pairing under one second for 10,000 players.
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tournaments.formats import (
    Entrant,
    PlayedRound,
    RoundPlan,
    Settings,
    TableResult,
    get_format,
    seed_by_rating,
)

#: (figure name, format slug, settings, the later round timed).
CASES = (
    ("single_elimination", "single_elimination", Settings(third_place=True), 3),
    ("double_elimination", "double_elimination", Settings(), 4),
    ("round_robin", "round_robin", Settings(), 4),
    ("round_robin_4_seats", "round_robin", Settings(table_size=4), 2),
    ("swiss", "swiss", Settings(), 4),
    ("multi_table_elimination", "multi_table_elimination", Settings(table_size=4, advance=2), 2),
    ("swiss_tables", "swiss_tables", Settings(table_size=4), 4),
)

#: The issue's aim for one round's pairing or seating.
TARGET_MS = 1000.0


def field(players: int) -> list[Entrant]:
    """A field seeded by rating, ratings spread like a club pool's."""
    rng = random.Random(players)
    return seed_by_rating([(i, rng.gauss(1500.0, 200.0)) for i in range(1, players + 1)])


def played_with_random_results(plan: RoundPlan, rng: random.Random) -> PlayedRound:
    """``plan`` played: random places, random game points."""
    results = []
    for table in plan.tables:
        places = list(range(1, len(table.players) + 1))
        rng.shuffle(places)
        points = tuple(rng.randrange(-100, 600) for _ in table.players)
        results.append(TableResult(table.players, tuple(places), points))
    return PlayedRound(plan, tuple(results))


def history(
    slug: str, entrants: list[Entrant], settings: Settings, rounds: int
) -> list[PlayedRound]:
    """The first ``rounds`` rounds of the event, played with seeded random results."""
    fmt, rng = get_format(slug), random.Random(slug)
    played: list[PlayedRound] = []
    while len(played) < rounds:
        plan = fmt.next_round(entrants, played, settings)
        if plan is None:
            raise SystemExit(f"{slug} ended after {len(played)} rounds; use more players")
        played.append(played_with_random_results(plan, rng))
    return played


def median_ms(call: Callable[[], object], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.process_time()
        call()
        times.append(time.process_time() - start)
    return round(1000 * statistics.median(times), 2)


def time_round(
    slug: str, entrants: list[Entrant], settings: Settings, number: int, repeats: int
) -> dict[str, Any]:
    """``next_round`` for round ``number`` and ``standings`` before it, with the round's size."""
    fmt = get_format(slug)
    played = history(slug, entrants, settings, number - 1)
    plan = fmt.next_round(entrants, played, settings)
    assert plan is not None
    return {
        "round": number,
        "tables": len(plan.tables),
        "next_round_ms": median_ms(lambda: fmt.next_round(entrants, played, settings), repeats),
        "standings_ms": median_ms(lambda: fmt.standings(entrants, played, settings), repeats),
    }


def pairing(players: int, repeats: int) -> dict[str, Any]:
    """The ``pairing`` part: round 1 and a later round of every format."""
    entrants = field(players)
    figures: dict[str, Any] = {}
    for name, slug, settings, later in CASES:
        figures[name] = {
            "format": slug,
            "table_size": settings.table_size,
            "first": time_round(slug, entrants, settings, 1, repeats),
            "later": time_round(slug, entrants, settings, later, repeats),
        }
    slowest = max(f[r]["next_round_ms"] for f in figures.values() for r in ("first", "later"))
    return {
        "formats": figures,
        "slowest_next_round_ms": slowest,
        "target_next_round_ms_under": TARGET_MS,
        "target_met": slowest < TARGET_MS,
    }


#: Each part's name and the function that measures it: ``f(players, repeats) -> figures``.
PARTS: dict[str, Callable[[int, int], dict[str, Any]]] = {"pairing": pairing}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=10_000, help="entrants (default 10,000)")
    parser.add_argument("--repeats", type=int, default=5, help="timed calls per figure")
    parser.add_argument("--quick", action="store_true", help="1,000 players, 3 repeats")
    parser.add_argument("--part", choices=[*PARTS, "all"], default="all", help="what to measure")
    args = parser.parse_args(argv)
    players, repeats = (1_000, 3) if args.quick else (args.players, args.repeats)

    result: dict[str, Any] = {
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "players": players,
        "repeats": repeats,
    }
    for name, measure in PARTS.items():
        if args.part in (name, "all"):
            result[name] = measure(players, repeats)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
