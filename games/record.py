"""The one path by which a table's game changes: record a transition, run the turn clock, deal
the next hand, play the turns of absent players, write the results.

Everything here runs inside the caller's transaction, holding the table's row lock
(``lock_table``). Each change bumps ``version``, saves the snapshot and appends one
``TableEvent``; pushes, the next turn timer and the finalization hooks are registered with
``transaction.on_commit`` (DESIGN.md decisions 1 and 2).
"""

from __future__ import annotations

import secrets
from typing import Any

from django.utils import timezone

from accounts.models import User
from games import clock, push, rows, timers
from games.engine.engine import Transition
from games.engine.errors import BAD_REQUEST, ConfigError
from games.engine.events import Event
from games.engine.scoring import game_placements
from games.engine.shuffle import commitment
from games.engine.state import GameState, Phase, deal_next_hand, new_game
from games.engine.timeout import apply_timeout
from games.engine.views import full_state, hand_summary
from games.errors import TableError
from games.models import GameResult, HandResult, Seat, Table, TableEvent
from games.selectors import SeatInfo, table_state


def lock_table(table_id: int) -> Table:
    """The table row, locked until the transaction ends. Call inside ``transaction.atomic``."""
    # The table row alone: no join, so no lock on the rule set or creator rows other tables
    # share; a statement written once (``games.rows``), as it is on every action.
    table = rows.lock_table_row(table_id)
    if table is None:
        raise TableError.not_found(table_id)
    return table


def new_seed() -> str:
    """A hand's secret seed: 128 bits from the operating system's CSPRNG, in hex."""
    return secrets.token_hex(16)


def start_game(table: Table) -> None:
    """Deal hand 1 to everyone seated and start the first turn's clock."""
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
    clock.fill_banks(table, names)
    committed = commitment(seed)
    table.deals = [{"hand": 1, "commitment": committed, "seed": seed}]
    data = {"players": names, "hand": 1, "commitment": committed}
    _record(table, None, state, kind=TableEvent.Kind.START, data=data, seed=seed)
    timers.on_commit_timer(table)


def advance(
    table: Table,
    transition: Transition,
    *,
    actor: User | None,
    action: dict[str, Any] | None = None,
    client_id: object = None,
    kind: TableEvent.Kind = TableEvent.Kind.ACTION,
    player: str | None = None,
    seats: list[SeatInfo] | None = None,
    data: dict[str, Any] | None = None,
) -> None:
    """Record a transition and everything that follows from it: the next hand dealt, the turns
    of absent players played at once, the game finished. Then, after commit, one push (all of
    it included) and, when a new turn started, its timer."""
    deadline, since = table.deadline, table.version
    _settle(
        table,
        transition,
        actor=actor,
        action=action,
        client_id=client_id if isinstance(client_id, str) else None,
        kind=kind,
        player=player or (actor.username if actor else ""),
        data=data,
    )
    _play_absent_turns(table)
    push.on_commit_table(table, seats, since)
    if table.deadline != deadline:
        timers.on_commit_timer(table)


def _play_absent_turns(table: Table) -> None:
    """An absent player's turns are played by the server at once (RULES.md). This ends: each
    turn played adds a timeout, and when everyone is absent the engine abandons the game."""
    state = table_state(table)
    while (
        state is not None
        and table.status == Table.Status.PLAYING
        and state.turn is not None
        and state.players[state.turn].absent
    ):
        mover = state.players[state.turn].name
        absent = {"absent": True}
        _settle(
            table,
            apply_timeout(state),
            actor=None,
            kind=TableEvent.Kind.TIMEOUT,
            player=mover,
            data=absent,
        )
        state = table_state(table)


