"""Organizer tools: withdraw or disqualify a player, pause and resume the event, adjudicate a
stuck table, re-seat or start a waiting round, announce. Every one is audited.

Lock order (see ``tournaments.locks``): a live table's lock is never taken while the event's
is held. Where both must change, the event's part commits first and the tables' part runs after
commit, each table in its own transaction (``transaction.on_commit``); adjudication alone takes
the one game's lock first and then the event's, as the finalization hook does, so that its
verdict and the game's are decided under the same locks. Each tool raises the
refusal of its check in ``tournaments.refusals``, which the organizer's page asks too.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

from django.db import transaction
from django.utils import timezone

from accounts.models import User
from config.errors import refuse
from games.clock_services import table_pause, table_resume
from games.errors import TableError
from games.hosting import table_adjudicate
from games.record import lock_table
from tournaments.access import require_admin
from tournaments.audit import audit
from tournaments.departures import leave_event, live_tables
from tournaments.errors import EventError
from tournaments.limits import ANNOUNCEMENT_MAX, REASON_MAX, within
from tournaments.locks import lock_event
from tournaments.models import Announcement, AuditEntry, Entry, Round, RoundTable, Tournament
from tournaments.refusals import (
    adjudicate_refusal,
    has_live_game,
    pause_refusal,
    remove_refusal,
    reseat_refusal,
    resume_refusal,
    round_start_refusal,
)
from tournaments.rounds import advance_if_done, record, start_round
from tournaments.selectors import round_table_get

Status = Tournament.Status
Action = AuditEntry.Action


def entry_remove(
    *, event_id: int, entry_id: int, actor: User, disqualify: bool, reason: str
) -> Entry:
    """An organizer withdraws (or disqualifies) a player. Before the event starts the entry is
    simply withdrawn; once it runs, see ``leave_event``.

    :raises EventError: ``forbidden``, ``not_found``, ``wrong_status`` (the event is over),
        ``bad_request`` (a reason past ``REASON_MAX``).
    """
    status = Entry.Status.DISQUALIFIED if disqualify else Entry.Status.WITHDRAWN
    reason = within(reason, "reason", REASON_MAX)
    with transaction.atomic():
        event = lock_event(event_id)
        require_admin(actor, event)
        entry = Entry.objects.filter(tournament=event, pk=entry_id).select_related("user").first()
        if entry is None:
            raise EventError("not_found", f"no entry {entry_id} in this event", 404)
        refuse(remove_refusal(event, actor, own=entry.user_id == actor.pk))
        if event.status == Status.RUNNING and entry.active:
            leave_event(event, entry, status, actor=actor, reason=reason)
        elif entry.status != status:
            entry.status, entry.reason, entry.left_at = status, reason, timezone.now()
            entry.save(update_fields=["status", "reason", "left_at"])
            audit(event, actor, Action(status), {"player": entry.user.username, "reason": reason})
    return entry


def event_pause(*, event_id: int, actor: User) -> Tournament:
    """Freeze every table of the event (their clocks stand still) and hold back new rounds."""
    with transaction.atomic():
        event = _running_event(event_id, actor, pause_refusal)
        if event.paused_at is None:
            event.paused_at = timezone.now()
            event.save(update_fields=["paused_at"])
            audit(event, actor, Action.PAUSE, {})
        tables = [t.pk for t in live_tables(event)]
    _quietly(table_pause, tables, actor, every_table=True)
    return event


def event_resume(*, event_id: int, actor: User) -> Tournament:
    """Restart the clocks of every table, and start the round that waited meanwhile."""
    with transaction.atomic():
        event = _running_event(event_id, actor, resume_refusal)
        tables = [t.pk for t in live_tables(event)]
    _quietly(table_resume, tables, actor, every_table=True)
    with transaction.atomic():
        event = lock_event(event_id)
        if event.paused_at is not None:
            event.paused_at = None
            event.save(update_fields=["paused_at"])
            audit(event, actor, Action.RESUME, {})
            waiting = event.round_set.filter(status=Round.Status.PENDING).first()
            if waiting is not None and event.auto_advance:
                start_round(event, waiting)
    return event


def _running_event(
    event_id: int, actor: User, refusal: Callable[[Tournament], EventError | None]
) -> Tournament:
    """The event, locked, once ``actor`` runs it and ``refusal`` (that it is not running) has
    nothing to say. Call inside a transaction."""
    event = lock_event(event_id)
    require_admin(actor, event)
    refuse(refusal(event))
    return event


def _quietly(call: Any, tables: list[int], actor: User, **options: Any) -> None:
    """Pause or resume each table; one that has just finished (or was already so) is skipped."""
    for table_id in tables:
        try:
            call(table_id=table_id, user=actor, **options)
        except TableError as exc:
            if exc.status >= 500:
                raise


def round_table_adjudicate(
    *, event_id: int, round_table_id: int, places: dict[str, int], actor: User, reason: str
) -> RoundTable:
    """Decide a table's result: each player's place (by username), with a reason. A game in
    play is ended as adjudicated (its result then arrives through the finalization hook); a
    table without a game (face to face, or never opened) is recorded at once.

    One verdict per table: the table's game (when it has one) and then the event are locked in
    the app's lock order (``tournaments.locks``) and the refusal is read again under both, so an
    adjudication arriving with a face-to-face entry, another adjudication or the game's own end
    waits for it and is then refused (``wrong_status``) with nothing changed. A table that has a
    game is decided by that game alone.

    :raises EventError: ``forbidden`` (not an organizer, or one who plays at this table),
        ``not_found``, ``wrong_status``, ``bad_request``.
    :raises TableError: the live game's refusal (``games.hosting.table_adjudicate``).
    """
    reason = within(reason, "reason", REASON_MAX)
    with transaction.atomic():
        table = round_table_get(event_id, round_table_id)
        require_admin(actor, table.round.tournament)  # before any lock: no one else waits on it
        if table.table_id is not None:
            lock_table(table.table_id)  # once a round table has a game, it keeps it
        event = lock_event(event_id)
        require_admin(actor, event)
        table = round_table_get(event_id, round_table_id)  # read again, under the locks
        refuse(adjudicate_refusal(table, actor))
        live = has_live_game(table)
        if live:
            assert table.table_id is not None  # has_live_game: it has one
            table_adjudicate(table_id=table.table_id, places=places, actor=actor, reason=reason)
        else:
            _record_adjudication(event, table, places, reason)
        table.adjudicated = reason.strip()
        table.save(update_fields=["adjudicated"])
        details = {"table": table.pk, "places": places, "reason": reason}
        audit(event, actor, Action.ADJUDICATE, details)
        if not live:  # a game's result arrives through its finalization hook
            advance_if_done(event, table.round)
    return table


def _record_adjudication(
    event: Tournament, table: RoundTable, places: dict[str, int], reason: str
) -> None:
    """A table without a game takes the organizer's places at once. Call holding the lock."""
    # Players who have left the event are not placed: ``record`` puts them last, absent, as at
    # an online table and as the scorekeeper does.
    names = dict(
        Entry.objects.filter(pk__in=table.players, status=Entry.Status.PLAYING).values_list(
            "user__username", "pk"
        )
    )
    if sorted(places) != sorted(names) or not reason.strip():
        raise EventError(
            "bad_request", "give every player still in the event a place, and a reason"
        )
    record(table, {names[n]: (p, 0, False) for n, p in places.items()})


