"""A whole simulated event, and everything each client received scanned for what they must not see.

Eight players play a two-round Swiss of four-seat tables through the public interfaces only:
their actions go over ``/ws/tables/{id}/`` (chosen by the engine's greedy bot, and checked to be
in the ``legal`` list of the view the player last received), and they, a logged-in watcher seated
nowhere and an anonymous visitor read the REST API, the pages and the CSV exports as the games
go on; the watcher and the visitor hold a socket on every table and on ``/ws/events/{slug}/``.
Hostile probes along the way (another player's card named, a stale version, someone else's
turn, an action from a spectator, malformed input, a repeated ``client_id``) have their error
frames and error bodies recorded too, as has a turn the server played when its clock ran out.

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
import random
import uuid
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.db import connections as databases
from django.utils import timezone

from config import push as config_push
from games.clock_services import table_enforce_deadline
from games.engine.bots import GreedyBot
from games.engine.cards import format_card
from games.engine.play import next_move
from games.engine.state import GameState
from games.models import Table
from games.selectors import table_state, table_states
from tests.hostile.leaks import (
    JSON_SCRIPT,
    Received,
    TableTruth,
    card_strings,
    leaks,
    positions,
    view_problems,
)
from tests.hostile.recorder import Person, Recorder, Socket
from tests.tournaments.factories import make_event, run_hooks
from tournaments.models import Tournament
from tournaments.organizer import live_tables

pytestmark = pytest.mark.django_db(transaction=True)

NAMES = ["ann", "bob", "cid", "dan", "eve", "fay", "gus", "hal"]
# Low enough to end in a few hands, high enough that most games last more than one (a seed
# revealed while the game goes on). "Rummy!" calls on: claims by players out of turn too.
RULES = {"target": 150, "rummy_call": True}
TIMEOUT_AT = 5  # the action of each table at which the mover's clock runs out instead
PROBE_EVERY = 23  # hostile probes before every 23rd action of a table
READ_EVERY = 9  # every 9th action of a table, everyone reads it through REST


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


@dataclass
class World:
    event: Tournament
    director: Person
    players: dict[str, Person]
    watcher: Person  # logged in, seated at no table
    anon: Person
    recorder: Recorder = field(default_factory=Recorder)
    rng: random.Random = field(default_factory=lambda: random.Random(8))
    probes: list[tuple[str, str, set[str]]] = field(default_factory=list)  # (what, got, allowed)


@dataclass
class Game:
    """One live table as the test plays it: everyone's socket on it and the players' bots."""

    table_id: int
    seated: dict[str, Socket]
    watching: list[Socket]
    bots: dict[str, GreedyBot]
    actions: int = 0
    last: tuple[str, dict[str, Any]] | None = None  # the last action sent: who, and the message

    @property
    def sockets(self) -> list[Socket]:
        return [*self.seated.values(), *self.watching]


def make_world() -> World:
    director = Person.register("director", is_staff=True)
    players = {name: Person.register(name) for name in NAMES}
    event = make_event(
        director.user,
        status="running",
        players=[p.user for p in players.values()],
        name="Leak test",
        format="swiss_tables",
        table_size=4,
        rounds=2,
        overrides=RULES,
    )
    return World(event, director, players, Person.register("watcher"), Person.anonymous())


def live_table_ids(event: Tournament) -> list[int]:
    return sorted(t.pk for t in live_tables(event))


def read_table(table_id: int) -> tuple[GameState | None, int, str, list[str]]:
    table = Table.objects.get(pk=table_id)
    names = list(table.seat_set.order_by("position").values_list("user__username", flat=True))
    return table_state(table), table.version, table.status, names


def time_out(table_id: int) -> None:
    """The mover's time runs out (as if the deadline had passed) and the server plays."""
    Table.objects.filter(pk=table_id).update(deadline=timezone.now() - timedelta(seconds=1))
    assert table_enforce_deadline(table_id)


def truths(event: Tournament) -> dict[int, TableTruth]:
    """Each table of the event, every version replayed from its log."""
    out = {}
    for table in Table.objects.filter(tournament_table__round__tournament=event):
        seeds = {d["hand"]: d["seed"] for d in table.deals}
        out[table.pk] = TableTruth(table.pk, positions(table_states(table)), seeds)
    return out


db = database_sync_to_async


# --- playing ------------------------------------------------------------------------------------


async def seat(world: World, table_id: int) -> Game:
    """Everyone's socket on a new table: its players, the watcher and the visitor."""
    rec = world.recorder
    _, version, _, names = await db(read_table)(table_id)
    rec.versions[table_id] = version
    path = f"/ws/tables/{table_id}/"
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


