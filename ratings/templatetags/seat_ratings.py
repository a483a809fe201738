"""``{% seat_ratings names %}`` and ``{% seat_chances table names %}``: the seated players'
ratings and chances of finishing first, for the table page's seat plates.

Template tags of the ratings app rather than reads in ``games.views``: the games app sits below
ratings and may not import it (tests/test_layering.py), while a template may load any app's tags.
"""

from __future__ import annotations

from django import template

from games.models import Table
from ratings import chances, selectors

register = template.Library()

#: Statuses whose seats are settled: the players who sit now are the ones who play.
STARTED = (Table.Status.PLAYING, Table.Status.FINISHED)


@register.simple_tag
def seat_ratings(names: list[str]) -> dict[str, dict[str, object]]:
    return selectors.seat_ratings(list(names))


@register.simple_tag
def seat_chances(table: Table, names: list[str]) -> dict[str, object]:
    """``{"rated": ..., "chances": {username: chance}}``: each seated player's chance of
    finishing first (``ratings.chances``), to four places. None while the table waits, since
    who plays is not settled yet: the page reads them again once the game has begun and its
    players differ from those it was served with (static/js/table.js)."""
    started = table.status in STARTED
    found = chances.table_chances(table.pk, list(names), table.rated and started)
    return {"rated": table.rated, "chances": {n: round(p, 4) for n, p in found.items()}}
