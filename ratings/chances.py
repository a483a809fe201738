"""Each seated player's chance of finishing first at a rated table, from the global ratings they
brought to it: the table page shows them on the seat plates and in the game-over panel.

"The ratings before the game" are read from where they are kept. Once the game is rated, each
player's ``RatingChange.before`` in the global pool for that table: games rated since move the
players' ratings but not these, so a finished table keeps the chances it started with. Until
then, their current global rating (the start, 1500, for a player without a rated game): nothing
has moved it since the game began, unless the player finished another table meanwhile.

The chances are ``glicko.win_chances`` of those ratings (Plackett-Luce strengths on the scale of
the rating updates), so they add up to one over the table.
"""

from __future__ import annotations

from collections.abc import Sequence

from ratings.elo import START
from ratings.glicko import win_chances
from ratings.models import Pool, Rating, RatingChange


def ratings_before(table_id: int, usernames: Sequence[str]) -> dict[str, float]:
    """Each named player's global rating as the table's game found it: ``RatingChange.before``
    once the game is rated, else the current rating (``START`` without one). One query when
    the game is rated, two before."""
    names = list(dict.fromkeys(usernames))
    found: dict[str, float] = dict(
        RatingChange.objects.filter(
            table_id=table_id, pool__kind=Pool.Kind.GLOBAL, user__username__in=names
        ).values_list("user__username", "before")
    )
    missing = [n for n in names if n not in found]
    if missing:
        now = dict(
            Rating.objects.filter(
                pool__kind=Pool.Kind.GLOBAL, user__username__in=missing
            ).values_list("user__username", "rating")
        )
        found.update({n: now.get(n, START) for n in missing})
    return found


def table_chances(table_id: int, usernames: Sequence[str], rated: bool) -> dict[str, float]:
    """Each seated player's chance of finishing first (0 to 1, adding up to 1), by username;
    empty for an unrated table (no rating moves, so none is shown) and for fewer than two
    players (no game to win yet)."""
    names = list(dict.fromkeys(usernames))
    if not rated or len(names) < 2:
        return {}
    before = ratings_before(table_id, names)
    return dict(zip(names, win_chances([before[n] for n in names]), strict=True))
