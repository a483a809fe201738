"""Reads of tables: the views each person may see, the REST payloads, the log and the rebuild.

Views come from the engine (``player_view`` / ``public_view``) and gain three things here:
``deals`` (each hand's seed commitment, and its seed once the hand is over), a ``connected`` flag
per player, and, in a player's own view, ``legal`` (every action the engine allows them now).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db.models import QuerySet
from django.utils import timezone

from games.clock import clock_payload
from games.engine.engine import apply
from games.engine.errors import WRONG_PHASE
from games.engine.legal import legal_actions
from games.engine.load import state_from_dict
from games.engine.rules import Rules
from games.engine.state import GameState, Phase, deal_next_hand, new_game
from games.engine.timeout import apply_timeout, mark_absent, mark_back
from games.engine.views import full_state, hand_summary, player_view, public_view
from games.errors import TableError
from games.game_over import game_over
from games.models import Seat, Table, TableEvent
from games.moves import hand_before, table_moves
from games.payloads import (
    ClockOutput,
    GameOverOutput,
    JsonObject,
    LastHandOutput,
    LogEntryOutput,
    MoveOutput,
    ReplayOutput,
    ReplayStepOutput,
    TableAnswerOutput,
    TableOutput,
)
from games.refusals import seat_actions
from games.rows import SeatRow, events_after, seat_rows, table_row

# Phases in which the current hand is over, so its seed is no longer secret.
_OVER = (Phase.HAND_OVER, Phase.GAME_OVER)


@dataclass(frozen=True, slots=True)
class SeatInfo:
    user_id: int
    username: str
    connected: bool


def table_get(table_id: int) -> Table:
    """The table, or a ``not_found`` TableError (404)."""
    try:
        return Table.objects.select_related("ruleset", "creator", "club").get(pk=table_id)
    except Table.DoesNotExist:
        raise TableError.not_found(table_id) from None


def table_seats(table: Table) -> list[SeatInfo]:
    """Who sits where, in seat order, with their connection flag."""
    # Read on every push and socket opening: a statement written once (``games.rows``).
    return seat_infos_of(seat_rows(table.pk))


def seat_infos_of(rows: Iterable[SeatRow]) -> list[SeatInfo]:
    """``SeatInfo`` of ``(user id, username, open connections)`` rows (``games.rows``)."""
    return [SeatInfo(user_id, name, open > 0) for user_id, name, open in rows]


def table_read(table_id: int) -> Table:
    """The table row alone (its rule set, creator and club load if touched), or ``not_found``:
    what a socket's frames need, by a statement written once (``games.rows``)."""
    table = table_row(table_id)
    if table is None:
        raise TableError.not_found(table_id)
    return table


def seat_infos(seats: Iterable[Seat]) -> list[SeatInfo]:
    """``SeatInfo`` of seat rows already loaded with their users (a prefetch), in their order."""
    return [SeatInfo(s.user_id, s.user.username, s.connections > 0) for s in seats]


def table_state(table: Table) -> GameState | None:
    """The engine state of the snapshot, or None before the game starts."""
    if table.state is None:
        return None
    cached = table.engine_cache
    if cached is None or cached[0] != table.version:
        cached = table.engine_cache = (table.version, state_from_dict(table.state))
    return cached[1]


def deals_public(table: Table, state: GameState | None) -> list[dict[str, Any]]:
    """Each dealt hand's commitment; its seed only once that hand is over."""
    out = []
    for deal in table.deals:
        if state is not None and deal["hand"] > state.hand_number:
            break  # a view rebuilt at an earlier version: later hands were not dealt yet
        over = state is None or deal["hand"] < state.hand_number or state.phase in _OVER
        out.append(
            {
                "hand": deal["hand"],
                "commitment": deal["commitment"],
                "seed": deal["seed"] if over else None,
            }
        )
    return out


def view_for(
    table: Table,
    state: GameState | None,
    seats: list[SeatInfo],
    username: str | None,
) -> JsonObject | None:
    """``username``'s view (their player view when seated, else the public view); None before
    the game starts."""
    return None if state is None else game_view(table, state, seats, username)


