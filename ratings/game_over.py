"""A finished table's rating changes as its answer and state frames show them (``ratings``,
docs/tables.md): registered with ``games.game_over`` as its reader, since games never imports
ratings."""

from __future__ import annotations

import math

from games.models import Table
from games.payloads import RatingChangeOutput
from ratings.glicko import provisional
from ratings.models import Pool, RatedGame, RatingChange


def whole(rating: float) -> int:
    """A rating in whole points, halves up, as the pages round ratings.

    >>> whole(1511.5), whole(1499.49)
    (1512, 1499)
    """
    return math.floor(rating + 0.5)


def table_rating_changes(table: Table) -> dict[str, RatingChangeOutput] | None:
    """Each player's change in the global pool (the one a player's page shows first) by
    username; None until the ratings hook has taken the game in. A game it did not count (fewer
    than two players acted) changed nobody's rating: an empty object. ``change`` is the
    difference of the whole ratings shown, so the three numbers always agree on a page."""
    rated = RatedGame.objects.filter(table_id=table.pk).first()
    if rated is None:
        return None
    rows = list(
        RatingChange.objects.filter(game=rated, pool__kind=Pool.Kind.GLOBAL)
        .select_related("user")
        .order_by("place", "user__username")
    )
    if not rows:
        return {}
    return {
        r.user.username: {
            "before": whole(r.before),
            "after": whole(r.after),
            "change": whole(r.after) - whole(r.before),
            "provisional": provisional(r.deviation_after),
            "deviation": whole(r.deviation_after),
        }
        for r in rows
    }
