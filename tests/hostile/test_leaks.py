"""A whole simulated event, and everything each client received scanned for what they must not see.

Eight players play a two-round Swiss of four-seat tables through the public interfaces only:
their actions go over ``/ws/tables/{id}/`` (chosen by the engine's greedy bot, and checked to be
in the ``legal`` list of the view the player last received), and they, a logged-in watcher seated
nowhere and an anonymous visitor read the REST API, the pages and the CSV exports as the games
go on; the watcher and the visitor hold a socket on every table and on ``/ws/events/{slug}/``.
Hostile probes along the way (another player's card named, a stale version, someone else's
turn, an action from a spectator, malformed input, a repeated ``client_id``) have their error
frames and error bodies recorded too, as have the server's own plays (a turn whose clock ran out)
and an organizer's pause, resume and withdrawal of a player, whose turns the server then plays.

Afterwards each table's log is replayed version by version (``games.selectors.table_states``)
and every recorded payload is checked against the version it shows (``tests/hostile/leaks.py``
says precisely what counts as secret): no card of another player's hand that nobody saw them
take, no card of the stock, no seed of a hand still running. The deals come from a seeded
sequence instead of the operating system, so the same games are played on every run.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import uuid
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.db import connections as databases

from config import push as config_push
from games.engine.bots import GreedyBot
from games.engine.play import next_move
from games.engine.state import GameState
from games.models import Table, TableEvent
from games.selectors import table_states
from tests.hostile.leak_probes import probe
from tests.hostile.leak_world import (
    NAMES,
    ORGANIZER_AT,
    PROBE_EVERY,
    READ_EVERY,
    TIMEOUT_AT,
    Game,
    World,
    db,
    final_reads,
    live_table_ids,
    make_world,
    organize,
    read_all,
    read_event,
    read_table,
    time_out,
)
from tests.hostile.leaks import (
    JSON_SCRIPT,
    Received,
    TableTruth,
    leaks,
    positions,
    split_finished,
    view_problems,
)
from tests.tournaments.factories import run_hooks
from tournaments.models import Tournament

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _server_loop() -> Iterator[None]:
    """No server loop left over from an earlier test: the application records this test's."""
    config_push.set_server_loop(None)
    yield
    config_push.set_server_loop(None)


@pytest.fixture(autouse=True)
async def _close_worker_connections() -> AsyncIterator[None]:
    """Close the connections of the threads the consumers' queries ran in (see tests/games)."""
    yield
    await database_sync_to_async(databases.close_all)()


