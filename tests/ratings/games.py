"""Finished games made directly as rows, for the ratings' tests: what the games app writes when a
game ends (a finished table, its seats and its ``GameResult``), without playing every hand."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import UTC, datetime, timedelta

from django.utils import timezone

from accounts.models import Club, User
from games import finalization
from games.models import GameResult, RuleSet, Seat, Table
from ratings.compute import bucket
from ratings.glicko import Skill, provisional, rate_table
from ratings.models import Rating, RatingBucket

#: Two newcomers' ratings after one game between them: the winner's and the loser's.
WIN, LOSE = (s.rating for s in rate_table([Skill(), Skill()], [1, 2]))

T0 = datetime(2026, 11, 2, 12, 0, tzinfo=UTC)


def finished_game(
    seated: Sequence[tuple[User, int]],
    *,
    at: datetime | None = None,
    ruleset: str = "standard",
    club: Club | None = None,
    rated: bool = True,
    absent: Iterable[str] = (),
    idle: Iterable[str] = (),
) -> Table:
    """A finished table where each ``(user, place)`` placed so; ``absent`` players had left by
    the end, ``idle`` ones never made a move."""
    absent, idle = set(absent), set(idle)
    rules = RuleSet.objects.get(slug=ruleset)
    when = at or timezone.now()
    table = Table.objects.create(
        ruleset=rules,
        rules=rules.to_rules({}).to_dict(),
        seats=len(seated),
        status=Table.Status.FINISHED,
        rated=rated,
        club=club,
        creator=seated[0][0],
        started_at=when - timedelta(minutes=20),
        finished_at=when,
    )
    Seat.objects.bulk_create(
        Seat(table=table, user=user, position=i) for i, (user, _) in enumerate(seated)
    )
    placements = [
        {
            "player": user.username,
            "user": user.pk,
            "place": place,
            "score": 500 - 100 * place,
            "absent": user.username in absent,
            "acted": user.username not in idle,
        }
        for user, place in sorted(seated, key=lambda up: up[1])
    ]
    winner = placements[0]["player"]
    GameResult.objects.create(
        table=table,
        winner=winner,
        ended="target",
        placements=placements,
        hands=[],
        finished_at=when,
    )
    return table


def rate(table: Table) -> bool:
    """Run the ratings' finalization hook for a finished table, as the worker does."""
    return finalization.run_hook(table.pk, "ratings")


def ratings_of(pool_id: int) -> dict[str, float]:
    rows = Rating.objects.filter(pool_id=pool_id).values_list("user__username", "rating")
    return dict(rows)


def assert_buckets_match(pool_id: int) -> None:
    """The pool's bucket counts are exactly a recount of its ratings."""
    counts: dict[int, list[int]] = {}
    for rating, deviation in Rating.objects.filter(pool_id=pool_id).values_list(
        "rating", "deviation"
    ):
        c = counts.setdefault(bucket(rating), [0, 0])
        c[0] += 1
        c[1] += not provisional(deviation)
    stored = {
        b: [n, e]
        for b, n, e in RatingBucket.objects.filter(pool_id=pool_id).values_list(
            "bucket", "players", "established"
        )
        if n or e
    }
    assert stored == counts
