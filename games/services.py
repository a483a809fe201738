"""Every write to a table: create, join, leave, start, apply an action.

Each service runs in one transaction holding the table's row lock (``select_for_update``), so one
writer changes a table at a time whichever server or worker it runs on (DESIGN.md decision 1).
Pushes to sockets are registered with ``transaction.on_commit`` (decision 2). A game change bumps
``version`` and appends one ``TableEvent``; the snapshot in ``Table.state`` is always what
replaying those rows gives (``games.selectors.table_rebuild``).
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import F
from django.db.models.functions import Greatest
from django.utils import timezone

from accounts.models import User
from games import push
from games.engine.actions import parse_action
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
from games.engine.events import Event
from games.engine.rules import MAX_PLAYERS, MIN_PLAYERS
from games.engine.shuffle import commitment
from games.engine.state import GAME_OVER as PHASE_GAME_OVER
from games.engine.state import HAND_OVER, GameState, deal_next_hand, new_game
from games.engine.views import full_state
from games.errors import ALREADY_STARTED, NOT_ENOUGH_PLAYERS, TABLE_FULL, TableError
from games.models import GameResult, RuleSet, Seat, Table, TableEvent
from games.selectors import SeatInfo, table_get, table_rebuild, table_seats, table_state

# A client_id is the client's own idempotency key (a UUID in PROTOCOL.md); bounded, not parsed.
CLIENT_ID_MAX = 100
TURN_SECONDS_MAX = 3600


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


def _repeat(table: Table, done: TableEvent, seats: list[SeatInfo] | None = None) -> ActionResult:
    """The answer first given to the change ``done``: its version (the deal of the next hand
    included, when it ended one) and the state then."""
    version = done.version
    if TableEvent.objects.filter(table=table, version=version + 1, kind="deal").exists():
        version += 1
    state = table_state(table) if version == table.version else table_rebuild(table, upto=version)
    if state is None:
        raise TableError(WRONG_PHASE, "the game has not started yet")
    seats = table_seats(table) if seats is None else seats
    return ActionResult(table, version, state, seats, repeated=True)


def _locked(table_id: int) -> Table:
    """The table row, locked until the transaction ends. Call inside ``transaction.atomic``."""
    try:
        # The table row alone: no join, so no lock on the rule set or creator rows other tables
        # share (and a cheaper query on the busiest path).
        return Table.objects.select_for_update().get(pk=table_id)
    except Table.DoesNotExist:
        raise TableError.not_found(table_id) from None


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
    rated: bool = True,
) -> Table:
    """A new table under ``ruleset`` plus ``overrides``, its creator in the first seat.

    The effective configuration is copied into the table, so later edits to the rule set never
    reach it. ``turn_seconds`` (1 to 3,600) overrides the rule set's clock.

    :raises TableError: ``bad_request`` naming the field at fault.
    """
    rule_set = _ruleset(ruleset)
    seats = _whole(seats, "seats", MIN_PLAYERS, MAX_PLAYERS)
    if overrides is not None and not isinstance(overrides, dict):
        raise TableError(BAD_REQUEST, "rules: must be a JSON object of rule fields")
    overrides = dict(overrides or {})
    if turn_seconds is not None:
        overrides["turn_seconds"] = _whole(turn_seconds, "turn_seconds", 1, TURN_SECONDS_MAX)
    if not isinstance(rated, bool):
        raise TableError(BAD_REQUEST, "rated: must be true or false")
    try:
        rules = rule_set.to_rules(overrides)
        rules.check_players(seats)
    except ConfigError as exc:
        raise TableError(BAD_REQUEST, str(exc)) from None
    if rules.turn_seconds > TURN_SECONDS_MAX:
        raise TableError(BAD_REQUEST, f"turn_seconds: must be at most {TURN_SECONDS_MAX}")
    with transaction.atomic():
        table = Table.objects.create(
            ruleset=rule_set,
            rules=rules.to_dict(),
            overrides=overrides,
            seats=seats,
            turn_seconds=rules.turn_seconds,
            rated=rated,
            creator=creator,
        )
        Seat.objects.create(table=table, user=creator, position=0)
    return table


def table_join(*, table_id: int, user: User) -> Table:
    """Seat ``user``; a table that is then full starts by itself. Joining twice is a no-op.

    :raises TableError: ``already_started`` or ``table_full`` (409), ``not_found`` (404).
    """
    with transaction.atomic():
        table = _locked(table_id)
        seats = list(Seat.objects.filter(table=table))
        if any(s.user_id == user.pk for s in seats):
            return table
        if table.status != Table.Status.WAITING:
            raise TableError(ALREADY_STARTED, "the game has already begun", status=409)
        if len(seats) >= table.seats:
            raise TableError(TABLE_FULL, f"all {table.seats} seats are taken", status=409)
        position = max((s.position for s in seats), default=-1) + 1
        Seat.objects.create(table=table, user=user, position=position)
        if len(seats) + 1 == table.seats:
            _start(table)
        push.on_commit_table(table)
    return table


def table_leave(*, table_id: int, user: User) -> Table:
    """Give up a seat before the game starts. A creator who leaves hands the table to the
    player seated longest; the last player to leave aborts it.

    :raises TableError: ``not_seated`` (400), ``already_started`` (409), ``not_found`` (404).
    """
    with transaction.atomic():
        table = _locked(table_id)
        if table.status != Table.Status.WAITING:
            raise TableError(ALREADY_STARTED, "seats are kept once the game begins", status=409)
        deleted, _ = Seat.objects.filter(table=table, user=user).delete()
        if not deleted:
            raise TableError(NOT_SEATED, "you have no seat at this table")
        first = Seat.objects.filter(table=table).order_by("position").first()
        if first is None:
            table.status = Table.Status.ABORTED
            table.finished_at = timezone.now()
        elif table.creator_id == user.pk:
            table.creator = first.user
        table.save(update_fields=["status", "finished_at", "creator"])
        push.on_commit_table(table)
        push.on_commit_left(table, user.pk)
    return table


def table_start(*, table_id: int, user: User) -> Table:
    """Deal the first hand to everyone seated (the creator only, with at least two seated).

    :raises TableError: ``forbidden`` (403), ``already_started`` (409), ``not_enough_players``.
    """
    with transaction.atomic():
        table = _locked(table_id)
        if table.creator_id != user.pk:
            raise TableError(FORBIDDEN, "only the table's creator starts it", status=403)
        if table.status != Table.Status.WAITING:
            raise TableError(ALREADY_STARTED, "the game has already begun", status=409)
        if Seat.objects.filter(table=table).count() < MIN_PLAYERS:
            raise TableError(NOT_ENOUGH_PLAYERS, "at least two players must be seated")
        _start(table)
        push.on_commit_table(table)
    return table


def new_seed() -> str:
    """A hand's secret seed: 128 bits from the operating system's CSPRNG, in hex."""
    return secrets.token_hex(16)


def _start(table: Table) -> None:
    """Deal hand 1. Caller holds the table's row lock."""
    names = list(
        Seat.objects.filter(table=table)
        .order_by("position")
        .values_list("user__username", flat=True)
    )
    rules = table.engine_rules()
    try:
        rules.check_players(len(names))
    except ConfigError as exc:
        raise TableError(BAD_REQUEST, f"cannot deal to {len(names)} players: {exc}") from None
    seed = new_seed()
    state = new_game(rules, names, seed=seed)
    table.status = Table.Status.PLAYING
    table.started_at = timezone.now()
    committed = commitment(seed)
    table.deals = [{"hand": 1, "commitment": committed, "seed": seed}]
    data = {"players": names, "hand": 1, "commitment": committed}
    _record(table, None, state, kind="start", data=data, seed=seed)