def _settle(
    table: Table,
    transition: Transition,
    *,
    actor: User | None,
    kind: TableEvent.Kind,
    player: str,
    action: dict[str, Any] | None = None,
    client_id: str | None = None,
    data: dict[str, Any] | None = None,
) -> None:
    state = transition.state
    data = dict(data or {})
    over = state.phase in (Phase.HAND_OVER, Phase.GAME_OVER)
    if over and table.deals:
        # The hand's seed is no longer secret: the log reveals it on the change that ended it.
        data["revealed"] = {"hand": state.hand_number, "seed": table.deals[-1]["seed"]}
    if state.phase == Phase.GAME_OVER:
        table.status = Table.Status.FINISHED
        table.finished_at = timezone.now()  # saved with the snapshot by _record
    summary = hand_summary(state)
    if summary is not None:
        # Kept on the row, so every answer and frame shows it without a replay; the rebuild
        # (``games.selectors.table_rebuild_with_last_hand``) gives the same from the log.
        table.last_hand = summary
    _record(
        table,
        actor,
        state,
        kind=kind,
        player=player,
        action=action,
        client_id=client_id,
        events=transition.events,
        data=data,
    )
    if not over:
        return
    users = _users(table)  # one read for the hand's rows and, at the end, the game's
    _write_hand_result(table, users)
    if state.phase == Phase.HAND_OVER:
        _deal(table, state)
    else:
        _write_result(table, state, users)


def _deal(table: Table, state: GameState) -> None:
    seed = new_seed()
    dealt = deal_next_hand(state, seed=seed)
    hand = dealt.hand_number
    committed = commitment(seed)
    table.deals = [*table.deals, {"hand": hand, "commitment": committed, "seed": seed}]
    data = {"hand": hand, "commitment": committed}
    _record(table, None, dealt, kind=TableEvent.Kind.DEAL, data=data, seed=seed)


def _score_order(state: GameState) -> list[dict[str, Any]]:
    """The players by their totals (``games.engine.scoring.placements``)."""
    return [
        {"player": p.player, "place": p.place, "score": p.score} for p in game_placements(state)
    ]


def _users(table: Table) -> dict[str, int]:
    return dict(Seat.objects.filter(table=table).values_list("user__username", "user_id"))


def _write_hand_result(table: Table, users: dict[str, int]) -> None:
    """The rows of the hand that has just ended. A game abandoned mid-hand ends no hand, so it
    writes none."""
    snapshot = table.state or {}
    hands = snapshot.get("hands") or []
    if hands and hands[-1]["number"] == snapshot["hand_number"]:
        write_hand_results(table, hands[-1], users)


def write_hand_results(table: Table, hand: dict[str, Any], users: dict[str, int]) -> None:
    """One ``HandResult`` per player of a finished ``hand`` (as the full state lists it);
    ``users`` maps usernames to ids. The unique constraint refuses a hand written twice."""
    HandResult.objects.bulk_create(
        HandResult(
            table=table,
            hand=hand["number"],
            player=name,
            user_id=users.get(name),
            melded=score["melded"],
            in_hand=score["in_hand"],
            net=score["net"],
            went_out=hand["went_out"] == name,
        )
        for name, score in hand["scores"].items()
    )


def _write_result(
    table: Table,
    state: GameState,
    users: dict[str, int],
    *,
    decided: list[dict[str, Any]] | None = None,
    ended: str | None = None,
) -> None:
    """The finished game's result (one per table: a second is refused by the database), and,
    after commit, its finalization hooks (``games.finalization``). ``decided`` are placements
    an organizer gave (an adjudicated game) instead of the scores' order."""
    absent = {p.name for p in state.players if p.absent}
    acted = set(
        TableEvent.objects.filter(table=table, kind=TableEvent.Kind.ACTION)
        .values_list("player", flat=True)
        .distinct()
    )
    rows = [
        {
            **p,
            "user": users.get(p["player"]),
            "absent": p["player"] in absent,
            "acted": p["player"] in acted,
        }
        for p in (decided if decided is not None else _score_order(state))
    ]
    snapshot = table.state
    assert snapshot is not None  # _record saved the end
    winner = (snapshot["winner"] or "") if decided is None else None
    ended = ended or state.ended or GameResult.Ended.TARGET
    write_game_result(table, rows, snapshot["hands"], ended=ended, winner=winner)