def round_reseat(*, event_id: int, round_id: int, tables: list[list[int]], actor: User) -> Round:
    """Seat a waiting round differently: the same players (entry ids), at tables the organizer
    gives, each of two or more and at most the event's table size.

    :raises EventError: ``forbidden``, ``not_found``, ``wrong_status`` (it has started),
        ``bad_request`` (other players, a table of the wrong size, or a bracket format).
    """
    with transaction.atomic():
        event, round_ = _event_round(event_id, round_id, actor)
        refuse(reseat_refusal(event, round_, actor))
        planned = Counter(p for t in round_.tables.all() for p in t.players)
        given = Counter(p for t in tables for p in t)
        if given != planned or any(not 2 <= len(t) <= event.table_size for t in tables):
            raise EventError("bad_request", "seat exactly the round's players, 2 to a table's size")
        round_.tables.all().delete()
        RoundTable.objects.bulk_create(
            RoundTable(round=round_, index=i, key=f"T{i + 1}", players=t)
            for i, t in enumerate(tables)
        )
        audit(event, actor, Action.RESEAT, {"round": round_.number, "tables": tables})
    return round_


def round_start(*, event_id: int, round_id: int, actor: User) -> Round:
    """Start a round that waits for the organizer (events that do not run rounds by themselves).

    :raises EventError: ``forbidden``, ``not_found``, ``wrong_status``.
    """
    with transaction.atomic():
        event, round_ = _event_round(event_id, round_id, actor)
        refuse(round_start_refusal(event, round_))
        audit(event, actor, Action.START_ROUND, {"round": round_.number})
        start_round(event, round_)
    return round_


def _event_round(event_id: int, round_id: int, actor: User) -> tuple[Tournament, Round]:
    """The event, locked, and its round ``round_id``, once ``actor`` runs the event. Call inside
    a transaction.

    :raises EventError: ``forbidden``, ``not_found``.
    """
    event = lock_event(event_id)
    require_admin(actor, event)
    round_ = event.round_set.filter(pk=round_id).first()
    if round_ is None:
        raise EventError("not_found", f"no round {round_id} in this event", 404)
    return event, round_


def announce(*, event_id: int, text: str, actor: User) -> Announcement:
    """Post an announcement on the event's page, at most ``ANNOUNCEMENT_MAX`` characters.

    :raises EventError: ``bad_request``."""
    if not text.strip():
        raise EventError("bad_request", "text: an announcement needs words")
    text = within(text, "text", ANNOUNCEMENT_MAX)
    with transaction.atomic():
        event = lock_event(event_id)
        require_admin(actor, event)
        note = Announcement.objects.create(tournament=event, text=text.strip(), author=actor)
        audit(event, actor, Action.ANNOUNCE, {"text": note.text})
    return note
