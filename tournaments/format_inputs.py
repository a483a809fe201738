"""An event as its format reads it: the pure formats (``tournaments.formats``) know nothing of
the database, so these translate an event's rows into their inputs (settings, entrants, the
players who have left, the rounds played)."""

from __future__ import annotations

from typing import cast

from tournaments.formats import Entrant, PlayedRound, RoundPlan, Seating, Settings, TableResult
from tournaments.models import Entry, Round, RoundTable, Tournament


def settings_of(event: Tournament) -> Settings:
    """The format ``Settings`` of an event: its table size, rounds and options.

    :raises TypeError: an option the format's settings do not have (``check_event`` refuses
        such an event before it is saved).
    """
    options = dict(event.options)
    if "placement_points" in options:
        options["placement_points"] = tuple(options["placement_points"])
    return Settings(table_size=event.table_size, rounds=event.rounds, **options)


def entrants_of(event: Tournament) -> list[Entrant]:
    """The seeded entries, best seed first."""
    rows = event.entries.filter(seed__isnull=False).values_list("pk", "seed", "rating")
    # ``seed`` is not NULL here (the filter), which the row's type cannot say.
    return [
        Entrant(pk, cast(int, seed), rating or 0.0) for pk, seed, rating in rows.order_by("seed")
    ]


#: Entries that have left a running event for good: the formats pair and seat them no more.
GONE = (Entry.Status.WITHDRAWN, Entry.Status.DISQUALIFIED)


def gone_of(event: Tournament) -> frozenset[int]:
    """The seeded entries who have withdrawn or been disqualified (the format's ``gone``)."""
    rows = event.entries.filter(seed__isnull=False, status__in=GONE).values_list("pk", flat=True)
    return frozenset(rows)


def played_of(event: Tournament) -> list[PlayedRound]:
    """The finished rounds as the format reads them."""
    rounds = event.round_set.filter(status=Round.Status.FINISHED).prefetch_related("tables")
    return [
        PlayedRound(
            plan_of(r),
            tuple(result_of(t) for t in r.tables.all()),
        )
        for r in rounds
    ]


def result_of(table: RoundTable) -> TableResult:
    """A table whose result is in, as the format reads it."""
    assert table.places is not None and table.points is not None, f"{table} has no result"
    return TableResult(tuple(table.players), tuple(table.places), tuple(table.points))


def plan_of(round_: Round) -> RoundPlan:
    """A stored round as the plan the format made."""
    seatings = tuple(Seating(tuple(t.players), t.key) for t in round_.tables.all())
    return RoundPlan(round_.number, round_.name, seatings, tuple(round_.byes))


def played_so_far(event: Tournament) -> list[PlayedRound]:
    """The finished rounds, and the tables of the running round whose results are in: the
    bracket shows a match decided as soon as it is, not when its whole round is over."""
    played = played_of(event)
    current = event.round_set.filter(number=len(played) + 1, status="running").first()
    if current is None:
        return played
    done = [t for t in current.tables.all() if t.places is not None]
    plan = RoundPlan(
        current.number,
        current.name,
        tuple(Seating(tuple(t.players), t.key) for t in done),
        tuple(current.byes),
    )
    results = tuple(result_of(t) for t in done)
    return [*played, PlayedRound(plan, results)]
