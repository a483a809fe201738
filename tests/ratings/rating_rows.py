"""For the pages' tests: ratings written directly as rows, with their buckets (many players on
a board without playing their games), and real games played to the end and rated."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from django.utils import timezone

from accounts.models import Club, User
from games import finalization
from games.models import RuleSet, Table
from ratings.compute import bucket
from ratings.elo import START
from ratings.glicko import provisional
from ratings.models import Pool, RatedGame, Rating
from ratings.services import add_to_buckets, pool_for
from tests.games.tables import contested_seed, play_greedy, started_table


def pool_of(key: str = "global") -> Pool:
    """The pool a page names ``global``, ``ruleset:<slug>`` or ``club:<slug>``, made if new."""
    kind, _, slug = key.partition(":")
    if kind == "ruleset":
        return pool_for("ruleset", ruleset_id=RuleSet.objects.get(slug=slug).pk)
    if kind == "club":
        return pool_for("club", club_id=Club.objects.get(slug=slug).pk)
    return pool_for("global")


#: The deviations ``put_ratings`` gives when none is named: a player with a handful of games is
#: still provisional, one with twenty or more is settled (as the system leaves typical players).
NEWCOMER_DEVIATION = 250.0
SETTLED_DEVIATION = 100.0
SETTLED_GAMES = 20


def typical_deviation(games: int) -> float:
    return SETTLED_DEVIATION if games >= SETTLED_GAMES else NEWCOMER_DEVIATION


def put_ratings(
    pool: Pool,
    rows: Iterable[tuple[User, float, int] | tuple[User, float, int, float]],
    *,
    at: datetime | None = None,
) -> None:
    """``(user, rating, games)`` or ``(user, rating, games, deviation)`` rows in ``pool``, last
    played ``at`` (default now); without a deviation, ``typical_deviation(games)``."""
    when = at or timezone.now()
    full = [(*row, typical_deviation(row[2]))[:4] for row in rows]
    Rating.objects.bulk_create(
        Rating(
            pool=pool,
            user=u,
            rating=r,
            games=g,
            peak=max(r, START),
            last_played_at=when,
            deviation=d,
        )
        for u, r, g, d in full
    )
    deltas: dict[tuple[int, int], list[int]] = {}
    for _, rating, _, deviation in full:
        counts = deltas.setdefault((pool.pk, bucket(rating)), [0, 0])
        counts[0] += 1
        counts[1] += not provisional(deviation)
    add_to_buckets(deltas)


def many_players(
    n: int, pool: Pool, *, top: float = 2000.0, step: float = 2.5, games: int = 30
) -> list[User]:
    """``n`` established players ``p000``, ``p001``... rated ``top``, ``top - step``... in
    ``pool``: ``p000`` is first, ``p{i}`` has rank ``i + 1``."""
    users = User.objects.bulk_create(User(username=f"p{i:03d}") for i in range(n))
    put_ratings(pool, ((u, top - i * step, games) for i, u in enumerate(users)))
    return users


def play_rated(users: list[User]) -> Table:
    """One game to a target of 1 (a hand or so) under the standard preset, played by the greedy
    bots through the services and rated by the finalization hook, from a contested deal."""
    overrides = {"target": 1}
    rules = RuleSet.objects.get(slug="standard").to_rules(overrides)
    seed = contested_seed(rules, [u.username for u in users])
    table = started_table(users, overrides=overrides, seed=seed)
    play_greedy(table, users, until=lambda t: t.status != Table.Status.PLAYING)
    table.refresh_from_db()
    assert table.status == Table.Status.FINISHED
    assert finalization.run_hook(table.pk, "ratings")
    assert RatedGame.objects.get(table=table).counted
    return table
