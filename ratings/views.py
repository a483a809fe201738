"""Pages: the leaderboard (``/leaderboard/``), its CSV export and a player's page.

The leaderboard reads the same query as the API (``period``, ``min_games``, ``provisional``) with
the pool named by ``pool`` (``global``, ``ruleset:<slug>``, ``club:<slug>``); unlike the API it
hides provisional players unless ``provisional`` is true, as a newcomer's rating is still
finding its level. ``player`` finds a player's row and shows the page that holds it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

from django.core.handlers.asgi import ASGIRequest
from django.http import HttpRequest, HttpResponse, QueryDict, StreamingHttpResponse
from django.shortcuts import render
from django.urls import reverse

from accounts.models import User
from ratings.apis import board_from_params, whole_param
from ratings.exports import csv_rows, csv_rows_async
from ratings.glicko import PROVISIONAL_DEVIATION
from ratings.profiles import player_context
from ratings.selectors import (
    PERIODS,
    Board,
    BoardError,
    board_count,
    board_page,
    board_position,
    board_search,
    pool_choice_by_key,
    pool_choices,
    rating_in,
)

PAGE_SIZE = 50
#: Page links shown either side of the current page (with the first and the last).
PAGE_WINDOW = 2
PERIOD_LABELS = {"all": "All time", "month": "This month"}


@dataclass(frozen=True)
class Search:
    """What the search box found: a username on the board and where, or why not."""

    query: str = ""
    found: str | None = None
    position: int | None = None
    message: str = ""
    candidates: list[str] = field(default_factory=list)


def page_board(params: QueryDict) -> Board:
    """The board a page's query asks for; provisional players hidden unless asked for."""
    key = params.get("pool") or "global"
    return board_from_params(params, lambda: pool_choice_by_key(key), provisional=False)


def board_query(board: Board, **extra: object) -> str:
    """The query string naming ``board`` (defaults left out), plus ``extra``."""
    query: dict[str, object] = {"pool": board.choice.key}
    if board.period != "all":
        query["period"] = board.period
    if board.min_games:
        query["min_games"] = board.min_games
    if board.provisional:
        query["provisional"] = 1
    return urlencode({**query, **extra})


def error_page(request: HttpRequest, exc: BoardError) -> HttpResponse:
    context = {"status": exc.status, "message": exc.message}
    return render(request, "ratings/error.html", context, status=exc.status)


def leaderboard(request: HttpRequest) -> HttpResponse:
    try:
        board = page_board(request.GET)
        page = whole_param(request.GET, "page", 1, 1, 10**9)
    except BoardError as exc:
        return error_page(request, exc)
    count = board_count(board)
    pages = max(1, math.ceil(count / PAGE_SIZE))
    search = find_player(board, (request.GET.get("player") or "").strip())
    if search.position is not None:
        page = search.position // PAGE_SIZE + 1
    page = min(page, pages)
    context = {
        "board": board,
        "choices": pool_choices(),
        "periods": [(p, PERIOD_LABELS[p]) for p in PERIODS],
        "rows": board_page(board, (page - 1) * PAGE_SIZE, PAGE_SIZE),
        "count": count,
        "page": page,
        "pages": pages,
        "page_links": page_links(board, page, pages),
        "search": search,
        "board_query": board_query(board),
        "provisional_deviation": PROVISIONAL_DEVIATION,
        "csv_url": reverse("ratings:leaderboard-csv") + "?" + board_query(board),
    }
    return render(request, "ratings/leaderboard.html", context)


def page_links(board: Board, page: int, pages: int) -> list[dict[str, Any]]:
    """The pagination: the first and last pages and those near ``page``; ``None`` numbers are
    gaps (drawn as an ellipsis)."""
    near = range(max(1, page - PAGE_WINDOW), min(pages, page + PAGE_WINDOW) + 1)
    shown = sorted({1, pages, *near})
    links: list[dict[str, Any]] = []
    for number in shown:
        if links and number != links[-1]["number"] + 1:
            links.append({"number": None})
        url = "?" + board_query(board, page=number)
        links.append({"number": number, "url": url, "current": number == page})
    return links


def find_player(board: Board, query: str) -> Search:
    """The player ``query`` names on the board: by exact username, else the one username on the
    board starting with it (any case); several such usernames are offered as candidates."""
    if not query:
        return Search()
    found = board_position(board, query)
    if found is None:
        candidates = board_search(board, query)
        if len(candidates) > 1:
            message = f"Several players on this board have a name starting with “{query}”:"
            return Search(query, message=message, candidates=candidates)
        if candidates:
            found = board_position(board, candidates[0])
    if found is None:
        return Search(query, message=not_on_board(board, query))
    position, row = found
    return Search(query, found=row.username, position=position)


def not_on_board(board: Board, query: str) -> str:
    """Why a player is not on this board, as precisely as we can tell."""
    user = User.objects.named(query)
    if user is None:
        return f"No player is called “{query}”."
    rating = rating_in(board.choice, user)
    if rating is None:
        return f"{user.username} has no rated game in this pool ({board.choice.label})."
    if rating.provisional and not board.provisional:
        return (
            f"{user.username} is provisional in this pool (rating {rating.rating:.0f}, deviation "
            f"{rating.deviation:.0f}, above {PROVISIONAL_DEVIATION:.0f}): tick “Show provisional "
            "players” to see them."
        )
    return f"{user.username} is not on this board with these filters (period, minimum games)."


def leaderboard_csv(request: HttpRequest) -> HttpResponse | StreamingHttpResponse:
    """The whole filtered board as CSV (rank, username, rating, games, provisional, deviation),
    streamed."""
    try:
        board = page_board(request.GET)
    except BoardError as exc:
        return HttpResponse(exc.message + "\n", status=exc.status, content_type="text/plain")
    # Each handler consumes its own kind of iterator lazily (and the other kind whole).
    rows = csv_rows_async(board) if isinstance(request, ASGIRequest) else csv_rows(board)
    response = StreamingHttpResponse(rows, content_type="text/csv; charset=utf-8")
    name = f"leaderboard-{board.choice.key.replace(':', '-')}-{board.period}.csv"
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response


def player_page(request: HttpRequest, username: str) -> HttpResponse:
    user = User.objects.named(username)
    if user is None:
        return error_page(
            request, BoardError("not_found", f"No player is called “{username}”.", 404)
        )
    try:
        choice = pool_choice_by_key(request.GET.get("pool") or "global")
    except BoardError as exc:
        return error_page(request, exc)
    return render(request, "ratings/player.html", player_context(user, choice))
