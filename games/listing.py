"""The lobby's lists of tables: open tables to join and games in play to watch, with filters,
and the entry each list (and each ``table`` frame of the lobby socket) shows of a table; how
busy the site is (``live_counts``) and the tables a player sits at (``tables_of``).

A read, like ``games.selectors``; ``games.push`` sends the entry to the lobby's sockets after
every change that concerns the lists.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db.models import Count, Q, QuerySet

from games.engine.errors import BAD_REQUEST
from games.engine.rules import MAX_PLAYERS, MIN_PLAYERS
from games.errors import TableError
from games.models import Seat, Table
from games.payloads import ListedTableOutput, LiveCounts


def listing_entry(table: Table, players: list[str]) -> ListedTableOutput:
    """What the lobby shows of ``table``, ``players`` seated in seat order."""
    return {
        "id": table.pk,
        "status": table.status,
        "ruleset": table.ruleset.slug,
        "ruleset_name": table.ruleset.name,
        "seats": table.seats,
        "players": players,
        "turn_seconds": table.turn_seconds,
        "rated": table.rated,
        "club": table.club.slug if table.club else None,
        "created_at": table.created_at.isoformat().replace("+00:00", "Z"),
        "url": table.get_absolute_url(),
    }


@dataclass(frozen=True, slots=True)
class TableFilter:
    """The lists' filters; None lets everything through."""

    status: str = Table.Status.WAITING
    ruleset: str | None = None
    seats: int | None = None
    club: str | None = None
    rated: bool | None = None


_RATED = {"true": True, "1": True, "false": False, "0": False}


def table_filter(params: dict[str, str]) -> TableFilter:
    """The filters of ``GET /api/tables/``'s query (``status``, ``ruleset``, ``seats``, ``club``,
    ``rated``); an empty value is no filter.

    :raises TableError: ``bad_request`` naming the parameter at fault.
    """
    status = params.get("status") or Table.Status.WAITING
    if status not in Table.Status.values:
        raise TableError(BAD_REQUEST, f"status: one of {', '.join(Table.Status.values)}")
    seats: int | None = None
    if params.get("seats"):
        text = params["seats"]
        if not (text.isascii() and text.isdigit()) or not MIN_PLAYERS <= int(text) <= MAX_PLAYERS:
            raise TableError(BAD_REQUEST, f"seats: a number from {MIN_PLAYERS} to {MAX_PLAYERS}")
        seats = int(text)
    rated: bool | None = None
    if params.get("rated"):
        if params["rated"] not in _RATED:
            raise TableError(BAD_REQUEST, "rated: true or false")
        rated = _RATED[params["rated"]]
    return TableFilter(
        status=status,
        ruleset=params.get("ruleset") or None,
        seats=seats,
        club=params.get("club") or None,
        rated=rated,
    )


def tables_listed(wanted: TableFilter) -> QuerySet[Table]:
    """The tables ``wanted`` lets through, newest first, with their seats and users loaded
    (``seat_infos(table.seat_set.all())``)."""
    rows = Table.objects.filter(status=wanted.status)
    if wanted.ruleset is not None:
        rows = rows.filter(ruleset__slug=wanted.ruleset)
    if wanted.seats is not None:
        rows = rows.filter(seats=wanted.seats)
    if wanted.club is not None:
        rows = rows.filter(club__slug=wanted.club)
    if wanted.rated is not None:
        rows = rows.filter(rated=wanted.rated)
    return (
        rows.order_by("-created_at", "-pk")
        .select_related("ruleset", "creator", "club")
        .prefetch_related("seat_set__user")
    )


def live_counts() -> LiveCounts:
    """How busy the site is: tables in play, players seated at them, tables gathering players
    (the home page and the lobby show these). Two queries, whatever the numbers."""
    playing, waiting = Table.Status.PLAYING, Table.Status.WAITING
    tables = Table.objects.aggregate(
        playing=Count("pk", filter=Q(status=playing)),
        waiting=Count("pk", filter=Q(status=waiting)),
    )
    players = Seat.objects.filter(table__status=playing).values("user").distinct().count()
    return {
        "tables_playing": tables["playing"],
        "players_playing": players,
        "tables_waiting": tables["waiting"],
    }


def tables_of(user: Any) -> QuerySet[Table]:
    """The tables ``user`` sits at that are in play or still gathering players, newest first."""
    statuses = (Table.Status.PLAYING, Table.Status.WAITING)
    return (
        Table.objects.filter(status__in=statuses, seat_set__user=user)
        .select_related("ruleset")
        .prefetch_related("seat_set__user")
        .order_by("-pk")
        .distinct()
    )
