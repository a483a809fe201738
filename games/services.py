"""Every write to a table: create, join, leave, start, apply an action.

Each service runs in one transaction holding the table's row lock (``select_for_update``), so one
writer changes a table at a time whichever server or worker it runs on (DESIGN.md decision 1).
Pushes to sockets are registered with ``transaction.on_commit`` (decision 2). A game change bumps
``version`` and appends one ``TableEvent``; the snapshot in ``Table.state`` is always what
replaying those rows gives (``games.selectors.table_rebuild``). Join, leave and start raise the
refusals of ``games.refusals``, checked under the lock; the pages ask the same checks what to offer.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone

from accounts.models import Club, User
from config.errors import ServiceError, refuse
from config.metrics import TABLE_ACTION_SECONDS
from games import push, rows
from games.engine.actions import Action, parse_action
from games.engine.engine import Transition, apply
from games.engine.errors import (
    BAD_REQUEST,
    FORBIDDEN,
    GAME_OVER,
    NOT_SEATED,
    STALE_VERSION,
    WRONG_PHASE,
    ConfigError,
    EngineError,
)
from games.engine.rules import MAX_PLAYERS, MIN_PLAYERS
from games.engine.state import GameState
from games.errors import PAUSED, TableError
from games.models import BETWEEN_HANDS_SECONDS_MAX, RuleSet, Seat, Table, TableEvent
from games.record import advance, lock_table, start_game
from games.refusals import (
    is_member,
    join_refusal,
    leave_refusal,
    seated,
    start_refusal,
    waiting_cap_refusal,
)
from games.selectors import (
    SeatInfo,
    seat_infos_of,
    table_get,
    table_rebuild,
    table_seats,
    table_state,
)
from games.waiting import lock_player

# A client_id is the client's own idempotency key (a UUID in PROTOCOL.md); bounded, not parsed.
CLIENT_ID_MAX = 100
TURN_SECONDS_MAX = 3600
TIME_BANK_SECONDS_MAX = 3600


@dataclass(frozen=True, slots=True)
class ActionResult:
    """An accepted action: the table, the version and state its change left, the seats as read
    under the lock, and whether it repeated a known ``client_id`` (then ``state`` is rebuilt if
    the table has moved on)."""

    table: Table
    version: int
    state: GameState
    seats: list[SeatInfo]
    repeated: bool = False
    since: int = 0  # the version the change began at: its moves are the rows after it


def _change_end(table: Table, version: int) -> int:
    """The last version of the change whose first row is ``version``: the rows the server wrote
    in the same transaction (the next hand's deal, absent players' turns played at once) follow
    it, and every later change starts with a row of another kind."""
    end = version
    rows = TableEvent.objects.filter(table=table, version__gt=version).order_by("version")
    for later, kind, data in rows.values_list("version", "kind", "data").iterator(chunk_size=20):
        absent_turn = kind == TableEvent.Kind.TIMEOUT and data.get("absent")
        if kind != TableEvent.Kind.DEAL and not absent_turn:
            break
        end = later
    return end


def _repeat(table: Table, done: TableEvent, seats: list[SeatInfo] | None = None) -> ActionResult:
    """The answer first given to the change ``done``: the version and state its transaction
    left (the deal of the next hand and absent players' turns included)."""
    version = _change_end(table, done.version)
    state = table_state(table) if version == table.version else table_rebuild(table, upto=version)
    if state is None:
        raise TableError(WRONG_PHASE, "the game has not started yet")
    seats = table_seats(table) if seats is None else seats
    return ActionResult(table, version, state, seats, repeated=True, since=done.version - 1)


def _ruleset(ruleset: RuleSet | str) -> RuleSet:
    if isinstance(ruleset, RuleSet):
        return ruleset
    try:
        return RuleSet.objects.get(slug=ruleset)
    except RuleSet.DoesNotExist:
        raise TableError(BAD_REQUEST, f"ruleset: no rule set {ruleset!r}") from None


def _whole(value: object, name: str, low: int, high: int) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise TableError(BAD_REQUEST, f"{name}: must be a whole number from {low} to {high}")
    return value


def table_create(
    *,
    creator: User,
    ruleset: RuleSet | str,
    seats: int,
    overrides: dict[str, Any] | None = None,
    turn_seconds: int | None = None,
    time_bank_seconds: int | None = None,
    rated: bool = True,
    club: Club | str | None = None,
    between_hands_seconds: int | None = None,
    capped: bool = True,
) -> Table:
    """A new table under ``ruleset`` plus ``overrides``, its creator in the first seat.

    The effective configuration is copied into the table, so later edits to the rule set never
    reach it. ``turn_seconds`` (1 to 3,600) and ``time_bank_seconds`` (0 to 3,600) override the
    rule set's clock, ``between_hands_seconds`` (0 to 120) its break between hands (a setting
    of the table, not an engine rule: it stays out of ``overrides``). A ``club`` table (a club
    or its slug) seats only the club's members, and its rated result counts in the club's
    rating pool too. The creator may sit at ``WAITING_TABLES_PER_PLAYER`` waiting tables at
    most (``games.waiting``); ``capped=False`` is for a caller that starts the table in the same
    transaction (``games.hosting``), so it never waits.

    :raises TableError: ``bad_request`` naming the field at fault, ``forbidden`` (403) for a
        club the creator is not a member of, ``too_many_tables`` (409).
    """
    rule_set = _ruleset(ruleset)
    owner = _club(club, creator)
    seats = _whole(seats, "seats", MIN_PLAYERS, MAX_PLAYERS)
    if overrides is not None and not isinstance(overrides, dict):
        raise TableError(BAD_REQUEST, "rules: must be a JSON object of rule fields")
    overrides = dict(overrides or {})
    if turn_seconds is not None:
        overrides["turn_seconds"] = _whole(turn_seconds, "turn_seconds", 1, TURN_SECONDS_MAX)
    if time_bank_seconds is not None:
        overrides["time_bank_seconds"] = _whole(
            time_bank_seconds, "time_bank_seconds", 0, TIME_BANK_SECONDS_MAX
        )
    if between_hands_seconds is None:
        between_hands_seconds = rule_set.between_hands_seconds
    between_hands_seconds = _whole(
        between_hands_seconds, "between_hands_seconds", 0, BETWEEN_HANDS_SECONDS_MAX
    )
    if not isinstance(rated, bool):
        raise TableError(BAD_REQUEST, "rated: must be true or false")
    try:
        rules = rule_set.to_rules(overrides)
        rules.check_players(seats)
    except ConfigError as exc:
        raise TableError(BAD_REQUEST, str(exc)) from None
    if rules.turn_seconds > TURN_SECONDS_MAX:
        raise TableError(BAD_REQUEST, f"turn_seconds: must be at most {TURN_SECONDS_MAX}")
    if rules.time_bank_seconds > TIME_BANK_SECONDS_MAX:
        raise TableError(BAD_REQUEST, f"time_bank_seconds: must be at most {TIME_BANK_SECONDS_MAX}")
    with transaction.atomic():
        if capped:
            lock_player(creator)
            refuse(waiting_cap_refusal(creator))
        table = Table.objects.create(
            ruleset=rule_set,
            rules=rules.to_dict(),
            overrides=overrides,
            seats=seats,
            turn_seconds=rules.turn_seconds,
            time_bank_seconds=rules.time_bank_seconds,
            between_hands_seconds=between_hands_seconds,
            rated=rated,
            club=owner,
            creator=creator,
        )
        Seat.objects.create(table=table, user=creator, position=0)
        push.on_commit_created(table)
    return table


def _club(club: Club | str | None, creator: User) -> Club | None:
    if club is None or club == "":
        return None
    found = club if isinstance(club, Club) else _club_by_slug(club)
    if not is_member(creator, found.pk):
        raise TableError(FORBIDDEN, "only the club's members open its tables", status=403)
    return found


def _club_by_slug(slug: object) -> Club:
    if not isinstance(slug, str):
        raise TableError(BAD_REQUEST, "club: must be a club's slug")
    found = Club.objects.filter(slug=slug).first()
    if found is None:
        raise TableError(BAD_REQUEST, f"club: no club {slug!r}")
    return found


def table_join(*, table_id: int, user: User) -> Table:
    """Seat ``user``; a table that is then full starts by itself. Joining twice is a no-op.

    :raises TableError: ``already_started``, ``table_full`` or ``too_many_tables`` (409),
        ``not_found`` (404),
        ``forbidden`` (403) at a club's table for someone not in the club.
    """
    with transaction.atomic():
        table = lock_table(table_id)
        seats = list(Seat.objects.filter(table=table))
        if seated(user, seats):
            return table
        lock_player(user)  # after the table's lock, as every caller takes them
        refuse(join_refusal(table, user, seats))
        position = max((s.position for s in seats), default=-1) + 1
        Seat.objects.create(table=table, user=user, position=position)
        if len(seats) + 1 == table.seats:
            start_game(table)
        push.on_commit_table(table, since=0)  # a table that started: its whole log is new
    return table


def table_leave(*, table_id: int, user: User) -> Table:
    """Give up a seat before the game starts. A creator who leaves hands the table to the
    player seated longest; the last player to leave aborts it.

    :raises TableError: ``not_seated`` (400), ``already_started`` (409), ``not_found`` (404).
    """
    with transaction.atomic():
        table = lock_table(table_id)
        refuse(leave_refusal(table, user, list(Seat.objects.filter(table=table))))
        Seat.objects.filter(table=table, user=user).delete()
        first = Seat.objects.filter(table=table).order_by("position").first()
        if first is None:
            table.status = Table.Status.ABORTED
            table.finished_at = timezone.now()
        elif table.creator_id == user.pk:
            table.creator = first.user
        table.save(update_fields=["status", "finished_at", "creator"])
        push.on_commit_table(table)  # the leaver's sockets see it too, and turn to the public view
    return table


def table_start(*, table_id: int, user: User) -> Table:
    """Deal the first hand to everyone seated (the creator only, with at least two seated).

    :raises TableError: ``forbidden`` (403), ``already_started`` (409), ``not_enough_players``.
    """
    with transaction.atomic():
        table = lock_table(table_id)
        refuse(start_refusal(table, user, list(Seat.objects.filter(table=table))))
        start_game(table)
        push.on_commit_table(table, since=0)
    return table


def _validate_request(version: object, client_id: object) -> None:
    if not isinstance(version, int) or isinstance(version, bool):
        raise TableError(BAD_REQUEST, "version: must be the whole-number version you last saw")
    if client_id is not None and (
        not isinstance(client_id, str)
        or not 0 < len(client_id) <= CLIENT_ID_MAX
        or not _storable(client_id)
    ):
        raise TableError(
            BAD_REQUEST, f"client_id: must be 1 to {CLIENT_ID_MAX} characters of text, no NUL"
        )


def _storable(text: str) -> bool:
    """Whether a database column can hold ``text``. JSON's escapes can carry a lone surrogate,
    which no UTF-8 encoder takes, and NUL, which PostgreSQL refuses in text: either would fail
    the client_id's lookup or insert with a database error rather than a refusal."""
    try:
        text.encode()
    except UnicodeEncodeError:
        return False
    return "\x00" not in text


def table_apply_action(
    *, table_id: int, user: User, action: object, version: object, client_id: object = None
) -> ActionResult:
    """Apply a seated player's action: lock, repeat check, version check, engine, log, push.

    A ``client_id`` this player already used on this table is answered from the change it made
    (``repeated``), whatever the version is now and whatever the action says: the key decides,
    never the body, so nothing is applied twice and a reused key applies nothing new.

    :raises TableError: ``not_seated``; ``wrong_phase`` before the start; ``game_over``;
        ``stale_version`` (409, with the current ``version``); any engine error code.
    """
    # Timed by outcome (config.metrics): the count of applied ones is the actions per second.
    started = time.perf_counter()
    outcome = "error"
    try:
        result = _apply(table_id, user, action, version, client_id)
    except ServiceError:
        outcome = "refused"
        raise
    else:
        outcome = "repeated" if result.repeated else "applied"
        return result
    finally:
        TABLE_ACTION_SECONDS.labels(outcome).observe(time.perf_counter() - started)


def _apply(
    table_id: int, user: User, action: object, version: object, client_id: object
) -> ActionResult:
    _validate_request(version, client_id)
    try:
        with transaction.atomic():
            return _apply_locked(table_id, user, action, version, client_id)
    except IntegrityError:
        # Only a concurrent request with the same client_id can get here (the row lock orders
        # everything else): the other one won, so answer from its change.
        if client_id is None:
            raise
        done = TableEvent.objects.filter(table_id=table_id, actor=user, client_id=client_id).first()
        if done is None:
            raise
        return _repeat(table_get(table_id), done)


def _apply_locked(
    table_id: int, user: User, action: object, version: object, client_id: object
) -> ActionResult:
    # The locked row and its seats (for the seat check and the push after commit) at once.
    locked, seat_list = rows.lock_table_with_seats(table_id)
    if locked is None:
        raise TableError.not_found(table_id)
    table, seats = locked, seat_infos_of(seat_list)
    if not any(s.user_id == user.pk for s in seats):
        raise TableError(NOT_SEATED, "only a player seated at this table may act")
    if user.username in table.withdrawn:
        raise TableError(FORBIDDEN, "an organizer withdrew you from this table", status=403)
    try:
        act, transition = _checked(table, user, action, version)
    except TableError:
        # A client_id already used is answered with its change, whatever else the request
        # says: a repeat carries the version from before that change, and its body (or another
        # one) may be refused now. Only a refused request needs the look-up: one that would be
        # accepted is stopped by the unique constraint (see table_apply_action).
        done = None
        if client_id is not None:
            done = TableEvent.objects.filter(table=table, actor=user, client_id=client_id).first()
        if done is None:
            raise
        return _repeat(table, done, seats)
    since = table.version
    advance(table, transition, actor=user, action=act.to_dict(), client_id=client_id, seats=seats)
    state = table_state(table)
    assert state is not None  # _record has just set it
    return ActionResult(table, table.version, state, seats, since=since)


def _checked(
    table: Table, user: User, action: object, version: object
) -> tuple[Action, Transition]:
    """The request's action and what it does, or why it is refused now: not started, over,
    paused, a stale version, or the engine's own refusal. Writes nothing."""
    if table.status == Table.Status.WAITING:
        raise TableError(WRONG_PHASE, "the game has not started yet")
    if table.status != Table.Status.PLAYING:
        raise TableError(GAME_OVER, "the game is over")
    if table.paused_at is not None:
        raise TableError(PAUSED, "the table is paused until an organizer resumes it", status=409)
    if version != table.version:
        raise TableError(
            STALE_VERSION,
            f"the table is at version {table.version}, not {version}",
            status=409,
            version=table.version,
        )
    state = table_state(table)
    if state is None:
        raise TableError(WRONG_PHASE, "the game has not started yet")
    try:
        act = parse_action(action)
        return act, apply(state, user.username, act)
    except EngineError as exc:
        raise TableError.from_engine(exc) from None


def seat_connected(*, table_id: int, user_id: int, delta: int) -> bool:
    """Count a seated player's socket opening (+1) or closing (-1); False when not seated.

    No game effect: only the ``connected`` flag in the views changes, pushed a moment later
    with any other opening or closing on the table (``push.push_presence``).
    """
    updated = rows.count_connection(table_id, user_id, delta)  # a statement written once
    if updated:
        transaction.on_commit(lambda: push.push_presence(table_id))
    return bool(updated)
