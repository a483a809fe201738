"""``GET /api/leaderboard/`` and ``GET /api/players/{username}/`` (PROTOCOL.md), open to all.

Both take the pool as PROTOCOL.md's ``ruleset`` or ``club`` (a preset's or club's slug; neither
is the global pool). Additions to the contract, all optional: the leaderboard's ``period``
(``all`` or ``month``), ``min_games``, ``provisional`` (``false`` hides players with fewer than
20 games in the pool) and ``around`` (a username: the page that holds them), and each row's
``provisional``; the player's ``provisional``, ``rank``, ``pools`` and each history entry's
``place`` and ``table_size``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.models import User
from config.exceptions import ErrorOutput
from config.payloads import serializer_for
from games.selectors import utc_text
from ratings import payloads
from ratings.elo import START
from ratings.glicko import START_DEVIATION
from ratings.selectors import (
    PERIODS,
    Board,
    BoardError,
    PoolChoice,
    board_count,
    board_page,
    board_position,
    player_ratings,
    pool_choice,
    rating_history,
    rating_in,
)

LIMIT_DEFAULT = 50
LIMIT_MAX = 500
HISTORY_DEFAULT = 100
HISTORY_MAX = 1000


# The answers' serializers, for the schema, from their one typed definition in ratings.payloads.
BoardOutput = serializer_for(payloads.BoardOutput)
PlayerOutput = serializer_for(payloads.PlayerOutput)


def whole_param(params: Mapping[str, Any], name: str, default: int, low: int, high: int) -> int:
    """A whole-number query parameter from ``low`` to ``high``; empty or absent: ``default``.

    :raises BoardError: ``bad_request`` for anything else.
    """
    raw = params.get(name)
    if raw in (None, ""):
        return default
    try:
        value = int(raw)
    except ValueError:
        raise BoardError("bad_request", f"{name}: must be a whole number") from None
    if not low <= value <= high:
        raise BoardError("bad_request", f"{name}: must be from {low} to {high}")
    return value


def flag_param(params: Mapping[str, Any], name: str, default: bool) -> bool:
    """A true/false query parameter (``1``/``true``/``yes``, ``0``/``false``/``no``).

    :raises BoardError: ``bad_request`` for anything else.
    """
    raw = params.get(name)
    if raw in (None, ""):
        return default
    if raw.lower() in ("1", "true", "yes", "on"):
        return True
    if raw.lower() in ("0", "false", "no", "off"):
        return False
    raise BoardError("bad_request", f"{name}: must be true or false")


def board_from_params(
    params: Mapping[str, Any], choose: Callable[[], PoolChoice], *, provisional: bool = True
) -> Board:
    """The leaderboard ``params`` (a query) ask for, the pool being ``choose()``'s: the API
    names it by ``ruleset``/``club``, the pages by ``pool``. The parameters are checked in one
    order (period, pool, ``min_games``, ``provisional``), so the first problem is the one told.

    :raises BoardError: a bad parameter (400) or an unknown pool (404).
    """
    period = params.get("period") or "all"
    if period not in PERIODS:
        raise BoardError("bad_request", "period: must be all or month")
    return Board(
        choice=choose(),
        period=period,
        min_games=whole_param(params, "min_games", 0, 0, 1_000_000),
        provisional=flag_param(params, "provisional", provisional),
    )


def board_from(request: Request, *, provisional: bool = True) -> Board:
    """The leaderboard an API request's query asks for."""
    params = request.query_params
    return board_from_params(
        params,
        lambda: pool_choice(params.get("ruleset"), params.get("club")),
        provisional=provisional,
    )


def _whole(request: Request, name: str, default: int, low: int, high: int) -> int:
    return whole_param(request.query_params, name, default, low, high)


class RatingsApi(APIView):
    permission_classes = [AllowAny]


POOL_PARAMS = [
    OpenApiParameter("ruleset", str, description="A rule preset's slug: its pool"),
    OpenApiParameter("club", str, description="A club's slug: its pool"),
]


class LeaderboardApi(RatingsApi):
    @extend_schema(
        operation_id="leaderboard",
        parameters=[
            *POOL_PARAMS,
            OpenApiParameter("limit", int, description=f"1 to {LIMIT_MAX}, default 50"),
            OpenApiParameter("offset", int, description="Rows to skip, default 0"),
            OpenApiParameter("period", str, enum=list(PERIODS), description="all or month"),
            OpenApiParameter("min_games", int, description="Only players with this many games"),
            OpenApiParameter("provisional", bool, description="false: hide provisional players"),
            OpenApiParameter("around", str, description="A username: the page holding them"),
        ],
        responses={200: BoardOutput, 400: ErrorOutput, 404: ErrorOutput},
    )
    def get(self, request: Request) -> Response:
        board = board_from(request)
        limit = _whole(request, "limit", LIMIT_DEFAULT, 1, LIMIT_MAX)
        offset = _whole(request, "offset", 0, 0, 10**9)
        around = request.query_params.get("around")
        if around:
            found = board_position(board, around)
            if found is None:
                raise BoardError("not_found", f"{around!r} is not on this leaderboard", 404)
            offset = found[0] // limit * limit
        rows = board_page(board, offset, limit)
        results: list[payloads.RowOutput] = [
            {
                "rank": r.rank,
                "username": r.username,
                "rating": r.rating,
                "games": r.games,
                "provisional": r.provisional,
                "deviation": r.deviation,
            }
            for r in rows
        ]
        answer: payloads.BoardOutput = {
            "count": board_count(board),
            "pool": board.choice.key,
            "limit": limit,
            "offset": offset,
            "results": results,
        }
        return Response(answer)


class PlayerApi(RatingsApi):
    @extend_schema(
        operation_id="player",
        parameters=[
            *POOL_PARAMS,
            OpenApiParameter("history", int, description="Last N changes, default 100"),
        ],
        responses={200: PlayerOutput, 400: ErrorOutput, 404: ErrorOutput},
    )
    def get(self, request: Request, username: str) -> Response:
        user = User.objects.named(username)
        if user is None:
            raise BoardError("not_found", f"no player {username!r}", 404)
        choice = pool_choice(request.query_params.get("ruleset"), request.query_params.get("club"))
        limit = _whole(request, "history", HISTORY_DEFAULT, 0, HISTORY_MAX)
        return Response(player_answer(user, choice, limit))


def player_answer(user: User, choice: PoolChoice, limit: int) -> payloads.PlayerOutput:
    rating = rating_in(choice, user)
    rank = None
    if rating is not None:
        found = board_position(Board(choice), user.username)
        rank = found[1].rank if found else None
    history: list[payloads.HistoryOutput] = [
        {
            "game": h["table_id"],
            "at": utc_text(h["at"]),
            "before": h["before"],
            "after": h["after"],
            "deviation": h["deviation_after"],
            "place": h["place"],
            "table_size": h["table_size"],
        }
        for h in rating_history(choice, user, limit)
    ]
    pools: list[payloads.PoolRatingOutput] = [
        {
            "pool": c.key,
            "label": c.label,
            "rating": r.rating,
            "games": r.games,
            "provisional": r.provisional,
            "peak": r.peak,
            "deviation": r.deviation,
        }
        for c, r in player_ratings(user)
    ]
    return {
        "username": user.username,
        "pool": choice.key,
        "rating": rating.rating if rating else START,
        "games": rating.games if rating else 0,
        "provisional": rating.provisional if rating else True,
        "deviation": rating.deviation if rating else START_DEVIATION,
        "rank": rank,
        "history": history,
        "pools": pools,
    }