def game_view(
    table: Table, state: GameState, seats: list[SeatInfo], username: str | None
) -> JsonObject:
    """``username``'s view of a game dealt (see ``view_for``)."""
    seated = username is not None and state.seat_of(username) is not None
    view = player_view(state, username) if seated and username else public_view(state)
    connected = {s.username: s.connected for s in seats}
    for player in view["players"]:
        player["connected"] = connected.get(player["name"], False)
    view["deals"] = deals_public(table, state)
    if seated and username:
        view["legal"] = [a.to_dict() for a in legal_actions(state, username)]
    return view


def utc_text(moment: datetime) -> str:
    """An aware UTC datetime as ISO-8601 with ``Z``."""
    return moment.isoformat().replace("+00:00", "Z")


def deadline_text(table: Table) -> str | None:
    """When the server plays the current turn, as ISO-8601 UTC (``...Z``); None when nobody is
    to move or the table is paused (its clocks stand still: ``clock.remaining`` tells)."""
    if table.deadline is None or table.paused_at is not None:
        return None
    return utc_text(table.deadline)


def table_clock(table: Table) -> ClockOutput:
    """The ``clock`` object of the answers and state frames (see ``games.clock``)."""
    return clock_payload(table, utc_text, timezone.now())


def table_last_hand(table: Table) -> LastHandOutput | None:
    """The summary of the table's most recently finished hand (None before any hand ended),
    as the change that ended it stored it: a read, not a replay."""
    # Written by ``games.record`` from ``hand_summary``, whose keys are LastHandOutput's; mypy
    # cannot see into a JSON column, and ``table_mismatch`` holds it to the log.
    summary: Any = table.last_hand
    return summary


def table_game_over(table: Table) -> GameOverOutput:
    """The ``ratings`` and ``rematch`` of the answer about one table and of its state frames
    (``games.game_over``); both null until the table is finished."""
    return game_over(table, utc_text)


def table_payload(
    table: Table,
    username: str | None,
    *,
    state: GameState | None = None,
    seats: list[SeatInfo] | None = None,
) -> TableOutput:
    """The REST ``table``: PROTOCOL.md's ``id, status, version, view, deadline`` plus the
    table's setting (rule set, effective rules, seats, players, creator, clock, rated, club)."""
    if state is None and table.state is not None:
        state = table_state(table)
    seats = table_seats(table) if seats is None else seats
    return {
        "id": table.pk,
        "status": table.status,
        "version": table.version,
        "view": view_for(table, state, seats, username),
        "deadline": deadline_text(table),
        "ruleset": table.ruleset.slug,
        "rules": table.rules,
        "overrides": table.overrides,
        "seats": table.seats,
        "players": [s.username for s in seats],
        "creator": table.creator.username,
        "turn_seconds": table.turn_seconds,
        "time_bank_seconds": table.time_bank_seconds,
        "between_hands_seconds": table.between_hands_seconds,
        "clock": table_clock(table),
        "last_hand": table_last_hand(table),
        "rated": table.rated,
        "club": table.club.slug if table.club else None,
        "created_at": utc_text(table.created_at),
        "url": table.get_absolute_url(),
    }


def table_answer(table: Table, user: Any) -> TableAnswerOutput:
    """The answer about one table to one caller (``user``: anonymous, or None): the table as
    they see it, what they may do with a seat now (``games.refusals.seat_actions``) and, once
    it is finished, the rating changes and the rematch offer (``table_game_over``)."""
    seats = table_seats(table)
    viewer = user.username if user is not None and user.is_authenticated else None
    payload = table_payload(table, viewer, seats=seats)
    return {**payload, **table_game_over(table), "actions": seat_actions(table, user, seats)}


def tables_with_status(status: str = Table.Status.WAITING) -> QuerySet[Table]:
    """Tables in ``status`` (by default those still gathering players: the lobby), newest
    first, with their seats and users loaded (``seat_infos(table.seat_set.all())``)."""
    return (
        Table.objects.filter(status=status)
        .select_related("ruleset", "creator", "club")
        .prefetch_related("seat_set__user")
    )