def write_game_result(
    table: Table,
    placements: list[dict[str, Any]],
    hands: list[dict[str, Any]],
    *,
    ended: str,
    winner: str | None = None,
) -> GameResult:
    """The finished game's result (one per table: a second is refused by the database), and
    after commit its finalization hooks (``games.finalization``). ``placements`` are the rows
    of ``GameResult.placements``, ``hands`` the finished hands as the full state lists them;
    ``winner`` None names the one player placed first, if there is one."""
    assert table.finished_at is not None  # a finished table
    if winner is None:
        firsts = [r["player"] for r in placements if r["place"] == 1]
        winner = firsts[0] if len(firsts) == 1 else ""
    result = GameResult.objects.create(
        table=table,
        winner=winner,
        ended=ended,
        placements=placements,
        hands=hands,
        finished_at=table.finished_at,
    )
    timers.on_commit_finalize(table)
    return result


def record_adjudication(table: Table, actor: User, places: dict[str, int], reason: str) -> None:
    """End a game in play with the placements an organizer decided (a stuck or disputed table):
    logged as ``adjudicate`` with the reason; the position stays as it was. Call holding the
    table's lock."""
    state = table_state(table)
    assert state is not None
    table.status = Table.Status.FINISHED
    table.finished_at = timezone.now()
    table.deadline = None
    since = table.version
    data = {"placements": places, "reason": reason}
    _record(table, actor, state, kind=TableEvent.Kind.ADJUDICATE, data=data)
    scores = {p.name: p.score for p in state.players}
    order = sorted(state.names, key=lambda n: (places[n], -scores[n]))
    decided: list[dict[str, Any]] = [
        {"player": n, "place": places[n], "score": scores[n]} for n in order
    ]
    _write_result(table, state, _users(table), decided=decided, ended=GameResult.Ended.ADJUDICATED)
    push.on_commit_table(table, since=since)


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
    kind: TableEvent.Kind,
    player: str = "",
    action: dict[str, Any] | None = None,
    client_id: str | None = None,
    events: tuple[Event, ...] = (),
    data: dict[str, Any] | None = None,
    seed: str = "",
) -> None:
    """Bump the version, run the clock, append the log row and save the snapshot."""
    before = table.state
    table.version += 1
    table.state = full_state(state)
    table.engine_cache = (table.version, state)  # the pushes after commit need not parse it
    if _turn_changed(before, table.state):
        # While the table is paused its clocks stand still: a turn that changes then (an
        # organizer withdrew the player to move) ends and starts at the moment of the pause, so
        # resuming shifts it like any other turn and nobody gains or loses the paused time.
        now = table.paused_at or timezone.now()
        clock.end_turn(table, before["turn"] if before else None, now)
        if kind == TableEvent.Kind.DEAL:
            clock.start_break(table, now)  # the hand has just ended: the summary's break
        clock.start_turn(table, table.state["turn"], now)
    row = TableEvent(
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
    # As ``create`` and ``save(update_fields=...)`` would, by a statement written once.
    rows.record(row, table, RECORDED)
    table.recorded = [*(table.recorded or ()), row]


# What _record and the changes it follows (start, deal, finish) write on the table row.
RECORDED = [
    "version",
    "state",
    "deadline",
    "turn_started_at",
    "break_ends_at",
    "last_hand",
    "banks",
    "deals",
    "status",
    "started_at",
    "finished_at",
]


def record_clock_change(
    table: Table, actor: User, kind: TableEvent.Kind, fields: list[str]
) -> None:
    """Log a change of the clock alone (a pause or a resume): a new version, so every client
    orders it among the game's changes, and a log row naming who made it; the game is as it
    was. ``fields`` are the clock fields the caller changed."""
    table.version += 1
    TableEvent.objects.create(table=table, version=table.version, kind=kind, actor=actor)
    table.save(update_fields=["version", *fields])


def _turn_changed(before: dict[str, Any] | None, after: dict[str, Any]) -> bool:
    """A turn ends or begins: someone else is to move, a hand ended, or a new one was dealt."""
    if before is None:
        return True
    return (before["turn"], before["hand_number"]) != (after["turn"], after["hand_number"])
