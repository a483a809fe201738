"""Reading ratings: leaderboards, ranks and players' records.

A leaderboard is a pool's ratings, best first, optionally only players who played in a period
(``month``: since the first of this month, UTC), only those with at least a number of rated games
in the pool, and without the provisional players (a deviation above ``PROVISIONAL_DEVIATION`` as
of their last game) unless asked. A rank
is one more than the number of players on the same board rated strictly higher, so equal ratings
share a rank.

On the all-time board, with or without the provisional players, a rank is a sum over the pool's
``RatingBucket`` rows plus a count inside one whole rating point: a few milliseconds with a
million players. Other filters count ratings directly, which the indexes keep reasonable.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from django.db.models import Count, QuerySet, Sum
from django.utils import timezone

from accounts.models import Club, User
from accounts.usernames import canonical
from config.errors import ServiceError
from games.models import RuleSet, Seat, Table
from ratings.compute import bucket
from ratings.elo import START
from ratings.glicko import PROVISIONAL_DEVIATION, START_DEVIATION, provisional
from ratings.models import Pool, Rating, RatingBucket, RatingChange

PERIODS = ("all", "month")


class BoardError(ServiceError):
    """A leaderboard asked for with a pool or filter that does not exist."""


@dataclass(frozen=True)
class PoolChoice:
    """A pool by its public name; ``pool`` is None while nobody has a rating in it."""

    key: str
    label: str
    pool: Pool | None


@dataclass(frozen=True)
class Board:
    """Which ratings a leaderboard lists."""

    choice: PoolChoice
    period: str = "all"
    min_games: int = 0
    provisional: bool = True

    @property
    def threshold(self) -> int:
        """The fewest games a listed player has."""
        return max(self.min_games, 1)

    @property
    def column(self) -> str:
        """The buckets' count this board's players are in."""
        return "players" if self.provisional else "established"

    @property
    def since(self) -> datetime | None:
        if self.period != "month":
            return None
        now = timezone.now().astimezone(UTC)
        return now.replace(day=1, hour=0, minute=0, second=0, microsecond=0)

    @property
    def bucketed(self) -> bool:
        """Whether the buckets answer this board's ranks and count."""
        return self.period == "all" and self.threshold == 1


@dataclass(frozen=True)
class Row:
    rank: int
    username: str
    rating: float
    games: int
    provisional: bool
    user_id: int
    deviation: float = START_DEVIATION


def pool_choice(ruleset: str | None = None, club: str | None = None) -> PoolChoice:
    """The pool the API's ``ruleset``/``club`` parameters name (neither: the global pool).

    :raises BoardError: both given (``bad_request``), an unknown preset or club (``not_found``).
    """
    if ruleset and club:
        raise BoardError("bad_request", "give ruleset or club, not both: a board is one pool")
    if ruleset:
        found = RuleSet.objects.filter(slug=ruleset, is_preset=True).first()
        if found is None:
            raise BoardError("not_found", f"no rule preset {ruleset!r}", 404)
        pool = Pool.objects.filter(kind="ruleset", ruleset=found).first()
        return PoolChoice(f"ruleset:{found.slug}", f"{found.name} rules", pool)
    if club:
        owner = Club.objects.filter(slug=club).first()
        if owner is None:
            raise BoardError("not_found", f"no club {club!r}", 404)
        pool = Pool.objects.filter(kind="club", club=owner).first()
        return PoolChoice(f"club:{owner.slug}", owner.name, pool)
    return PoolChoice("global", "Everyone", Pool.objects.filter(kind="global").first())


def pool_choice_by_key(key: str) -> PoolChoice:
    """``global``, ``ruleset:<slug>`` or ``club:<slug>``, as the pages name pools."""
    kind, _, slug = (key or "global").partition(":")
    if kind == "ruleset":
        return pool_choice(ruleset=slug or "?")
    if kind == "club":
        return pool_choice(club=slug or "?")
    if kind == "global" and not slug:
        return pool_choice()
    raise BoardError("not_found", f"no pool {key!r}", 404)


def pool_choices() -> list[PoolChoice]:
    """Every pool a leaderboard can show: global, each preset, each club."""
    choices = [pool_choice()]
    pools = {(p.kind, p.ruleset_id or p.club_id): p for p in Pool.objects.all()}
    for ruleset in RuleSet.objects.filter(is_preset=True).order_by("name"):
        pool = pools.get(("ruleset", ruleset.pk))
        choices.append(PoolChoice(f"ruleset:{ruleset.slug}", f"{ruleset.name} rules", pool))
    for club in Club.objects.order_by("name"):
        choices.append(PoolChoice(f"club:{club.slug}", club.name, pools.get(("club", club.pk))))
    return choices


