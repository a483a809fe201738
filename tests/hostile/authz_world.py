"""The objects of the authorization matrix (``test_authz_matrix.py``), built once for the module.

One user per role, two clubs, events of the hearts club at each point of their life, casual
tables and the socket set-up. Everything is made through the services, as a real club night
makes it; the matrix module builds it inside one outer transaction that it rolls back at the
end, and each test runs in a savepoint of its own within it, so no test sees another's changes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.apps import apps
from django.contrib.auth import SESSION_KEY
from django.test import Client
from django.utils import timezone
from rest_framework.authtoken.models import Token

from accounts.models import Club, ClubMembership, User
from chat.services import chat_post
from games import services as table_services
from games.engine.legal import legal_actions
from games.models import FinalizerFailure, Table
from tests.accounts.factories import UserFactory
from tests.games.finished import finished_table
from tests.games.tables import started_table, state_of
from tests.tournaments.factories import make_event, round_of, started_event
from tournaments import entries, organizer
from tournaments.models import Entry, Tournament
from tournaments.scorekeeper import scorekeeper_enter

#: The roles, in the order the matrix lists them, and the user playing each (None: anonymous).
ROLES = {
    "anon": None,  # nobody logged in
    "player": "ann",  # registered in the events, seated at their tables
    "other": "olive",  # logged in, in nothing of this
    "spectator": "sam",  # logged in, watching the table's socket, not seated
    "rival": "rita",  # admin of another club (spades), so organizer of its events
    "host": "hugo",  # admin of the events' club (hearts): their organizer
    "staff": "stella",  # is_staff (no Django admin permissions of their own)
    "root": "root",  # is_staff and is_superuser
}
OTHERS = ("bob", "cid", "dan")
#: Fields that move without any change of a game or an event (a login, a socket opened).
VOLATILE = {"last_login", "connections"}


@dataclass
class World:
    users: dict[str, User] = field(default_factory=dict)
    tokens: dict[str, str] = field(default_factory=dict)
    sessions: dict[str, str] = field(default_factory=dict)
    events: dict[str, Tournament] = field(default_factory=dict)
    tables: dict[str, Table] = field(default_factory=dict)
    ids: dict[str, int] = field(default_factory=dict)
    #: ``snapshot()`` of the world as built: every test starts from exactly this (its changes
    #: are rolled back), so a call that changed nothing leaves the database equal to it.
    baseline: dict[str, list[tuple[Any, ...]]] = field(default_factory=dict)

    def user(self, role: str) -> User | None:
        name = ROLES[role]
        return None if name is None else self.users[name]


def build() -> World:
    world = World()
    _people(world)
    _events(world)
    _tables(world)
    world.baseline = snapshot()
    return world


def _people(world: World) -> None:
    for name in [*filter(None, ROLES.values()), *OTHERS]:
        staff = name in ("stella", "root")
        user = UserFactory(username=name, is_staff=staff, is_superuser=name == "root")
        world.users[name] = user
        world.tokens[name] = Token.objects.create(user=user).key
        client = Client()
        client.force_login(user)
        world.sessions[name] = client.session.session_key or ""
        assert client.session[SESSION_KEY] == str(user.pk)
    hearts = Club.objects.create(name="Hearts", slug="hearts")
    spades = Club.objects.create(name="Spades", slug="spades")
    admin = ClubMembership.Role.ADMIN
    ClubMembership.objects.create(club=hearts, user=world.users["hugo"], role=admin)
    ClubMembership.objects.create(club=hearts, user=world.users["ann"])
    ClubMembership.objects.create(club=spades, user=world.users["rita"], role=admin)


def _events(world: World) -> None:
    """The hearts club's events (run by hugo) at each point of their life, and one of spades."""
    host, rita = world.users["hugo"], world.users["rita"]
    four = [world.users[n] for n in ("ann", *OTHERS)]
    swiss: dict[str, Any] = {"format": "swiss", "rounds": 2, "club": "hearts"}
    ev = world.events
    ev["draft"] = make_event(host, name="Draft night", club="hearts")
    ev["registration"] = make_event(host, status="registration", players=[four[0]], **swiss)
    ev["check_in"] = make_event(host, status="registration", players=four, **swiss)
    organizer_open_check_in(ev["check_in"], host, checked=four[1:])
    ev["running"] = started_event(host, four, name="Live night", **swiss)
    ev["paused"] = started_event(host, four, name="Paused night", **swiss)
    organizer.event_pause(event_id=ev["paused"].pk, actor=host)
    ev["face"] = started_event(host, four, name="Face night", online=False, **swiss)
    ev["waiting"] = started_event(host, four, name="Slow night", auto_advance=False, **swiss)
    ev["spades"] = make_event(
        rita,
        name="Spades night",
        club="spades",
        status="running",
        players=[world.users[n] for n in OTHERS],
        format="swiss",
        rounds=2,
    )
    for event in ev.values():
        event.refresh_from_db()
    _event_ids(world)