def _replay_step(state: GameState | None, event: TableEvent, rules: Rules) -> GameState:
    if event.kind == TableEvent.Kind.START:
        return new_game(rules, event.data["players"], seed=event.seed)
    if state is None:
        raise ValueError(f"log of table {event.table_id} does not begin with its start")
    if event.kind == TableEvent.Kind.DEAL:
        return deal_next_hand(state, seed=event.seed)
    if event.kind == TableEvent.Kind.TIMEOUT:
        return apply_timeout(state).state
    if event.kind == TableEvent.Kind.BACK:
        return mark_back(state, event.player).state
    if event.kind == TableEvent.Kind.WITHDRAW:
        return mark_absent(state, event.player).state
    if event.kind in (TableEvent.Kind.PAUSE, TableEvent.Kind.RESUME, TableEvent.Kind.ADJUDICATE):
        return state  # the clock's or the result's, not the position's
    assert event.action is not None  # every ``action`` row logs the action it applied
    return apply(state, event.player, event.action).state


def table_states(table: Table, *, upto: int | None = None) -> Iterator[tuple[int, GameState]]:
    """Each version of the table's game, replayed from its log (up to version ``upto``): what
    every player held at each moment, for an audit that needs more than the last snapshot.

    :raises EngineError: a logged action the engine refuses (the log or engine is corrupt).
    """
    rules = Rules.from_dict(table.rules)
    events = TableEvent.objects.filter(table=table).order_by("version")
    if upto is not None:
        events = events.filter(version__lte=upto)
    state: GameState | None = None
    for event in events:
        state = _replay_step(state, event, rules)
        yield event.version, state


def table_rebuild(table: Table, *, upto: int | None = None) -> GameState | None:
    """Replay the table's log from its start (up to version ``upto``): the snapshot's truth.

    :raises EngineError: a logged action the engine refuses (the log or engine is corrupt).
    """
    last = deque(table_states(table, upto=upto), maxlen=1)
    return last[0][1] if last else None


def table_rebuild_with_last_hand(
    table: Table, *, upto: int | None = None
) -> tuple[GameState | None, dict[str, Any] | None]:
    """The rebuild (``table_rebuild``) and the summary of the last hand it finished: what
    ``Table.state`` and ``Table.last_hand`` hold at version ``upto``, from the log alone.

    :raises EngineError: as ``table_rebuild``.
    """
    rebuilt, summary = None, None
    for _, state in table_states(table, upto=upto):
        rebuilt = state
        summary = hand_summary(state) or summary
    return rebuilt, summary


def table_mismatch(table: Table) -> str | None:
    """None when the snapshot and the last hand's summary equal the rebuild from the log,
    else what differs."""
    rebuilt, summary = table_rebuild_with_last_hand(table, upto=table.version)
    snapshot = table.state
    fresh = None if rebuilt is None else full_state(rebuilt)
    if fresh == snapshot:
        if summary != table.last_hand:
            return f"table {table.pk} v{table.version}: last_hand differs from the rebuild"
        return None
    if fresh is None or snapshot is None:
        return f"table {table.pk}: snapshot {snapshot is not None}, rebuild {fresh is not None}"
    keys = sorted(k for k in fresh.keys() | snapshot.keys() if fresh.get(k) != snapshot.get(k))
    return f"table {table.pk} v{table.version}: snapshot and rebuild differ in {', '.join(keys)}"


def _log_entry(event: TableEvent, reveal: bool, seeds: dict[int, str]) -> LogEntryOutput:
    # The row's data are what the service that wrote it logged (LogEntryOutput names each key
    # they may hold); mypy cannot see into a JSON column, tests/config/test_payload_schema.py
    # holds them to the schema.
    data: Any = dict(event.data)
    if event.seed:
        data["seed"] = event.seed if reveal else seeds.get(event.data.get("hand"))
    return {
        "version": event.version,
        "kind": event.kind,
        "player": event.player or None,
        "actor": event.actor.username if event.actor else None,
        "action": event.action,
        "client_id": event.client_id,
        "at": utc_text(event.created_at),
        **data,
        "events": [_public_event(e, reveal) for e in event.events],
    }


