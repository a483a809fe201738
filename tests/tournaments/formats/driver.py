"""Playing events through with made-up results: a seeded driver for the format tests."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

from tournaments.formats import (
    Entrant,
    Format,
    PlayedRound,
    RoundPlan,
    Seating,
    Settings,
    TableResult,
    seed_by_rating,
)


def field(players: int, spread: int = 1) -> list[Entrant]:
    """Entrants whose id is ``spread`` times their seed (1 is the top seed).

    >>> [(e.id, e.seed) for e in field(3, spread=10)]
    [(10, 1), (20, 2), (30, 3)]
    """
    return seed_by_rating([(spread * i, 2000.0 - i) for i in range(1, players + 1)])


def finish(table: Seating, order: Sequence[int], points: Sequence[int] = ()) -> TableResult:
    """The result of ``table`` where ``order`` lists its players best first (no ties)."""
    place = {p: i for i, p in enumerate(order, 1)}
    scores = tuple(points) or tuple(0 for _ in table.players)
    return TableResult(table.players, tuple(place[p] for p in table.players), scores)


def random_result(table: Seating, rng: random.Random) -> TableResult:
    """Random places (one table in ten has a tie for first) and game points."""
    places = list(range(1, len(table.players) + 1))
    rng.shuffle(places)
    if rng.random() < 0.1:
        places = [1 if p == 2 else p for p in places]
    points = tuple(rng.randrange(-100, 600) for _ in table.players)
    return TableResult(table.players, tuple(places), points)


def play_round(plan: RoundPlan, rng: random.Random) -> PlayedRound:
    """``plan`` played with random results."""
    return PlayedRound(plan, tuple(random_result(t, rng) for t in plan.tables))


def play(
    fmt: Format,
    entrants: Sequence[Entrant],
    settings: Settings,
    seed: int | str = 0,
    rounds: int = 10_000,
) -> list[PlayedRound]:
    """Play up to ``rounds`` rounds (all of them by default) with random results.

    :raises AssertionError: an event still running after 10,000 rounds.
    """
    rng = random.Random(seed)
    played: list[PlayedRound] = []
    while len(played) < rounds:
        plan = fmt.next_round(entrants, played, settings)
        if plan is None:
            return played
        assert plan.number == len(played) + 1
        played.append(play_round(plan, rng))
    assert rounds < 10_000, "the event does not end"
    return played


def absent_last(result: TableResult, gone: frozenset[int]) -> TableResult:
    """``result`` with the players in ``gone`` absent: they share the last place and score 0, the
    others keep their order (as the service records a table someone left)."""
    here = [place for p, place in zip(result.players, result.places, strict=True) if p not in gone]
    last = len(here) + 1
    rows = [
        (last, 0) if p in gone else (1 + sum(q < place for q in here), points)
        for p, place, points in zip(result.players, result.places, result.points, strict=True)
    ]
    return TableResult(result.players, tuple(r[0] for r in rows), tuple(r[1] for r in rows))


def play_leaving(
    fmt: Format,
    entrants: Sequence[Entrant],
    settings: Settings,
    leaving: Mapping[int, int],
    seed: int | str = 0,
    planned: bool = False,
) -> tuple[list[PlayedRound], frozenset[int]]:
    """Play the event with random results, each player of ``leaving`` leaving for good once
    that many rounds are played; with ``planned``, just after the next round is planned (they
    are absent at its table, last). Returns the rounds and who has left by the end.

    :raises AssertionError: an event still running after 10,000 rounds.
    """
    rng = random.Random(seed)
    played: list[PlayedRound] = []
    while len(played) < 10_000:
        gone = frozenset(p for p, after in leaving.items() if after + planned <= len(played))
        plan = fmt.next_round(entrants, played, settings, gone=gone)
        if plan is None:
            return played, gone
        now = frozenset(p for p, after in leaving.items() if after <= len(played))
        done = play_round(plan, rng)
        results = tuple(absent_last(r, now) for r in done.results)
        played.append(PlayedRound(plan, results))
    raise AssertionError("the event does not end")


def seated(plan: RoundPlan) -> list[int]:
    """Everyone a round seats or gives a bye, once per seat."""
    return [p for t in plan.tables for p in t.players] + list(plan.byes)


def games_of(played: Sequence[PlayedRound]) -> dict[int, int]:
    """Tables played per entrant."""
    games: dict[int, int] = {}
    for done in played:
        for table in done.plan.tables:
            for p in table.players:
                games[p] = games.get(p, 0) + 1
    return games