def _validate_request(version: object, client_id: object) -> None:
    if not isinstance(version, int) or isinstance(version, bool):
        raise TableError(BAD_REQUEST, "version: must be the whole-number version you last saw")
    if client_id is not None and (
        not isinstance(client_id, str) or not 0 < len(client_id) <= CLIENT_ID_MAX
    ):
        raise TableError(BAD_REQUEST, f"client_id: must be a string of 1 to {CLIENT_ID_MAX} chars")


def table_apply_action(
    *, table_id: int, user: User, action: object, version: object, client_id: object = None
) -> ActionResult:
    """Apply a seated player's action: lock, repeat check, version check, engine, log, push.

    A ``client_id`` this player already used on this table is answered from the change it made
    (``repeated``), whatever the version is now; nothing is applied twice.

    :raises TableError: ``not_seated``; ``wrong_phase`` before the start; ``game_over``;
        ``stale_version`` (409, with the current ``version``); any engine error code.
    """
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
    table = _locked(table_id)
    seats = table_seats(table)  # for the seat check and for the push after commit
    if not any(s.user_id == user.pk for s in seats):
        raise TableError(NOT_SEATED, "only a player seated at this table may act")
    if client_id is not None and (version != table.version or table.status != "playing"):
        # A repeat of an accepted action carries the version from before it, so only a request
        # that would be refused can be one. (A client_id reused at the current version is
        # caught by the unique constraint: see table_apply_action.)
        done = TableEvent.objects.filter(table=table, actor=user, client_id=client_id).first()
        if done is not None:
            return _repeat(table, done, seats)
    if table.status == Table.Status.WAITING:
        raise TableError(WRONG_PHASE, "the game has not started yet")
    if table.status != Table.Status.PLAYING:
        raise TableError(GAME_OVER, "the game is over")
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
        transition = apply(state, user.username, act)
    except EngineError as exc:
        raise TableError.from_engine(exc) from None
    _advance(table, transition, actor=user, action=act.to_dict(), client_id=client_id, seats=seats)
    state = table_state(table)
    assert state is not None  # _record has just set it
    return ActionResult(table, table.version, state, seats)


