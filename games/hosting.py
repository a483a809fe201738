"""Tables run for someone else: an event opens a table with its players already seated.

The event (``tournaments``) decides who sits where; these services only check what the table
itself needs (rules that deal to that many players, a valid clock), so the club-membership check
of a player opening their own club table does not apply here.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.db import transaction

from accounts.models import Club, User
from games import push
from games.engine.errors import BAD_REQUEST, NOT_SEATED, WRONG_PHASE
from games.engine.timeout import mark_absent
from games.errors import TableError
from games.models import RuleSet, Seat, Table, TableEvent
from games.record import advance, lock_table, record_adjudication, start_game
from games.selectors import table_state
from games.services import table_create


def table_open_for(
    *,
    players: Sequence[User],
    ruleset: RuleSet | str,
    overrides: dict[str, Any] | None = None,
    turn_seconds: int | None = None,
    time_bank_seconds: int | None = None,
    rated: bool = True,
    club: Club | None = None,
) -> Table:
    """A table with ``players`` seated in this order and its game started (hand 1 dealt, the
    first turn's clock running). The first player is its creator.

    :raises TableError: ``bad_request`` for rules or a clock the table refuses, or players seated
        twice.
    """
    if len({p.pk for p in players}) != len(players):
        raise TableError(BAD_REQUEST, "a player cannot take two seats")
    with transaction.atomic():
        table = table_create(
            creator=players[0],
            ruleset=ruleset,
            seats=len(players),
            overrides=overrides,
            turn_seconds=turn_seconds,
            time_bank_seconds=time_bank_seconds,
            rated=rated,
            capped=False,
        )
        if club is not None:
            table.club = club
            table.save(update_fields=["club"])
        Seat.objects.bulk_create(
            Seat(table=table, user=user, position=i) for i, user in enumerate(players[1:], 1)
        )
        start_game(table)
        push.on_commit_table(table, since=0)
    return table


def table_withdraw_player(*, table_id: int, player: User, actor: User, reason: str = "") -> Table:
    """An organizer takes ``player`` out of a game in play for good (withdrawn or disqualified
    from the event): absent from now on, their turns played at once, their actions and "back"
    refused; logged as ``withdraw``. A table not in play, or a player already withdrawn, is
    left as it is.

    :raises TableError: ``not_seated``, ``not_found``.
    """
    with transaction.atomic():
        table = lock_table(table_id)
        state = table_state(table)
        if state is None or state.seat_of(player.username) is None:
            raise TableError(NOT_SEATED, f"{player.username} has no seat at this table")
        if table.status != Table.Status.PLAYING or player.username in table.withdrawn:
            return table
        table.withdrawn = [*table.withdrawn, player.username]
        table.save(update_fields=["withdrawn"])
        transition = mark_absent(state, player.username)
        data = {"reason": reason} if reason else None
        advance(
            table,
            transition,
            actor=actor,
            kind=TableEvent.Kind.WITHDRAW,
            player=player.username,
            data=data,
        )
    return table


def table_adjudicate(*, table_id: int, places: dict[str, int], actor: User, reason: str) -> Table:
    """End a game in play with placements an organizer decided (each seated player's place, 1
    best, ties equal), for a stuck or disputed table. The result says ``adjudicated``; the
    ratings leave such a game out.

    :raises TableError: ``bad_request`` (places not one per seated player, or no reason),
        ``wrong_phase`` (not in play), ``not_found``.
    """
    if not reason.strip():
        raise TableError(BAD_REQUEST, "reason: say why the table is decided")
    with transaction.atomic():
        table = lock_table(table_id)
        state = table_state(table)
        if table.status != Table.Status.PLAYING or state is None:
            raise TableError(WRONG_PHASE, "only a game in play can be adjudicated")
        if sorted(places) != sorted(state.names) or not all(
            isinstance(p, int) and 1 <= p <= len(state.names) for p in places.values()
        ):
            raise TableError(BAD_REQUEST, "places: give each seated player a place from 1")
        record_adjudication(table, actor, places, reason.strip())
    return table