def board_ratings(board: Board) -> QuerySet[Rating]:
    """The board's ratings in its order (best first; equal ratings by user id)."""
    if board.choice.pool is None:
        return Rating.objects.none()
    rows = Rating.objects.filter(pool=board.choice.pool, games__gte=board.threshold)
    if not board.provisional:
        rows = rows.filter(deviation__lte=PROVISIONAL_DEVIATION)
    if board.since is not None:
        rows = rows.filter(last_played_at__gte=board.since)
    return rows.order_by("-rating", "user_id")


def board_count(board: Board) -> int:
    if board.choice.pool is None:
        return 0
    if board.bucketed:
        total = RatingBucket.objects.filter(pool=board.choice.pool).aggregate(n=Sum(board.column))[
            "n"
        ]
        return int(total or 0)
    return board_ratings(board).count()


def board_rank(board: Board, rating: float) -> int:
    """The rank a rating has on the board: one more than those rated strictly higher."""
    if board.choice.pool is None:
        return 1
    if not board.bucketed:
        return board_ratings(board).filter(rating__gt=rating).count() + 1
    column = board.column
    point = bucket(rating)
    above = RatingBucket.objects.filter(pool=board.choice.pool, bucket__gt=point).aggregate(
        n=Sum(column)
    )["n"]
    near = board_ratings(board).filter(rating__gt=rating, rating__lt=point + 1).count()
    return int(above or 0) + near + 1


def board_page(board: Board, offset: int, limit: int) -> list[Row]:
    """``limit`` rows from ``offset`` (0-based) with their ranks."""
    rows_from, skip = _seek(board, offset)
    found = list(
        rows_from.select_related("user").only(
            "rating", "deviation", "games", "user_id", "user__username"
        )[skip : skip + limit]
    )
    games = _period_games(board, [r.user_id for r in found])
    rows: list[Row] = []
    for i, r in enumerate(found):
        if not rows:
            rank = board_rank(board, r.rating)
        elif r.rating == rows[-1].rating:
            rank = rows[-1].rank
        else:
            rank = offset + i + 1
        n = games.get(r.user_id, r.games)
        rows.append(Row(rank, r.user.username, r.rating, n, r.provisional, r.user_id, r.deviation))
    return rows


#: Offsets below this are read with a plain OFFSET (cheap that near the top); deeper ones start
#: from the rating point where the offset falls, found by adding up the buckets.
SEEK_FROM = 1_000


def _seek(board: Board, offset: int) -> tuple[QuerySet[Rating], int]:
    """The board's ratings from the whole rating point that holds position ``offset``, and the
    offset left within them: a page half a million rows down costs a bucket sum and a short
    scan instead of reading past every row above it."""
    rows = board_ratings(board)
    if offset < SEEK_FROM or not board.bucketed or board.choice.pool is None:
        return rows, offset
    column = board.column
    buckets = (
        RatingBucket.objects.filter(pool=board.choice.pool, **{f"{column}__gt": 0})
        .order_by("-bucket")
        .values_list("bucket", column)
    )
    skipped = 0
    for point, count in buckets.iterator(chunk_size=2_000):
        if skipped + count > offset:
            return rows.filter(rating__lt=point + 1), offset - skipped
        skipped += count
    return rows.none(), 0


def _period_games(board: Board, users: list[int]) -> dict[int, int]:
    """On a period's board, the games column counts that period's games only."""
    if board.since is None or not users:
        return {}
    counts = (
        board.choice.pool.changes.filter(user_id__in=users, at__gte=board.since)  # type: ignore[union-attr]
        .values("user_id")
        .annotate(n=Count("id"))
    )
    return {c["user_id"]: c["n"] for c in counts}


def board_position(board: Board, username: str) -> tuple[int, Row] | None:
    """Where a player stands: their 0-based position in the board's order and their row, or
    None if they are not on this board (no rating in the pool, or filtered out). The name is
    compared as everywhere (``Users.named``): exactly, else by its canonical key."""
    ratings = board_ratings(board).select_related("user")
    rating = (
        ratings.filter(user__username=username).first()
        or ratings.filter(user__username_key=canonical(username)).first()
    )
    if rating is None:
        return None
    rank = board_rank(board, rating.rating)
    tied_before = (
        board_ratings(board).filter(rating=rating.rating, user_id__lt=rating.user_id).count()
    )
    games = _period_games(board, [rating.user_id]).get(rating.user_id, rating.games)
    row = Row(
        rank, username, rating.rating, games, rating.provisional, rating.user_id, rating.deviation
    )
    return rank - 1 + tied_before, row


