"""``{% seat_ratings names %}``: the seated players' ratings for the table page's seat plates.

A template tag of the ratings app rather than a read in ``games.views``: the games app sits below
ratings and may not import it (tests/test_layering.py), while a template may load any app's tags.
"""

from __future__ import annotations

from django import template

from ratings import selectors

register = template.Library()


@register.simple_tag
def seat_ratings(names: list[str]) -> dict[str, dict[str, object]]:
    return selectors.seat_ratings(list(names))
