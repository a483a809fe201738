"""Why a seat call would be refused now: the preconditions of ``table_join``, ``table_leave`` and
``table_start``, written once.

Each ``*_refusal`` returns the ``TableError`` its service would raise, or None when the service
would accept. The services raise what these return, holding the table's row lock, with the seats
read under it. The pages, the REST answer and the table socket call them too (``seat_actions``),
without the lock: what they say is advisory, a moment old, and the service has the last word. So
a page never offers a call its service refuses, nor hides one it accepts.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from django.conf import settings

from accounts.models import ClubMembership, User
from games.engine.errors import FORBIDDEN, NOT_SEATED
from games.engine.rules import MIN_PLAYERS
from games.errors import (
    ALREADY_STARTED,
    NOT_ENOUGH_PLAYERS,
    TABLE_FULL,
    TOO_MANY_TABLES,
    TableError,
)
from games.models import Seat, Table
from games.payloads import SeatActions


class SeatRow(Protocol):
    """A seat as the checks read it: a ``Seat`` row or a ``selectors.SeatInfo``."""

    @property
    def user_id(self) -> int: ...


NO_ACTIONS: SeatActions = {"join": False, "leave": False, "start": False}


def is_member(user: User, club_id: int) -> bool:
    return ClubMembership.objects.filter(club_id=club_id, user=user).exists()


def seated(user: User, seats: Sequence[SeatRow]) -> bool:
    return any(s.user_id == user.pk for s in seats)


def join_refusal(table: Table, user: User, seats: Sequence[SeatRow]) -> TableError | None:
    """Why ``user`` may not take a seat at ``table`` (``seats``: its seats as read with it).
    One seated already is not refused: joining twice is a no-op."""
    if table.status != Table.Status.WAITING:
        return TableError(ALREADY_STARTED, "the game has already begun", status=409)
    if len(seats) >= table.seats:
        return TableError(TABLE_FULL, f"all {table.seats} seats are taken", status=409)
    if table.club_id is not None and not is_member(user, table.club_id):
        return TableError(FORBIDDEN, "only the club's members sit at its tables", status=403)
    return waiting_cap_refusal(user)


def waiting_cap_refusal(user: User) -> TableError | None:
    """Why ``user`` may not take another seat at a waiting table: they sit at
    ``WAITING_TABLES_PER_PLAYER`` already (the tables they opened count: they sit there). The
    services count it holding the player's row lock (``games.waiting.lock_player``)."""
    cap = settings.WAITING_TABLES_PER_PLAYER
    if Seat.objects.filter(user=user, table__status=Table.Status.WAITING).count() >= cap:
        return TableError(
            TOO_MANY_TABLES,
            f"you sit at {cap} tables waiting for players already: start or leave one first",
            status=409,
        )
    return None


def leave_refusal(table: Table, user: User, seats: Sequence[SeatRow]) -> TableError | None:
    """Why ``user`` may not give up a seat at ``table``: the game has begun, or they have none."""
    if table.status != Table.Status.WAITING:
        return TableError(ALREADY_STARTED, "seats are kept once the game begins", status=409)
    if not seated(user, seats):
        return TableError(NOT_SEATED, "you have no seat at this table")
    return None


def start_refusal(table: Table, user: User, seats: Sequence[SeatRow]) -> TableError | None:
    """Why ``user`` may not deal the first hand: only the creator does, before the start, with
    at least two seated."""
    if table.creator_id != user.pk:
        return TableError(FORBIDDEN, "only the table's creator starts it", status=403)
    if table.status != Table.Status.WAITING:
        return TableError(ALREADY_STARTED, "the game has already begun", status=409)
    if len(seats) < MIN_PLAYERS:
        return TableError(NOT_ENOUGH_PLAYERS, "at least two players must be seated")
    return None


def seat_actions(table: Table, user: Any, seats: Sequence[SeatRow]) -> SeatActions:
    """What ``user`` (anonymous, or None) may do at ``table`` now: each call its service would
    accept and that would change something (joining again is a no-op, so no ``join`` for one
    seated). An anonymous visitor may do nothing until they log in."""
    if user is None or not user.is_authenticated:
        return NO_ACTIONS.copy()
    return {
        "join": not seated(user, seats) and join_refusal(table, user, seats) is None,
        "leave": leave_refusal(table, user, seats) is None,
        "start": start_refusal(table, user, seats) is None,
    }
