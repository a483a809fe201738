"""What a finished table adds to its answer and state frames: each player's rating change and
the rematch offer (docs/tables.md, "Game over: rating changes and rematch").

The rating changes belong to the ratings app, which games never imports (DESIGN.md): it registers
a reader here in its ``AppConfig.ready``, as it registers its finalization hook. Whether a table
belongs to an event (no rematch there) is the tournaments app's to say, registered the same way.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from django.utils import timezone

from games.models import Rematch, Table
from games.payloads import GameOverOutput, RatingChangeOutput, RematchOutput, RematchStatus

RatingsReader = Callable[[Table], dict[str, RatingChangeOutput] | None]

#: The reader of a finished table's rating changes (the ratings app's); none, no ratings shown.
_ratings_readers: list[RatingsReader] = []

#: Predicates ``table -> bool``: the table is one of an event's (the tournaments app's).
event_table_checks: list[Callable[[Table], bool]] = []

NOT_OVER: GameOverOutput = {"ratings": None, "rematch": None}


def register_ratings_reader(reader: RatingsReader) -> None:
    if reader not in _ratings_readers:
        _ratings_readers.append(reader)


def register_event_check(check: Callable[[Table], bool]) -> None:
    if check not in event_table_checks:
        event_table_checks.append(check)


def is_event_table(table: Table) -> bool:
    return any(check(table) for check in event_table_checks)


def table_ratings(table: Table) -> dict[str, RatingChangeOutput] | None:
    """The players' rating changes of a finished table's game, once the ratings are written;
    None before, for an unrated table, or with no reader registered."""
    if table.status != Table.Status.FINISHED or not table.rated:
        return None
    for reader in _ratings_readers:
        found = reader(table)
        if found is not None:
            return found
    return None


def rematch_status(rematch: Rematch, now: datetime) -> RematchStatus:
    """A decline ends the offer, and so does the clock, unless everyone accepted first. Read,
    not stored: an offer expires at ``expires_at`` whether or not anything runs then."""
    if rematch.declined:
        return RematchStatus.DECLINED
    if rematch.next_table_id is not None:
        return RematchStatus.STARTED
    if now >= rematch.expires_at:
        return RematchStatus.EXPIRED
    return RematchStatus.OPEN


def rematch_payload(rematch: Rematch, iso: Callable[[datetime], str]) -> RematchOutput:
    return {
        "accepted": list(rematch.accepted),
        "declined": list(rematch.declined),
        "expires": iso(rematch.expires_at),
        "table": rematch.next_table_id,
        "status": rematch_status(rematch, timezone.now()).value,
    }


def game_over(table: Table, iso: Callable[[datetime], str]) -> GameOverOutput:
    """The ``ratings`` and ``rematch`` of ``table`` (both None until it is finished). ``iso``
    writes a time as the answers do (``games.selectors.utc_text``, which imports this)."""
    if table.status != Table.Status.FINISHED:
        return NOT_OVER.copy()
    rematch = Rematch.objects.filter(table_id=table.pk).first()
    return {
        "ratings": table_ratings(table),
        "rematch": None if rematch is None else rematch_payload(rematch, iso),
    }