def board_search(board: Board, prefix: str, limit: int = 10) -> list[str]:
    """Usernames on the board starting with ``prefix`` (case-insensitive), best rated first."""
    if not prefix:
        return []
    rows = board_ratings(board).filter(user__username__istartswith=prefix)
    return list(rows.values_list("user__username", flat=True)[:limit])


def player_ratings(user: User) -> list[tuple[PoolChoice, Rating]]:
    """A player's rating in every pool they have one, global first."""
    rows = Rating.objects.filter(user=user).select_related("pool__ruleset", "pool__club")
    order = {"global": 0, "ruleset": 1, "club": 2}
    out = [(PoolChoice(r.pool.key, r.pool.label, r.pool), r) for r in rows]
    return sorted(out, key=lambda pr: (order[pr[1].pool.kind], pr[0].label))


def rating_in(choice: PoolChoice, user: User) -> Rating | None:
    if choice.pool is None:
        return None
    return Rating.objects.filter(pool=choice.pool, user=user).first()


def ratings_in(choice: PoolChoice, user_ids: list[int]) -> dict[int, float]:
    """Each listed player's current rating in the pool, by user id, in one query (a player
    without a rated game there yet has the starting rating)."""
    found: dict[int, float] = {}
    if choice.pool is not None:
        rows = Rating.objects.filter(pool=choice.pool, user_id__in=user_ids)
        found = dict(rows.values_list("user_id", "rating"))
    return {uid: found.get(uid, START) for uid in user_ids}


def rating_history(choice: PoolChoice, user: User, limit: int) -> list[dict[str, Any]]:
    """The player's last ``limit`` rating changes in the pool, oldest first."""
    if choice.pool is None:
        return []
    changes = choice.pool.changes.filter(user=user).order_by("-game_id")[:limit]
    rows = changes.values(
        "table_id", "at", "before", "after", "deviation_after", "place", "table_size", "k"
    )
    return [dict(row) for row in reversed(list(rows))]


def placement_stats(choice: PoolChoice, user: User) -> list[dict[str, object]]:
    """Per table size: games, wins (first place), average place and each place's count."""
    if choice.pool is None:
        return []
    rows = (
        choice.pool.changes.filter(user=user)
        .values("table_size", "place")
        .annotate(n=Count("id"))
        .order_by("table_size", "place")
    )
    sizes: dict[int, dict[int, int]] = {}
    for r in rows:
        sizes.setdefault(r["table_size"], {})[r["place"]] = r["n"]
    out = []
    for size, places in sorted(sizes.items()):
        games = sum(places.values())
        average = sum(place * n for place, n in places.items()) / games
        wins = places.get(1, 0)
        out.append(
            {
                "table_size": size,
                "games": games,
                "wins": wins,
                "win_rate": wins / games,
                "average_place": average,
                "places": places,
            }
        )
    return out


def recent_games(user: User, limit: int = 20) -> list[dict[str, object]]:
    """The player's last finished games, newest first: the table, its size and rules, their
    place and score, and their global rating change if it was rated."""
    seats = (
        Seat.objects.filter(user=user, table__status=Table.Status.FINISHED)
        .select_related("table__ruleset", "table__result")
        .order_by("-table__finished_at", "-table_id")[:limit]
    )
    tables = [s.table for s in seats]
    changes = {
        c.table_id: c
        for c in RatingChange.objects.filter(
            user=user, pool__kind="global", table_id__in=[t.pk for t in tables]
        )
    }
    out = []
    for table in tables:
        mine = next(p for p in table.result.placements if p["user"] == user.pk)
        change = changes.get(table.pk)
        out.append(
            {
                "table": table.pk,
                "url": table.get_absolute_url(),
                "finished_at": table.finished_at,
                "ruleset": table.ruleset.name,
                "players": len(table.result.placements),
                "place": mine["place"],
                "score": mine["score"],
                "rated": change is not None,
                "before": change.before if change else None,
                "after": change.after if change else None,
            }
        )
    return out


def seat_ratings(usernames: list[str]) -> dict[str, dict[str, object]]:
    """Each named player's global rating, rounded, and whether it is still provisional (the
    table page's seat plates). A player without a rated game yet shows the starting rating,
    provisional."""
    pool = Pool.objects.filter(kind="global").first()
    found = {}
    if pool is not None:
        rows = Rating.objects.filter(pool=pool, user__username__in=usernames)
        found = {r.user.username: r for r in rows.select_related("user")}
    out: dict[str, dict[str, object]] = {}
    for name in usernames:
        row = found.get(name)
        rating = row.rating if row else START
        deviation = row.deviation if row else START_DEVIATION
        out[name] = {
            "rating": round(rating),
            "deviation": round(deviation),
            "provisional": provisional(deviation),
        }
    return out