def _public_event(event: dict[str, Any], reveal: bool) -> dict[str, Any]:
    """A logged engine event without its bookkeeping, and without its private part (the
    ``_private`` keys, e.g. a stock draw's card) unless ``reveal``."""
    hidden = {"_private", *(() if reveal else event.get("_private", ()))}
    return {k: v for k, v in event.items() if k not in hidden}


def table_log(table: Table) -> list[LogEntryOutput]:
    """The action log as anyone may read it: hidden cards (a stock draw's card) only once the
    game is over, each hand's seed once that hand is over (the rule of the views' ``deals``)."""
    reveal = table.status in (Table.Status.FINISHED, Table.Status.ABORTED)
    seeds = {d["hand"]: d["seed"] for d in deals_public(table, table_state(table)) if d["seed"]}
    events = TableEvent.objects.filter(table=table).select_related("actor").order_by("version")
    return [_log_entry(e, reveal, seeds) for e in events]


# --- moves and replays (docs/tables.md, "Moves" and "Replays") -----------------------------------


def _reveals(table: Table) -> bool:
    """Whether the game is over, so the log may show every card (the stock draws)."""
    return table.status in (Table.Status.FINISHED, Table.Status.ABORTED)


@dataclass(frozen=True, slots=True)
class LogSince:
    """The log rows after version ``since`` (up to the table's version), read once, from which
    each reader's moves are told: one read serves every frame of a push."""

    since: int
    rows: list[TableEvent]
    hand: int | None  # the hand in play before the first row
    reveal: bool

    def moves(self, reader: str | None) -> list[MoveOutput]:
        return table_moves(self.rows, reader, reveal=self.reveal, hand=self.hand)


def log_since(table: Table, since: int = 0) -> LogSince:
    """The rows a change added after version ``since`` (0: the whole log). Nothing is read
    when there are none (a push of a connection flag, a waiting table)."""
    rows: list[TableEvent] = []
    if since < table.version:
        kept = [r for r in table.recorded or () if since < r.version <= table.version]
        # Versions are unique, so as many rows as versions are all of them (in order: written so).
        rows = kept if len(kept) == table.version - since else _rows_after(table, since)
    state = table_state(table) if since else None
    hand = hand_before(rows, state.hand_number if state is not None else None)
    return LogSince(since, rows, hand, _reveals(table))


def _rows_after(table: Table, since: int) -> list[TableEvent]:
    return events_after(table, since)  # a statement written once (``games.rows``)


def reader_of(table: Table, user: Any) -> str | None:
    """The name ``user`` reads the moves as: their own when seated, else None (the public)."""
    if user is None or not user.is_authenticated:
        return None
    seated = Seat.objects.filter(table=table, user=user).exists()
    return str(user.username) if seated else None


def has_replay(table: Table) -> bool:
    """A finished game has a replay: until then it would show every hidden card."""
    return table.status == Table.Status.FINISHED


def table_replay(table: Table) -> ReplayOutput:
    """A finished game step by step: one step per log row from the first deal, with its moves
    (every card shown) and the engine's full state after it, replayed from the log.

    :raises TableError: ``wrong_phase`` (409): the game is not over, so it has no replay yet.
    """
    if not has_replay(table):
        raise TableError(WRONG_PHASE, "a game has a replay once it is over", status=409)
    rules = Rules.from_dict(table.rules)
    rows = list(TableEvent.objects.filter(table=table).select_related("actor").order_by("version"))
    steps: list[ReplayStepOutput] = []
    state: GameState | None = None
    hand: int | None = None
    for row in rows:
        state = _replay_step(state, row, rules)
        moves = table_moves([row], None, reveal=True, hand=hand)
        hand = state.hand_number
        steps.append(
            {"version": row.version, "hand": hand, "moves": moves, "state": full_state(state)}
        )
    players = list(
        Seat.objects.filter(table=table)
        .order_by("position")
        .values_list("user__username", flat=True)
    )
    return {"table": table.pk, "players": players, "steps": steps}
