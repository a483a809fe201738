"""The world of the leak test (``test_leaks.py``): the event, its people and their clients, the
tables as the test plays them, and what everyone reads through REST, the pages and the CSVs."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from channels.db import database_sync_to_async
from django.utils import timezone

from games.clock_services import table_enforce_deadline
from games.engine.bots import GreedyBot
from games.engine.state import GameState
from games.models import Table
from games.selectors import table_state
from tests.hostile.recorder import Person, Recorder, Socket
from tests.tournaments.factories import make_event
from tournaments.departures import live_tables
from tournaments.models import Entry, Tournament

NAMES = ["ann", "bob", "cid", "dan", "eve", "fay", "gus", "hal"]
# Low enough to end in a few hands, high enough that most games last more than one (a seed
# revealed while the game goes on). "Rummy!" calls on: claims by players out of turn too.
RULES = {"target": 150, "rummy_call": True}
TIMEOUT_AT = 5  # the action of each table at which the mover's clock runs out instead
PROBE_EVERY = 23  # hostile probes before every 23rd action of a table
READ_EVERY = 9  # every 9th action of a table, everyone reads it through REST
ORGANIZER_AT = 30  # at this action of the event's first table the director pauses, resumes, and
# withdraws the next player to move, whose turns the server then plays at once

db = database_sync_to_async  # the test's own database calls, from its event loop


@dataclass
class World:
    """The event, its director, players and onlookers, and everything recorded so far."""

    event: Tournament
    director: Person
    players: dict[str, Person]
    watcher: Person  # logged in, seated at no table
    anon: Person
    recorder: Recorder = field(default_factory=Recorder)
    rng: random.Random = field(default_factory=lambda: random.Random(8))
    probes: list[tuple[str, str, set[str]]] = field(default_factory=list)  # (what, got, allowed)
    withdrawn: str | None = None


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

    def opponent(self, mover: str) -> str:
        """Another player still playing (a withdrawn player's every action is ``forbidden``)."""
        return next(n for n, b in self.bots.items() if n != mover and isinstance(b, GreedyBot))


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


class Withdrawn:
    """The bot of a withdrawn player: the server plays their turns, and they claim nothing."""

    def claim(self, state: GameState, player: str) -> None:
        return None


def organize(world: World, game: Game, state: GameState) -> None:
    """The director pauses and resumes the table, then withdraws the next player to move."""
    assert state.turn is not None
    rec, director, table_id = world.recorder, world.director, game.table_id
    for call in ("pause", "resume"):
        answer = rec.api(director, f"/api/tables/{table_id}/{call}/", post={})
        assert answer["clock"]["paused"] is (call == "pause"), answer
    name = state.players[(state.turn + 1) % len(state.players)].name
    entry = Entry.objects.get(tournament=world.event, user__username=name)
    path = f"/api/events/{world.event.slug}/entries/{entry.pk}/withdraw/"
    answer = rec.api(director, path, post={"reason": "left the club"})
    assert answer["status"] == "withdrawn", answer
    world.withdrawn = name
    game.bots[name] = Withdrawn()  # type: ignore[assignment]


# --- reading ------------------------------------------------------------------------------------


def read_all(world: World, game: Game) -> None:
    """The table and its moves through REST as each of its players, the watcher, the visitor
    and a player of another table; its log; now and then its page."""
    rec, table_id = world.recorder, game.table_id
    stranger = next(p for n, p in world.players.items() if n not in game.seated)
    readers = [*(world.players[n] for n in game.seated), world.watcher, world.anon, stranger]
    for person in readers:
        rec.api(person, f"/api/tables/{table_id}/")
        rec.api(person, f"/api/tables/{table_id}/moves/")
    rec.api(readers[game.actions % len(readers)], "/api/tables/?status=playing")
    for person in (readers[0], world.anon):
        rec.api(person, f"/api/tables/{table_id}/log/")
    if game.actions % (3 * READ_EVERY) == 0:
        for person in (readers[game.actions % 4], world.watcher, world.anon):
            rec.page(person, f"/tables/{table_id}/")
    talk(world, game, readers)
    if game.actions % (4 * READ_EVERY) == 0:
        read_event(world, readers[game.actions % len(readers)])


def talk(world: World, game: Game, readers: list[Person]) -> None:
    """A player says something at the table and the watcher on the rail (their words name no
    card: the scan is of what the server adds), then everyone reads both rooms' history. The
    messages reach every table socket, which opened with ``?chat=1``."""
    rec, table_id = world.recorder, game.table_id
    rooms = f"/api/chat/rooms/table:{table_id}:"
    speaker = world.players[sorted(game.seated)[game.actions % len(game.seated)]]
    rec.api(
        speaker, rooms + "players/messages/", post={"text": f"well played, move {game.actions}"}
    )
    rec.api(world.watcher, rooms + "spectators/messages/", post={"text": "what a game"})
    for person in readers:
        for name in ("players", "spectators"):
            rec.api(person, f"{rooms}{name}/messages/")


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
            world.recorder.api(person, f"/api/tables/{table_id}/moves/")
        read_event(world, person)
