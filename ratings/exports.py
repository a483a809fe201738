"""A whole leaderboard as CSV, read in chunks so a million rows never sit in memory at once.

Each chunk is its own query that carries on from the last row of the one before (keyset
pagination on the board's own order, ``-rating, user_id``, which the ``rating_board`` index
serves), so no database cursor stays open between chunks: the same reader works under WSGI,
where the response pulls chunks from a generator, and under ASGI, where each chunk is read in
the request's thread by ``sync_to_async`` between sends. A board that changes while it is read
(a game finishing) is read as it stands when each chunk is read.
"""

from __future__ import annotations

import csv
import io
from collections.abc import AsyncIterator, Iterable, Iterator, Sequence

from asgiref.sync import sync_to_async
from django.db.models import Count, Q

from config.csvcells import spreadsheet_safe
from ratings.glicko import provisional
from ratings.models import RatingChange
from ratings.selectors import Board, board_ratings

HEADER = ("rank", "username", "rating", "games", "provisional", "deviation")
CHUNK = 2000


class BoardReader:
    """Reads a board's rows in order, one chunk of CSV text at a time, and numbers their ranks
    as ``board_rank`` does (equal ratings share a rank)."""

    def __init__(self, board: Board, chunk: int | None = None) -> None:
        self.board = board
        self.chunk = chunk or CHUNK
        self.after: tuple[float, int] | None = None  # (rating, user id) of the last row read
        self.position = 0
        self.rank = 0
        self.done = False  # a short chunk was the last: no need to ask again

    def header(self) -> str:
        return _csv_text([HEADER])

    def next_chunk(self) -> str:
        """The next rows as CSV text; empty once the board is read to its end."""
        rows = [] if self.done else self._rows()
        self.done = len(rows) < self.chunk
        if not rows:
            return ""
        games = self._period_games([user_id for _, _, user_id, _, _ in rows])
        lines = []
        for rating, name, user_id, total, deviation in rows:
            self.position += 1
            if self.after is None or rating != self.after[0]:
                self.rank = self.position
            self.after = (rating, user_id)
            guess = "true" if provisional(deviation) else "false"
            n = games.get(user_id, total)
            lines.append(
                (self.rank, spreadsheet_safe(name), f"{rating:.1f}", n, guess, f"{deviation:.1f}")
            )
        return _csv_text(lines)

    def _rows(self) -> list[tuple[float, str, int, int, float]]:
        rows = board_ratings(self.board)
        if self.after is not None:
            rating, user_id = self.after
            # ``rating <= r`` is a range on the index; the rest only sorts out equal ratings.
            rows = rows.filter(Q(rating__lt=rating) | Q(user_id__gt=user_id), rating__lte=rating)
        found = rows.values_list("rating", "user__username", "user_id", "games", "deviation")
        found = found[: self.chunk]
        return list(found)

    def _period_games(self, users: list[int]) -> dict[int, int]:
        """On a period's board the games column counts that period's games, as on the page."""
        if self.board.since is None or self.board.choice.pool is None:
            return {}
        counts = (
            RatingChange.objects.filter(
                pool=self.board.choice.pool, user_id__in=users, at__gte=self.board.since
            )
            .values("user_id")
            .annotate(n=Count("id"))
        )
        return {c["user_id"]: c["n"] for c in counts}


def csv_rows(board: Board, chunk: int | None = None) -> Iterator[str]:
    """The board as CSV text, header first, for a response under WSGI."""
    reader = BoardReader(board, chunk)
    yield reader.header()
    while text := reader.next_chunk():
        yield text


async def csv_rows_async(board: Board, chunk: int | None = None) -> AsyncIterator[str]:
    """The same text for a response under ASGI: each chunk read in the request's thread."""
    reader = BoardReader(board, chunk)
    yield reader.header()
    read = sync_to_async(reader.next_chunk)
    while text := await read():
        yield text


def _csv_text(rows: Iterable[Sequence[object]]) -> str:
    out = io.StringIO()
    csv.writer(out, lineterminator="\r\n").writerows(rows)
    return out.getvalue()
