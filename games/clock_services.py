"""Services of the turn clock: play an overdue turn, pause and resume a table, bring an absent
player back. Each runs in one transaction holding the table's row lock, like every other change.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta

from django.db import transaction
from django.utils import timezone

from accounts.models import User
from config.metrics import TURN_TIMER_LATENESS
from games import clock, push, timers
from games.engine.errors import FORBIDDEN, NOT_SEATED, WRONG_PHASE, EngineError
from games.engine.timeout import apply_timeout, mark_back
from games.errors import TableError
from games.models import Table, TableEvent
from games.record import advance, lock_table, record_clock_change
from games.selectors import table_state, utc_text

# Who may pause and resume a table besides staff: predicates ``(user, table) -> bool`` that the
# apps owning tables register (the tournaments app: an event's admins). games imports none.
table_managers: list[Callable[[User, Table], bool]] = []


def can_manage(user: User, table: Table) -> bool:
    """Staff, or anyone a registered predicate names (an event admin of the table's event);
    never one of the table's own players (see ``plays_at``)."""
    return _manager(user, table) and not plays_at(user, table)


def _manager(user: User, table: Table) -> bool:
    if not user.is_authenticated:
        return False
    return user.is_staff or any(allowed(user, table) for allowed in table_managers)


def plays_at(user: User, table: Table) -> bool:
    """Seated at ``table``: who plays a game does not stop or start its clocks, nor their
    rivals' (an organizer playing in their own event included). A pause of every table at once,
    an event's, stops theirs too: it favours nobody."""
    return table.seat_set.filter(user_id=user.pk).exists()


def table_enforce_deadline(
    table_id: int, *, deadline: datetime | None = None, by: str = "timer"
) -> bool:
    """Play the turn of the player to move if its time is up; True if a turn was played.

    ``deadline`` is the one a timer was set for: if the table's deadline has changed since (the
    turn ended, a pause moved it) the timer is stale and nothing happens. The sweep passes None
    and acts on whatever deadline has passed. Under the row lock a second caller finds the
    deadline moved on, so a timer and the sweep racing play the turn once. A timer that fires
    before its deadline (clocks of two machines disagree) sets itself again.
    """
    with transaction.atomic():
        try:
            table = lock_table(table_id)
        except TableError:
            return False  # deleted meanwhile: nothing to enforce
        if deadline is not None and table.deadline != deadline:
            return False
        now = timezone.now()
        if not clock.is_due(table, now):
            if deadline is not None and clock.is_due(table, deadline):
                timers.on_commit_timer(table)
            return False
        state = table_state(table)
        if state is None or state.turn is None:
            return False
        due = table.deadline
        assert due is not None  # is_due checked it
        late = round((now - due) / timedelta(milliseconds=1))
        data = {"deadline": utc_text(due), "late_ms": late, "by": by}
        mover = state.players[state.turn].name
        advance(
            table,
            apply_timeout(state),
            actor=None,
            kind=TableEvent.Kind.TIMEOUT,
            player=mover,
            data=data,
        )
        TURN_TIMER_LATENESS.labels(by).observe((now - due).total_seconds())
    return True


def overdue_table_ids(now: datetime, *, grace: timedelta, limit: int) -> list[int]:
    """Tables in play, not paused, whose deadline passed more than ``grace`` ago (their timer
    is late or lost), most overdue first."""
    rows = Table.objects.filter(
        status=Table.Status.PLAYING, paused_at__isnull=True, deadline__lte=now - grace
    ).order_by("deadline")
    return list(rows.values_list("pk", flat=True)[:limit])


def _managed(table_id: int, user: User, every_table: bool) -> Table:
    """The table, locked, once ``user`` may pause and resume it: one of ``every_table`` (an
    event's pause of all its tables) may be a table they play at."""
    table = lock_table(table_id)
    if not every_table and plays_at(user, table):
        raise TableError(FORBIDDEN, "you play at this table: staff or an organizer pauses it", 403)
    if not _manager(user, table):
        raise TableError(FORBIDDEN, "only staff or the event's organizers pause a table", 403)
    if table.status != Table.Status.PLAYING:
        raise TableError(WRONG_PHASE, "only a game in play can be paused or resumed")
    return table


def table_pause(*, table_id: int, user: User, every_table: bool = False) -> Table:
    """Freeze every clock of the table; actions are refused until it resumes. Logged as a
    ``pause`` row (a new version, the game unchanged); pausing a paused table changes nothing.
    ``every_table``: one of a pause of all an event's tables, which may include the user's own.

    :raises TableError: ``forbidden`` (403: not staff nor an organizer of the table's event, or
        seated at it), ``wrong_phase`` (not in play), ``not_found``.
    """
    with transaction.atomic():
        table = _managed(table_id, user, every_table)
        if table.paused_at is None:
            clock.pause(table, timezone.now())
            table.paused_by = user
            since = table.version
            record_clock_change(table, user, TableEvent.Kind.PAUSE, ["paused_at", "paused_by"])
            push.on_commit_table(table, since=since)
    return table


def table_resume(*, table_id: int, user: User, every_table: bool = False) -> Table:
    """Restart the clocks where they stopped: the mover gets the time they had left. Logged as
    a ``resume`` row; resuming a table that runs changes nothing. ``every_table``: as for
    ``table_pause``.

    :raises TableError: ``forbidden`` (403, as for ``table_pause``), ``wrong_phase``,
        ``not_found``.
    """
    with transaction.atomic():
        table = _managed(table_id, user, every_table)
        if table.paused_at is not None:
            clock.resume(table, timezone.now())
            since = table.version
            record_clock_change(
                table,
                user,
                TableEvent.Kind.RESUME,
                ["paused_at", "turn_started_at", "deadline", "break_ends_at"],
            )
            timers.on_commit_timer(table)
            push.on_commit_table(table, since=since)
    return table


def table_back(*, table_id: int, user: User) -> Table:
    """An absent player is back: their turns wait for them again (logged as ``back``). A
    player who is not absent changes nothing.

    :raises TableError: ``not_seated``, ``wrong_phase`` (not in play), ``not_found``.
    """
    with transaction.atomic():
        table = lock_table(table_id)
        state = table_state(table)
        if table.status != Table.Status.PLAYING or state is None:
            raise TableError(WRONG_PHASE, "the game is not in play")
        if state.seat_of(user.username) is None:
            raise TableError(NOT_SEATED, "only a player seated at this table may come back")
        if user.username in table.withdrawn:
            raise TableError(FORBIDDEN, "an organizer withdrew you from this table", 403)
        try:
            transition = mark_back(state, user.username)
        except EngineError as exc:
            raise TableError.from_engine(exc) from None
        if transition.events:
            advance(table, transition, actor=user, kind=TableEvent.Kind.BACK)
    return table
