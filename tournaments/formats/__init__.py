"""Tournament formats: pure pairing, seating, brackets and standings, no Django and no database.

Every format is a pure function of (entrants, rounds played, settings, and the entrants who have
left for good): see ``base`` for the value objects and the ``Format`` protocol, ``seeding`` for
seeding a field, and each format's module for its rules, those for players who leave included.
The elimination formats also draw their ``Bracket``.

>>> sorted(FORMATS)[:2]
['double_elimination', 'multi_table_elimination']
>>> get_format("swiss").name
'Swiss'
"""

from __future__ import annotations

from .base import (
    Entrant,
    Format,
    FormatError,
    PlayedRound,
    RoundPlan,
    Seating,
    Settings,
    Standing,
    TableResult,
)
from .bracket import Bracket, BracketMatch, Slot
from .double_elimination import DoubleElimination
from .multi_table_elimination import MultiTableElimination
from .round_robin import RoundRobin
from .seeding import seed_at_random, seed_by_hand, seed_by_rating
from .single_elimination import SingleElimination
from .swiss import Swiss
from .swiss_tables import SwissTables

FORMATS: dict[str, Format] = {
    f.slug: f
    for f in (
        SingleElimination(),
        DoubleElimination(),
        RoundRobin(),
        Swiss(),
        MultiTableElimination(),
        SwissTables(),
    )
}


def get_format(slug: str) -> Format:
    """The format called ``slug``.

    :raises FormatError: an unknown slug (the message lists the known ones).

    >>> get_format("chess")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    tournaments.formats.base.FormatError: unknown format 'chess'; the formats are: single_eli...
    """
    try:
        return FORMATS[slug]
    except KeyError:
        raise FormatError(
            f"unknown format {slug!r}; the formats are: {', '.join(FORMATS)}"
        ) from None


__all__ = [
    "FORMATS",
    "Bracket",
    "BracketMatch",
    "DoubleElimination",
    "Entrant",
    "Format",
    "FormatError",
    "MultiTableElimination",
    "PlayedRound",
    "RoundPlan",
    "RoundRobin",
    "Seating",
    "Settings",
    "SingleElimination",
    "Slot",
    "Standing",
    "Swiss",
    "SwissTables",
    "TableResult",
    "get_format",
    "seed_at_random",
    "seed_by_hand",
    "seed_by_rating",
]