async def play(world: World) -> int:
    """Every round to the end of the event; returns how many changes the test made."""
    total = 0
    while table_ids := await db(live_table_ids)(world.event):
        games = [await seat(world, t) for t in table_ids]
        await db(read_event)(world, world.players[NAMES[0]])
        while games:
            for game in list(games):
                if not await step(world, game):
                    games.remove(game)
                    total += game.actions
                    await db(run_hooks)(game.table_id)
    return total


# --- hostile probes -----------------------------------------------------------------------------


def _hand(state: GameState, name: str) -> list[str]:
    seat = state.seat_of(name)
    assert seat is not None
    return sorted(c for c in map(format_card, state.players[seat].hand) if c != "*")


def socket_probes(game: Game, state: GameState, version: int) -> list[tuple[Socket, Any, set]]:
    """(socket, action, version, the error codes that may answer) for each socket probe: the
    mover names a card another player holds, sends a stale version or an impossible draw; a
    player out of turn draws or claims; the spectators act."""
    assert state.turn is not None
    mover = state.players[state.turn].name
    other = next(n for n in game.seated if n != mover)
    theirs, mine = _hand(state, other), _hand(state, mover)
    secret, by, sock = theirs[0], game.seated[mover], game.seated[other]
    in_hand = {"not_in_hand", "wrong_phase", "invalid_meld"}
    return [
        (by, ({"type": "discard", "card": secret}, version), in_hand),
        (by, ({"type": "meld", "cards": [*mine[:2], secret]}, version), in_hand),
        (by, ({"type": "draw", "source": "stock"}, version - 1), {"stale_version"}),
        (
            by,
            ({"type": "draw", "source": "discard", "count": 99}, version),
            {
                "bad_request",
                "wrong_phase",
            },
        ),
        (sock, ({"type": "draw", "source": "stock"}, version), {"not_your_turn"}),
        (
            sock,
            ({"type": "rummy", "count": 1, "melds": [{"cards": theirs[:3]}]}, version),
            {
                "no_rummy",
                "bad_request",
            },
        ),
        (game.watching[0], ({"type": "discard", "card": secret}, version), {"not_seated"}),
        (game.watching[1], ({"type": "discard", "card": mine[0]}, version), {"not_seated"}),
    ]


async def probe(world: World, game: Game, state: GameState, version: int) -> None:
    """Hostile input over the socket and REST, each answered by an error; nothing changes."""
    rec = world.recorder
    for socket, (action, sent_version), allowed in socket_probes(game, state, version):
        client_id = str(uuid.uuid4())
        rec.named[client_id] = frozenset(card_strings(action))
        message = {"type": "action", "action": action, "version": sent_version}
        await socket.send({**message, "client_id": client_id})
        answer = await socket.answer(client_id)
        world.probes.append((f"ws {action['type']}", answer.get("error", ""), allowed))
    await other_messages(game)
    await db(rest_probes)(world, game, state, version)
    await repeat_last(game)
    assert (await db(read_table)(game.table_id))[1] == version, "a probe changed the table"


async def other_messages(game: Game) -> None:
    """A spectator's malformed frame and "I'm back" (errors), and its ``sync`` (a fresh frame)."""
    watcher, anon = game.watching
    for text in ("{not json", '{"type": "back"}'):
        errors = anon.errors()
        await anon.comm.send_to(text_data=text)
        await anon.until(lambda e=errors: anon.errors() > e, f"the error answering {text}")
    frames = len(watcher.frames)
    await watcher.send({"type": "sync"})
    await watcher.until(lambda: len(watcher.frames) > frames, "the state answering sync")


def rest_probes(world: World, game: Game, state: GameState, version: int) -> None:
    """The same through ``POST /api/tables/{id}/actions/``: error bodies are scanned too."""
    assert state.turn is not None
    mover = state.players[state.turn].name
    other = next(n for n in game.seated if n != mover)
    secret = _hand(state, other)[0]
    path = f"/api/tables/{game.table_id}/actions/"
    discard = {"action": {"type": "discard", "card": secret}, "version": version}
    draw = {"action": {"type": "draw", "source": "stock"}, "version": version}
    named = frozenset([secret])
    calls = [
        (world.players[mover], discard, {"not_in_hand", "wrong_phase"}),
        (world.players[other], draw, {"not_your_turn"}),
        (world.watcher, discard, {"not_seated"}),
        (world.anon, discard, {"not_authenticated"}),
    ]
    for person, body, allowed in calls:
        answer = world.recorder.api(person, path, post=body, named=named)
        world.probes.append((f"POST {body['action']['type']}", answer.get("error", ""), allowed))
    if game.last is not None:  # the last change repeated: answered with the view as it was then
        name, message = game.last
        repeat = {k: message[k] for k in ("action", "version", "client_id")}
        answer = world.recorder.api(world.players[name], path, post=repeat)
        assert answer["version"] > message["version"], answer