@pytest.fixture(autouse=True)
def _seeded_deals(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every hand's seed from a fixed sequence: the same deals, so the same games, each run."""
    counter = itertools.count()

    def seed() -> str:
        return hashlib.sha256(f"leak-test-{next(counter)}".encode()).hexdigest()[:32]

    monkeypatch.setattr("games.record.new_seed", seed)


def truths(event: Tournament) -> dict[int, TableTruth]:
    """Each table of the event, every version replayed from its log."""
    out = {}
    for table in Table.objects.filter(tournament_table__round__tournament=event):
        seeds = {d["hand"]: d["seed"] for d in table.deals}
        out[table.pk] = TableTruth(table.pk, positions(table_states(table)), seeds)
    return out


def logged_kinds(event: Tournament) -> set[str]:
    rows = TableEvent.objects.filter(table__tournament_table__round__tournament=event)
    return set(rows.values_list("kind", flat=True))


# --- playing ------------------------------------------------------------------------------------


async def seat(world: World, table_id: int) -> Game:
    """Everyone's socket on a new table: its players, the watcher and the visitor."""
    rec = world.recorder
    _, version, _, names = await db(read_table)(table_id)
    rec.versions[table_id] = version
    path = f"/ws/tables/{table_id}/?chat=1"  # the table's chat too
    seated = {n: await rec.socket(world.players[n], path, table_id) for n in names}
    watching = [await rec.socket(p, path, table_id) for p in (world.watcher, world.anon)]
    bots = {n: GreedyBot(seed=world.rng.randrange(2**32), skill=0.8) for n in names}
    game = Game(table_id, seated, watching, bots)
    for socket in game.sockets:
        await socket.at_least(version)
    return game


async def settle(world: World, game: Game) -> int:
    """The table's version now, once every socket on it has had that version's frame."""
    _, version, _, _ = await db(read_table)(game.table_id)
    world.recorder.versions[game.table_id] = version
    for socket in game.sockets:
        await socket.at_least(version)
    return version


async def step(world: World, game: Game) -> bool:
    """One change of the table (False when its game is over)."""
    state, version, status, _ = await db(read_table)(game.table_id)
    if status != "playing" or state is None:
        return False
    game.actions += 1
    if game.actions == TIMEOUT_AT:
        await db(time_out)(game.table_id)
    elif game.actions == ORGANIZER_AT and world.withdrawn is None:
        await db(organize)(world, game, state)
    else:
        if game.actions % PROBE_EVERY == 0:
            await probe(world, game, state, version)
        await act(game, state, version)
    await settle(world, game)
    if game.actions % READ_EVERY == 0:
        await db(read_all)(world, game)
    return True


async def act(game: Game, state: GameState, version: int) -> None:
    """The next move, chosen by the player's bot among the legal moves of their own view."""
    name, action = next_move(state, game.bots)
    socket = game.seated[name]
    assert socket.state is not None and socket.version == version
    assert action.to_dict() in socket.state["view"]["legal"], (name, action)
    client_id = str(uuid.uuid4())
    message = {"type": "action", "action": action.to_dict(), "version": version}
    await socket.send({**message, "client_id": client_id})
    await socket.until(
        lambda: socket.version > version or socket.answered(client_id), "the action's state"
    )
    assert socket.version > version, socket.frames[-1]
    game.last = (name, {**message, "client_id": client_id})


async def play(world: World) -> list[Game]:
    """Every round to the end of the event; returns the games played."""
    played: list[Game] = []
    while table_ids := await db(live_table_ids)(world.event):
        games = [await seat(world, t) for t in table_ids]
        await db(read_event)(world, world.players[NAMES[0]])
        while games:
            for game in list(games):
                if not await step(world, game):
                    games.remove(game)
                    played.append(game)
                    await db(run_hooks)(game.table_id)
    return played


# --- the scan -----------------------------------------------------------------------------------


def views_in(item: Received) -> list[dict[str, Any] | None]:
    """The table views a payload carries: a state frame's or a table answer's, or the one a
    table page embeds for its script."""
    if item.text:
        return [
            b.get("view") for b in map(json.loads, JSON_SCRIPT.findall(item.body)) if "view" in b
        ]
    if isinstance(item.body, dict) and "view" in item.body:
        return [item.body["view"]]
    return []


def scan(items: list[Received], truth: dict[int, TableTruth]) -> list[str]:
    found = [line for item in items for line in leaks(item, truth)]
    for item in items:
        for view in views_in(item):
            found += [
                f"{item.what} to {item.viewer}: {p}" for p in view_problems(view, item.viewer)
            ]
    return found


async def test_no_client_ever_receives_what_it_must_not_see() -> None:
    world = await db(make_world)()
    rec = world.recorder
    try:
        with rec.logs():
            for person in (world.watcher, world.anon):
                await rec.socket(person, f"/ws/events/{world.event.slug}/?chat=1")
            games = await play(world)
            await db(final_reads)(world)
    finally:
        await rec.close()
    truth = await db(truths)(world.event)

    found = scan(rec.items, truth)
    assert not found, "\n".join(found[:40])

    await db(world.event.refresh_from_db)()
    assert world.event.status == "finished" and len(truth) == 4
    # Every kind of change was seen: the server's plays (a clock run out, an absent player's
    # turns), an organizer's pause, resume and withdrawal, hands dealt after the first.
    kinds = {"start", "deal", "action", "timeout", "pause", "resume", "withdraw"}
    assert kinds <= await db(logged_kinds)(world.event)
    assert_covered(world, truth, games)
    assert_chat_covered(rec.items, truth)
    assert_planted_leaks_are_found(rec.items, truth)


def assert_covered(world: World, truth: dict[int, TableTruth], games: list[Game]) -> None:
    """The scan had something to find: cards in what was received, secrets at every version,
    hands ended (seeds revealed) while games went on, cards seen taken, every probe refused."""
    items = world.recorder.items
    frames = [i for i in items if i.what.startswith("ws /ws/tables/") and i.body["type"] == "state"]
    # Every socket on a table (its players, the watcher, the visitor) saw every change made.
    assert len(frames) >= sum(len(g.sockets) * g.actions for g in games)
    assert sum(bool(i.tokens) for i in items) >= len(frames)  # hands, piles, melds, logs
    assert any(len(t.seeds) >= 2 for t in truth.values()), "no game lasted two hands"
    seen_taken = [
        p for t in truth.values() for p in t.positions.values() for n in p.held
        if p.held[n] != p.private[n]
    ]  # fmt: skip
    assert seen_taken, "nobody took a card from the discard pile"
    assert len(world.probes) >= 12 * len(games)  # twelve answers a round, a round a table at least
    assert all(got in ok for _, got, ok in world.probes), [
        p for p in world.probes if p[1] not in p[2]
    ]
    running_logs = [
        i for i in items if i.log_of is not None and not truth[i.log_of].finished_at(i.at[i.log_of])
    ]
    assert running_logs
    running_moves = [
        i for i in items
        if i.moves_of is not None and not truth[i.moves_of].finished_at(i.at[i.moves_of])
    ]  # fmt: skip
    assert running_moves and all(i.tokens for i in running_moves)
    # The moves had secrets to keep: a drawer's own frames named stock draws' cards, secret
    # from everyone else at their versions.
    running = [i for i in frames if not truth[_only(i.at)].finished_at(i.at[_only(i.at)])]
    drawn = [(i, m) for i in running for m in i.body["moves"] if m["kind"] == "draw" and m["cards"]]
    assert any(
        truth[_only(i.at)].secret_cards(m["version"], "watcher") & set(m["cards"]) for i, m in drawn
    )
    summaries = [i for i in items if not i.text and i.log_of is None and split_finished(i.body)[1]]
    assert summaries, "no payload carried a finished hand's summary (last_hand)"


def assert_chat_covered(items: list[Received], truth: dict[int, TableTruth]) -> None:
    """Chat was scanned while games ran: its frames on the table sockets (each player, the
    watcher, the visitor), its histories on connect and over REST, for both rooms; and a card of
    the stock planted in a spectator's chat frame is caught."""

    def running(i: Received) -> bool:
        return len(i.at) == 1 and not truth[_only(i.at)].finished_at(i.at[_only(i.at)])

    chat = [i for i in items if isinstance(i.body, dict) and i.body.get("type") == "chat"]
    live = [i for i in chat if running(i)]
    assert {i.viewer for i in live} >= {"watcher", None, *NAMES[:4]}, "chat frames not seen"
    assert {i.body["room"] for i in live} == {"players", "spectators"}
    # and no player heard the rail while their game ran
    assert not [i for i in live if i.body["room"] == "spectators" and i.viewer in NAMES]
    histories = [i for i in items if i.what.endswith("chat_history") and running(i)]
    answers = [i for i in items if i.what.startswith("GET /api/chat/") and i.what.endswith(" 200")]
    assert histories and any(running(i) and i.body["messages"] for i in answers)
    frame = next(
        i
        for i in live
        if i.viewer == "watcher" and truth[_only(i.at)].positions[i.at[_only(i.at)]].stock
    )
    card = sorted(truth[_only(frame.at)].positions[frame.at[_only(frame.at)]].stock)[0]
    message = {**frame.body["message"], "text": f"psst: {card}"}
    planted = Received("watcher", "planted", {**frame.body, "message": message}, frame.at)
    assert leaks(planted, truth) == [f"planted to watcher: card {card}"]


def assert_planted_leaks_are_found(items: list[Received], truth: dict[int, TableTruth]) -> None:
    """The scan can fail: a spectator's real frame with a stock card and the running hand's
    seed planted in it is caught, and so is a finished game's log (which shows every stock
    draw) read as if the game were still on."""
    frame = next(
        i for i in items
        if i.viewer == "watcher" and i.body.get("type") == "state" and i.body["view"]
        and truth[_only(i.at)].positions[i.at[_only(i.at)]].stock
        and not truth[_only(i.at)].positions[i.at[_only(i.at)]].over
    )  # fmt: skip
    table_id, version = _only(frame.at), frame.at[_only(frame.at)]
    card = sorted(truth[table_id].positions[version].stock)[0]
    seed = truth[table_id].secret_seeds(version)[0]
    planted = Received("watcher", "planted", {**frame.body, "note": f"{card} / {seed}"}, frame.at)
    assert leaks(planted, truth) == [
        f"planted to watcher: card {card}",
        f"planted to watcher: seed {seed}",
    ]
    # A stock draw's card put in a spectator's move, in its cards or in its words, is found.
    frame, move = next(
        (i, m) for i in items
        if i.viewer == "watcher" and i.body.get("type") == "state" and i.body.get("moves")
        and not truth[_only(i.at)].finished_at(i.at[_only(i.at)])
        for m in i.body["moves"]
        if m["kind"] == "draw" and truth[_only(i.at)].secret_cards(m["version"], "watcher")
    )  # fmt: skip
    card = sorted(truth[_only(frame.at)].secret_cards(move["version"], "watcher"))[0]
    symbol = card[:-1] + {"S": "\u2660", "H": "\u2665", "D": "\u2666", "C": "\u2663"}[card[-1]]
    for planted_move in ({**move, "cards": [card]}, {**move, "text": f"x drew {symbol}"}):
        body = {**frame.body, "moves": [planted_move]}
        planted = Received("watcher", "planted", body, frame.at)
        assert leaks(planted, truth) == [
            f"planted to watcher: card {card} (move v{move['version']})"
        ]
    log = next(i for i in reversed(items) if i.log_of is not None)
    early = Received(None, "early log", log.body, {log.log_of: 1}, log_of=log.log_of)
    assert any(": card " in line for line in leaks(early, truth))
    # A stock card of the running hand planted in the last hand's summary is caught too.
    summed = next(
        i for i in items
        if i.viewer == "watcher" and isinstance(i.body, dict) and i.body.get("type") == "state"
        and i.body.get("last_hand")
        and truth[_only(i.at)].positions[i.at[_only(i.at)]].stock
    )  # fmt: skip
    table_id, version = _only(summed.at), summed.at[_only(summed.at)]
    card = sorted(truth[table_id].positions[version].stock)[0]
    last = summed.body["last_hand"]
    name = sorted(last["left"])[0]
    planted_left = {**last, "left": {**last["left"], name: [*last["left"][name], card]}}
    body = {**summed.body, "last_hand": planted_left}
    found = leaks(Received("watcher", "planted", body, summed.at), truth)
    assert found and all(
        line.startswith(f"planted to watcher: last_hand {last['number']}: ") and card in line
        for line in found
    ), found


def _only(at: dict[int, int]) -> int:
    (table_id,) = at
    return table_id
