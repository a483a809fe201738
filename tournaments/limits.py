"""The sizes an event's input may have, written once: the services refuse past them
(``within``), and the API's serializers and the pages' forms take their bounds from here, so a
page cannot store what the API would refuse.

Each whole number is bounded above as well as below, so none can overflow its column (10**20
players once gave a 500 from PostgreSQL's "integer out of range").
"""

from __future__ import annotations

from tournaments.errors import EventError

NAME_MAX = 120  # the column's own length
DESCRIPTION_MAX = 5_000  # a page of rules and directions; the event page shows it all
ANNOUNCEMENT_MAX = 2_000
REASON_MAX = 500  # an organizer's reason: cancel, withdraw, disqualify, adjudicate
# Far past any field a club or an online event draws, and far inside a 32-bit column.
PLAYERS_MAX = 100_000
RATED_GAMES_MAX = 1_000_000
TURN_SECONDS_MAX = 3_600  # the turn clock and the time bank, as a table's own
# Rating conditions: ratings live in the hundreds to low thousands; this is far past them.
RATING_BOUND = 10_000.0
SLUG_MAX = 100  # a club's or rule set's slug (the longer column)
# Entry and table ids are keys: a value past a 64-bit column names nothing.
ID_MAX = 2**63 - 1


def within(text: str, field: str, limit: int) -> str:
    """``text`` stripped, if at most ``limit`` characters.

    >>> within("  hello ", "text", 5)
    'hello'

    :raises EventError: ``bad_request`` naming ``field``.
    """
    text = text.strip()
    if len(text) > limit:
        raise EventError("bad_request", f"{field}: at most {limit} characters")
    return text


def whole_number(raw: str | None, high: int = ID_MAX) -> int | None:
    """``raw`` read as a whole number from 0 to ``high`` in ASCII digits, or None: a page's
    field, where ``str.isdigit`` would pass "²" (which ``int`` refuses) and a number of
    thousands of digits (which ``int`` refuses too).

    >>> whole_number("12"), whole_number(" 3 "), whole_number("²"), whole_number("-1")
    (12, 3, None, None)
    """
    text = (raw or "").strip()
    if not text.isascii() or not text.isdigit() or len(text) > len(str(high)):
        return None
    value = int(text)
    return value if value <= high else None


def in_range(value: float | None, field: str, low: float, high: float) -> None:
    """:raises EventError: ``bad_request`` for a ``value`` (None: not set) outside low..high."""
    if value is not None and not low <= value <= high:
        raise EventError("bad_request", f"{field}: must be from {low} to {high}")
