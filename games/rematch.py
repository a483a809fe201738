"""A rematch: the players of a finished table (outside events) play again, at a new table with
the same players, rules, clock, rated and club, once every one of them has accepted.

The first answer opens the offer, which stands ``REMATCH_SECONDS`` (docs/tables.md). Every answer
runs in one transaction holding the old table's row lock, so when the last two accepts arrive
together one of them finds everyone accepted and makes the new table, and the other finds it
made: exactly one new table (``Rematch.next_table`` is one to one besides). Each answer pushes
the old table after commit, so every page open on it sees the offer change, and goes to the new
table when ``rematch.table`` names it. The answer that opens the offer (an accept) tells the
other players by a notice (``notifications``).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.urls import reverse
from django.utils import timezone

from accounts.models import User
from config.errors import refuse
from games import push, timers
from games.engine.errors import BAD_REQUEST, FORBIDDEN, NOT_SEATED, WRONG_PHASE
from games.errors import REMATCH_OVER, TableError
from games.game_over import is_event_table, rematch_status
from games.models import Rematch, Seat, Table
from games.payloads import RematchStatus
from games.record import lock_table, start_game
from notifications.models import Kind
from notifications.services import notify


def rematch_refusal(table: Table, user: User, seated: Sequence[int]) -> TableError | None:
    """Why ``user`` may not answer a rematch of ``table`` at all (``seated``: its players'
    user ids): not one of its players, not finished, or an event's table (the event decides who
    plays next) or a face-to-face game's (never played here)."""
    if user.pk not in seated:
        return TableError(NOT_SEATED, "only the table's players answer a rematch")
    if table.status != Table.Status.FINISHED:
        return TableError(WRONG_PHASE, "a rematch follows a finished game")
    if is_event_table(table):
        return TableError(FORBIDDEN, "an event's table has no rematch: the event goes on", 403)
    if table.state is None:
        return TableError(FORBIDDEN, "a game entered after it was played has no rematch", 403)
    return None


def table_rematch(*, table_id: int, user: User, accept: object) -> Table:
    """``user`` accepts or declines a rematch of the finished table ``table_id``. The first
    answer opens the offer; a decline ends it; when every player has accepted, the new table is
    made and started. Accepting twice changes nothing, and so does declining again.

    :raises TableError: ``bad_request`` (``accept`` not true or false), ``not_seated``,
        ``wrong_phase`` (not finished), ``forbidden`` (403: an event's table),
        ``rematch_over`` (409: declined or expired, or a decline once the new table is made),
        ``not_found``.
    """
    if not isinstance(accept, bool):
        raise TableError(BAD_REQUEST, "accept: must be true or false")
    with transaction.atomic():
        table = lock_table(table_id)
        players = list(Seat.objects.filter(table=table).order_by("position").select_related("user"))
        seated = [s.user_id for s in players]
        refuse(rematch_refusal(table, user, seated))
        now = timezone.now()
        rematch, opened = _offer(table, now)
        if opened and accept:
            _tell_offered(table, user, [s.user for s in players])
        if _answer(rematch, user.username, accept, now):
            if len(rematch.accepted) == len(players):
                rematch.next_table = _new_table(table, [s.user for s in players])
            rematch.save()
            push.on_commit_table(table)
    return table


def _offer(table: Table, now: datetime) -> tuple[Rematch, bool]:
    """The table's offer, and whether it opens now (nobody has answered yet: then its expiry
    is pushed)."""
    rematch = Rematch.objects.filter(table=table).first()
    if rematch is not None:
        return rematch, False
    expires = now + timedelta(seconds=settings.REMATCH_SECONDS)
    timers.on_commit_rematch_expiry(table.pk, expires)
    return Rematch(table=table, expires_at=expires), True


def _tell_offered(table: Table, offerer: User, players: list[User]) -> None:
    """The offer is made: tell the other players (one notice each per table)."""
    link = reverse("games:table", args=[table.pk])
    text = f"{offerer.username} offers you a rematch of table {table.pk}."
    for other in players:
        if other.pk != offerer.pk:
            notify(
                user=other, kind=Kind.REMATCH_OFFER, text=text, link=link, key=f"rematch:{table.pk}"
            )


def _answer(rematch: Rematch, name: str, accept: bool, now: datetime) -> bool:
    """Record ``name``'s answer; whether it changed anything.

    :raises TableError: ``rematch_over`` for an offer declined or expired, and for a decline
        once the new table is made.
    """
    status = rematch_status(rematch, now)
    if status == RematchStatus.STARTED and accept:
        return False  # they accepted already: everyone had
    if status != RematchStatus.OPEN:
        raise TableError(REMATCH_OVER, _over_message(status), status=409)
    if accept:
        if name in rematch.accepted:
            return False
        rematch.accepted = [*rematch.accepted, name]
    else:
        rematch.accepted = [n for n in rematch.accepted if n != name]
        rematch.declined = [*rematch.declined, name]
    return True


def _over_message(status: RematchStatus) -> str:
    return {
        RematchStatus.DECLINED: "the rematch was declined",
        RematchStatus.EXPIRED: "the rematch offer has expired",
        RematchStatus.STARTED: "the rematch has begun",
    }[status]


def _new_table(old: Table, players: list[User]) -> Table:
    """The rematch's table, started: the old one's rules exactly as it froze them (a rule set
    edited since does not reach it), clock, rated and club. Seats move round by one, so another
    player is first to act (the last seat deals) and the creator's seat changes hands."""
    order = players[1:] + players[:1]
    table = Table.objects.create(
        ruleset=old.ruleset,
        rules=old.rules,
        overrides=old.overrides,
        seats=len(order),
        turn_seconds=old.turn_seconds,
        time_bank_seconds=old.time_bank_seconds,
        between_hands_seconds=old.between_hands_seconds,
        rated=old.rated,
        club=old.club,
        creator=order[0],
    )
    Seat.objects.bulk_create(Seat(table=table, user=u, position=i) for i, u in enumerate(order))
    start_game(table)
    push.on_commit_table(table, since=0)  # the deal's row is a move too
    return table


def rematch_expiry_push(table_id: int) -> bool:
    """Push the table whose offer has expired, so open pages show it; True if it pushed. An
    offer ended otherwise pushes nothing (the answer that ended it pushed already); a task early
    by two machines' clocks' difference sets itself again."""
    rematch = Rematch.objects.filter(table_id=table_id).first()
    if rematch is None:
        return False
    status = rematch_status(rematch, timezone.now())
    if status == RematchStatus.OPEN:
        timers.send_rematch_expiry(table_id, rematch.expires_at)
    if status != RematchStatus.EXPIRED:
        return False
    push.push_table_id(table_id)
    return True