def _advance(
    table: Table,
    transition: Transition,
    *,
    actor: User | None,
    action: dict[str, Any] | None,
    client_id: object,
    kind: str = "action",
    player: str | None = None,
    seats: list[SeatInfo] | None = None,
) -> None:
    """Record a transition, then deal the next hand or finish the game, and push the result
    after commit (one push, the deal included). Caller holds the lock."""
    state = transition.state
    data: dict[str, Any] = {}
    if state.phase in (HAND_OVER, PHASE_GAME_OVER) and table.deals:
        # The hand's seed is no longer secret: the log reveals it on the change that ended it.
        data["revealed"] = {"hand": state.hand_number, "seed": table.deals[-1]["seed"]}
    if state.phase == PHASE_GAME_OVER:
        table.status = Table.Status.FINISHED
        table.finished_at = timezone.now()  # saved with the snapshot by _record
    _record(
        table,
        actor,
        state,
        kind=kind,
        player=player or (actor.username if actor else ""),
        action=action,
        client_id=client_id if isinstance(client_id, str) else None,
        events=transition.events,
        data=data,
    )
    if state.phase == HAND_OVER:
        _deal(table, state)
    elif state.phase == PHASE_GAME_OVER:
        _write_result(table, state)
    push.on_commit_table(table, seats)


def _deal(table: Table, state: GameState) -> None:
    seed = new_seed()
    dealt = deal_next_hand(state, seed=seed)
    hand = dealt.hand_number
    committed = commitment(seed)
    table.deals = [*table.deals, {"hand": hand, "commitment": committed, "seed": seed}]
    data = {"hand": hand, "commitment": committed}
    _record(table, None, dealt, kind="deal", data=data, seed=seed)


def placements(state: GameState) -> list[dict[str, Any]]:
    """Players by final score, highest first; equal scores share a place (1, 1, 3...)."""
    order = sorted(state.players, key=lambda p: -p.score)
    out: list[dict[str, Any]] = []
    for i, p in enumerate(order):
        place = out[-1]["place"] if out and out[-1]["score"] == p.score else i + 1
        out.append({"player": p.name, "place": place, "score": p.score})
    return out


def _write_result(table: Table, state: GameState) -> None:
    """The finished game's result, once (``GameResult`` is one per table). Caller holds the
    lock and has just recorded the final state."""
    users = dict(Seat.objects.filter(table=table).values_list("user__username", "user_id"))
    rows = [{**p, "user": users.get(p["player"])} for p in placements(state)]
    GameResult.objects.get_or_create(
        table=table,
        defaults={
            "winner": table.state["winner"] or "",
            "ended": state.ended or "target",
            "placements": rows,
            "hands": table.state["hands"],
            "finished_at": table.finished_at,
        },
    )


def _event_dicts(events: tuple[Event, ...]) -> list[dict[str, Any]]:
    out = []
    for e in events:
        d = e.to_dict(include_private=True)
        if e.private:
            d["_private"] = sorted(e.private)
        out.append(d)
    return out


def _record(
    table: Table,
    actor: User | None,
    state: GameState,
    *,
    kind: str,
    player: str = "",
    action: dict[str, Any] | None = None,
    client_id: str | None = None,
    events: tuple[Event, ...] = (),
    data: dict[str, Any] | None = None,
    seed: str = "",
) -> None:
    """Bump the version, append the log row and save the snapshot. Caller holds the lock."""
    before = table.state
    table.version += 1
    table.state = full_state(state)
    table.engine_cache = (table.version, state)  # the pushes after commit need not parse it
    if _turn_changed(before, table.state):
        table.deadline = timezone.now() + timedelta(seconds=table.turn_seconds)
    if state.turn is None:
        table.deadline = None
    TableEvent.objects.create(
        table=table,
        version=table.version,
        kind=kind,
        actor=actor,
        player=player,
        action=action,
        client_id=client_id,
        data=data or {},
        seed=seed,
        events=_event_dicts(events),
    )
    table.save(update_fields=_RECORDED)


# What _record and the changes it follows (start, deal, finish) write on the table row.
_RECORDED = ["version", "state", "deadline", "deals", "status", "started_at", "finished_at"]


def _turn_changed(before: dict[str, Any] | None, after: dict[str, Any]) -> bool:
    """A new turn begins: someone else is to move, or a new hand was dealt."""
    if before is None:
        return True
    return (before["turn"], before["hand_number"]) != (after["turn"], after["hand_number"])


def seat_connected(*, table_id: int, user_id: int, delta: int) -> bool:
    """Count a seated player's socket opening (+1) or closing (-1); False when not seated.

    No game effect: only the ``connected`` flag in the views changes.
    """
    updated = Seat.objects.filter(table_id=table_id, user_id=user_id).update(
        connections=Greatest(F("connections") + delta, 0)
    )
    if updated:
        transaction.on_commit(lambda: push.push_table_id(table_id))
    return bool(updated)