async def repeat_last(game: Game) -> None:
    """The last action's message sent again on its socket: answered once more, to its sender."""
    if game.last is None:
        return
    name, message = game.last
    socket = game.seated[name]
    before = len(socket.frames)
    await socket.send(message)
    await socket.until(lambda: len(socket.frames) > before, "the repeat's answer")
    assert socket.frames[-1]["type"] == "state", socket.frames[-1]


# --- reading ------------------------------------------------------------------------------------


def read_all(world: World, game: Game) -> None:
    """The table through REST as each of its players, the watcher, the visitor and a player
    of another table; its log; now and then its page."""
    rec, table_id = world.recorder, game.table_id
    stranger = next(p for n, p in world.players.items() if n not in game.seated)
    readers = [*(world.players[n] for n in game.seated), world.watcher, world.anon, stranger]
    for person in readers:
        rec.api(person, f"/api/tables/{table_id}/")
    rec.api(readers[game.actions % len(readers)], "/api/tables/?status=playing")
    for person in (readers[0], world.anon):
        rec.api(person, f"/api/tables/{table_id}/log/")
    if game.actions % (3 * READ_EVERY) == 0:
        for person in (readers[game.actions % 4], world.watcher, world.anon):
            rec.page(person, f"/tables/{table_id}/")
    if game.actions % (4 * READ_EVERY) == 0:
        read_event(world, readers[game.actions % len(readers)])


def read_event(world: World, person: Person) -> None:
    """The event, its standings, rounds and bracket, the ratings, as ``person`` reads them."""
    rec, slug = world.recorder, world.event.slug
    name = person.name or NAMES[0]
    for path in ("", "standings/", "rounds/", "entries/", "bracket/", "announcements/"):
        rec.api(person, f"/api/events/{slug}/{path}")
    for path in ("/api/events/", "/api/leaderboard/", f"/api/players/{name}/"):
        rec.api(person, path)
    pages = ["/events/", f"/events/{slug}/", f"/events/{slug}/live/", "/leaderboard/"]
    pages += [f"/events/{slug}/standings.csv", f"/events/{slug}/results.csv", "/leaderboard.csv"]
    pages += [f"/players/{name}/", "/tables/?status=playing"]
    for path in pages:
        rec.page(person, path)


def final_reads(world: World) -> None:
    """Everything once more after the event: the logs now show every card (the games are over)."""
    table_ids = sorted(world.recorder.versions)
    for person in (world.players[NAMES[0]], world.watcher, world.anon, world.director):
        for table_id in table_ids:
            world.recorder.api(person, f"/api/tables/{table_id}/")
            world.recorder.api(person, f"/api/tables/{table_id}/log/")
        read_event(world, person)


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
                await rec.socket(person, f"/ws/events/{world.event.slug}/")
            changes = await play(world)
            await db(final_reads)(world)
    finally:
        await rec.close()
    truth = await db(truths)(world.event)

    found = scan(rec.items, truth)
    assert not found, "\n".join(found[:40])

    await db(world.event.refresh_from_db)()
    assert world.event.status == "finished" and len(truth) == 4
    assert_covered(world, truth, changes)
    assert_planted_leaks_are_found(rec.items, truth)


def assert_covered(world: World, truth: dict[int, TableTruth], changes: int) -> None:
    """The scan had something to find: cards in what was received, secrets at every version,
    hands ended (seeds revealed) while games went on, cards seen taken, every probe refused."""
    items = world.recorder.items
    frames = [i for i in items if i.what.startswith("ws /ws/tables/") and i.body["type"] == "state"]
    assert len(frames) >= 6 * changes  # four players and two spectators saw every change
    assert sum(bool(i.tokens) for i in items) >= len(frames)  # hands, piles, melds, logs
    assert any(len(t.seeds) >= 2 for t in truth.values()), "no game lasted two hands"
    seen_taken = [
        p for t in truth.values() for p in t.positions.values() for n in p.held
        if p.held[n] != p.private[n]
    ]  # fmt: skip
    assert seen_taken, "nobody took a card from the discard pile"
    assert len(world.probes) >= 4 * 13 and all(got in ok for _, got, ok in world.probes), [
        p for p in world.probes if p[1] not in p[2]
    ]
    running_logs = [
        i for i in items if i.log_of is not None and not truth[i.log_of].finished_at(i.at[i.log_of])
    ]
    assert running_logs


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
    log = next(i for i in reversed(items) if i.log_of is not None)
    early = Received(None, "early log", log.body, {log.log_of: 1}, log_of=log.log_of)
    assert any(": card " in line for line in leaks(early, truth))


def _only(at: dict[int, int]) -> int:
    (table_id,) = at
    return table_id