def organizer_open_check_in(event: Tournament, actor: User, checked: list[User]) -> None:
    from tournaments.services import event_open_check_in

    event_open_check_in(event_id=event.pk, actor=actor)
    for user in checked:
        entries.entry_check_in(event_id=event.pk, user=user)


def _event_ids(world: World) -> None:
    """The ids the organizer calls name: the running event's table without ann, bob's entry,
    the face-to-face table, the round waiting to start."""
    running, face = world.events["running"], world.events["face"]
    tables = list(round_of(running).tables.order_by("index"))
    ann = Entry.objects.get(tournament=running, user__username="ann").pk
    world.ids["decide"] = next(t.pk for t in tables if ann not in t.players)
    world.ids["ann_round_table"] = next(t.pk for t in tables if ann in t.players)
    world.ids["entry"] = Entry.objects.get(tournament=running, user__username="bob").pk
    world.ids["face_table"] = round_of(face).tables.order_by("index").first().pk
    world.ids["round"] = round_of(world.events["waiting"]).pk
    world.ids["stuck_table"] = _stuck_table(face, world.users["hugo"])


def _stuck_table(face: Tournament, host: User) -> int:
    """The face-to-face event's second table: its game entered, and its event's finalization
    given up (its organizers may retry it)."""
    table = round_of(face).tables.order_by("index")[1]
    first, second = Entry.objects.filter(pk__in=table.players).values_list(
        "user__username", flat=True
    )
    hand = {first: {"table": 60, "hand": 0}, second: {"table": 0, "hand": 10}}
    game = scorekeeper_enter(event_id=face.pk, round_table_id=table.pk, hands=[hand], actor=host)
    FinalizerFailure.objects.create(
        table=game, hook="tournaments", attempts=5, error="matrix", failed_at=timezone.now()
    )
    return table.pk


def _tables(world: World) -> None:
    """ann's live event table (ann to move), a paused one, a casual game, a casual game over (a
    rematch to answer), a table and a club table waiting for players."""
    ann, bob = world.users["ann"], world.users["bob"]
    running = round_of(world.events["running"]).tables.get(pk=world.ids["ann_round_table"])
    world.tables["event"] = _ann_to_move(running.table, world)
    paused = round_of(world.events["paused"]).tables.exclude(table=None).first()
    world.tables["paused"] = paused.table
    world.tables["casual"] = started_table([ann, bob])
    world.tables["finished"] = finished_table([ann, bob])
    waiting = table_services.table_create(creator=ann, ruleset="standard", seats=3)
    table_services.table_join(table_id=waiting.pk, user=bob)
    world.tables["waiting"] = waiting
    world.tables["club"] = table_services.table_create(
        creator=ann, ruleset="standard", seats=3, club="hearts"
    )
    for table in world.tables.values():
        table.refresh_from_db()
    world.ids["start_row"] = world.tables["event"].events.get(kind="start").pk
    # A message for the moderators to delete, and the events whose chat rooms the matrix names.
    room = f"table:{world.tables['event'].pk}:players"
    world.ids["chat_message"] = chat_post(room=room, author=ann, text="good luck").pk
    world.ids["draft_id"] = world.events["draft"].pk
    world.ids["running_id"] = world.events["running"].pk


def _ann_to_move(table: Table, world: World) -> Table:
    """Play the opponent's turn (a stock draw, then a discard) until ann is to move."""
    while (state := state_of(table)).names[state.turn] != "ann":
        mover = world.users[state.names[state.turn]]
        options = legal_actions(state, mover.username)
        pick = next((a for a in options if a.to_dict()["type"] in ("draw", "discard")), options[0])
        table_services.table_apply_action(
            table_id=table.pk, user=mover, action=pick.to_dict(), version=table.version
        )
    return table


def ann_move(world: World) -> dict[str, Any]:
    """A legal action of ann's at her event table now: what the player role sends."""
    table = world.tables["event"]
    action = legal_actions(state_of(table), "ann")[0].to_dict()
    return {"action": action, "version": table.version, "client_id": "authz-matrix"}


_SNAPSHOT_APPS = ("accounts", "authtoken", "chat", "games", "ratings", "tournaments")


def snapshot() -> dict[str, list[tuple[Any, ...]]]:
    """Every row of the service's own tables (users, clubs, tokens, tables and their logs,
    ratings, events, entries, rounds, announcements, audit log), without the fields that move
    on a mere login or socket: a refused call must leave all of it as it was."""
    rows = {}
    for label in _SNAPSHOT_APPS:
        for model in apps.get_app_config(label).get_models():
            if model._meta.proxy:
                continue
            names = [f.attname for f in model._meta.concrete_fields if f.name not in VOLATILE]
            rows[model._meta.label] = list(model.objects.order_by("pk").values_list(*names))
    return rows
