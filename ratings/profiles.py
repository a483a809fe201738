"""What a player's page shows: their rating in each pool with its rank, a rating-history chart
for one pool, their recent games and their placements per table size."""

from __future__ import annotations

import math
from typing import Any
from urllib.parse import urlencode

from django.urls import reverse
from django.utils.safestring import SafeString, mark_safe

from accounts.models import User
from ratings.charts import line_chart
from ratings.glicko import PROVISIONAL_DEVIATION
from ratings.selectors import (
    Board,
    PoolChoice,
    board_rank,
    placement_stats,
    player_ratings,
    pool_choice,
    rating_history,
    rating_in,
    recent_games,
)

#: The chart shows this many of the player's latest games in the pool (the API gives more).
HISTORY_POINTS = 200
RECENT_GAMES = 20


def player_context(user: User, choice: PoolChoice) -> dict[str, Any]:
    """The page's context for ``user`` with the chart and statistics of pool ``choice``."""
    pools = pool_rows(user)
    chart_pools = [row["choice"] for row in pools]
    if not any(c.key == "global" for c in chart_pools):
        chart_pools.insert(0, pool_choice())
    if not any(c.key == choice.key for c in chart_pools):
        chart_pools.append(choice)
    return {
        "player": user,
        "pools": pools,
        "choice": choice,
        "chart_pools": chart_pools,
        "chart": history_chart(user, choice),
        "stats": stats_rows(user, choice),
        "recent": recent_rows(user),
        "history_points": HISTORY_POINTS,
        "provisional_deviation": PROVISIONAL_DEVIATION,
    }


def pool_rows(user: User) -> list[dict[str, Any]]:
    """Each pool the player has a rating in, with their rank on its all-time board (everyone
    counted, provisional players too, as the API's ``rank``) and a link to their row there."""
    rows = []
    for choice, rating in player_ratings(user):
        query = {"pool": choice.key, "provisional": 1, "player": user.username}
        rows.append(
            {
                "choice": choice,
                "rating": rating,
                "rank": board_rank(Board(choice), rating.rating),
                "board_url": reverse("ratings:leaderboard") + "?" + urlencode(query) + "#found",
            }
        )
    return rows


def history_points(user: User, choice: PoolChoice) -> list[tuple[float, float]]:
    """``(games played in the pool, rating)`` from before the first game shown to now."""
    history = rating_history(choice, user, HISTORY_POINTS)
    rating = rating_in(choice, user)
    if not history or rating is None:
        return []
    first = rating.games - len(history)
    points = [(float(first), float(history[0]["before"]))]
    points.extend((float(first + i + 1), float(h["after"])) for i, h in enumerate(history))
    return points


def history_chart(user: User, choice: PoolChoice) -> SafeString:
    svg = line_chart(
        history_points(user, choice),
        title=f"{user.username}'s rating in {choice.label}",
        empty="No rated games in this pool yet",
    )
    # line_chart escapes every piece of text it draws.
    return mark_safe(svg)


def stats_rows(user: User, choice: PoolChoice) -> list[dict[str, Any]]:
    stats: list[dict[str, Any]] = placement_stats(choice, user)
    return [
        {
            **stat,
            "win_percent": round(100 * stat["win_rate"]),
            "places_text": ", ".join(
                f"{ordinal(p)} {n}" for p, n in sorted(stat["places"].items())
            ),
        }
        for stat in stats
    ]


def recent_rows(user: User) -> list[dict[str, Any]]:
    """The recent games with the global rating change as signed whole points."""
    games: list[dict[str, Any]] = recent_games(user, RECENT_GAMES)
    return [
        {
            **game,
            "place_text": ordinal(game["place"]),
            "change": signed_whole(game["after"] - game["before"]) if game["rated"] else None,
        }
        for game in games
    ]


def signed_whole(x: float) -> str:
    """A rating change to whole points with its sign, halves up, as the pages round ratings.

    >>> signed_whole(12.5), signed_whole(-3.4), signed_whole(-0.2)
    ('+13', '-3', '+0')
    """
    return f"{math.floor(x + 0.5):+d}"


def ordinal(n: int) -> str:
    """``1st``, ``2nd``, ``3rd``, ``4th``... (places at a table go up to 8).

    >>> [ordinal(n) for n in (1, 2, 3, 4, 11, 22)]
    ['1st', '2nd', '3rd', '4th', '11th', '22nd']
    """
    if 10 <= n % 100 <= 20:
        return f"{n}th"
    return f"{n}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th') }"
