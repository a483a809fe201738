"""The table socket ``/ws/tables/{id}/`` through the whole ASGI application (PROTOCOL.md).

Every test runs on the in-memory channel layer (so a shared Redis never mixes two runs' groups)
except ``test_on_the_configured_channel_layer``, which runs on whatever the settings configure:
channels-redis in CI. Frames are awaited with ``receive_json_from``; every expected frame is
counted, so a missing or extra one fails the test rather than a timer.
"""

from __future__ import annotations

import asyncio
import json
import re
import uuid
from collections.abc import AsyncIterator, Iterator
from contextlib import AsyncExitStack, asynccontextmanager, suppress
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator
from django.conf import settings as django_settings
from django.db import connections as databases
from django.test import Client
from django.utils import timezone

from accounts.models import User
from accounts.services import user_register
from config import push as config_push
from config.asgi import application
from config.ws_limit import CLOSE_TOO_BIG, MAX_FRAME_BYTES
from games import push as games_push
from games import services
from games.clock_services import table_enforce_deadline
from games.consumers import CLOSE_NOT_FOUND
from games.engine.cards import parse_cards
from games.engine.legal import legal_actions
from games.engine.load import state_from_dict
from games.engine.rules import Rules
from games.engine.scoring import hand_value
from games.engine.shuffle import commitment
from games.models import RuleSet, Seat, Table, TableEvent
from games.selectors import table_payload

pytestmark = pytest.mark.django_db(transaction=True)

PASSWORD = "correct-horse-battery-staple"
TIMEOUT = 10  # seconds a frame may take; generous for a loaded CI machine, never reached
CARD = re.compile(r"^(10|[2-9AJQK])[SHDC]$")
# A two-player hand is at most ~28 turns of a few actions each; this only stops a runaway loop.
MAX_STEPS = 400


@pytest.fixture(autouse=True)
def _layer(request: pytest.FixtureRequest, settings: Any) -> Iterator[None]:
    """The in-memory layer (unless the test asks for ``configured_layer``), and no server loop
    left over from an earlier test: the application records this test's loop."""
    if "configured_layer" not in request.fixturenames:
        settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    config_push.set_server_loop(None)
    yield
    config_push.set_server_loop(None)


@pytest.fixture(autouse=True)
async def _close_worker_connections() -> AsyncIterator[None]:
    """Close the database connection of the thread the consumers' queries ran in: kept open
    for reuse (CONN_MAX_AGE), it would still hold the test database when pytest drops it."""
    yield
    await database_sync_to_async(databases.close_all)()


@pytest.fixture
def configured_layer() -> None:
    """Marks a test that runs on the channel layer of the settings."""


# --- set-up through the services ----------------------------------------------------------------


@dataclass
class Person:
    user: User
    token: str
    cookie: bytes  # the session cookie header of a logged-in browser

    @property
    def name(self) -> str:
        return str(self.user.username)


def person(username: str) -> Person:
    user, token = user_register(username=username, password=PASSWORD)
    client = Client()
    client.force_login(user)
    session = client.cookies[django_settings.SESSION_COOKIE_NAME].value
    return Person(user, token.key, f"{django_settings.SESSION_COOKIE_NAME}={session}".encode())


@pytest.fixture
def ruleset() -> RuleSet:
    # Created here: a transactional test's flush removes the presets the migrations made.
    rule_set, _ = RuleSet.objects.get_or_create(slug="ws", defaults={"name": "Sockets"})
    return rule_set


@pytest.fixture
def ann() -> Person:
    return person("ann")


@pytest.fixture
def bob() -> Person:
    return person("bob")


@pytest.fixture
def cid() -> Person:
    return person("cid")


@pytest.fixture
def table(ruleset: RuleSet, ann: Person, bob: Person) -> Table:
    """Ann and Bob at a two-seat table: full, so it started when Bob sat down."""
    created = services.table_create(creator=ann.user, ruleset=ruleset, seats=2)
    services.table_join(table_id=created.pk, user=bob.user)
    created.refresh_from_db()
    assert created.status == Table.Status.PLAYING
    return created


@database_sync_to_async
def fresh(table_id: int) -> Table:
    return Table.objects.get(pk=table_id)


@database_sync_to_async
def connections(table_id: int) -> dict[str, int]:
    seats = Seat.objects.filter(table_id=table_id).select_related("user")
    return {s.user.username: s.connections for s in seats}


# --- sockets --------------------------------------------------------------------------------


@dataclass
class Socket:
    """A connected communicator and every frame it received."""

    communicator: WebsocketCommunicator
    frames: list[dict[str, Any]] = field(default_factory=list)

    async def next(self) -> dict[str, Any]:
        frame: dict[str, Any] = await self.communicator.receive_json_from(timeout=TIMEOUT)
        self.frames.append(frame)
        return frame

    async def send(self, message: Any) -> None:
        await self.communicator.send_json_to(message)

    async def ask(self, message: Any) -> dict[str, Any]:
        await self.send(message)
        return await self.next()

    async def quiet(self) -> bool:
        """Nothing more has arrived (the final check of a test, never a synchronisation)."""
        return bool(await self.communicator.receive_nothing())


def headers(who: Person | None = None, origin: bytes | None = None) -> list[tuple[bytes, bytes]]:
    out = []
    if who is not None:
        out.append((b"cookie", who.cookie))
    if origin is not None:
        out.append((b"origin", origin))
    return out


@asynccontextmanager
async def opened(path: str, hdrs: list[tuple[bytes, bytes]] | None = None) -> AsyncIterator[Socket]:
    """An accepted socket on ``path``, closed on the way out whatever happens."""
    communicator = WebsocketCommunicator(application, path, headers=hdrs or [])
    try:
        connected, code = await communicator.connect(timeout=TIMEOUT)
        assert connected, f"refused with {code}"
        yield Socket(communicator)
    except BaseException:
        # The test failed already (a timeout cancels the application): keep its own error.
        with suppress(Exception, asyncio.CancelledError):
            await communicator.disconnect(timeout=TIMEOUT)
        raise
    await communicator.disconnect(timeout=TIMEOUT)


async def refused(path: str, hdrs: list[tuple[bytes, bytes]] | None = None) -> int:
    """The close code of a handshake that must be refused."""
    communicator = WebsocketCommunicator(application, path, headers=hdrs or [])
    try:
        connected, code = await communicator.connect(timeout=TIMEOUT)
        assert not connected
        return int(code)
    finally:
        await communicator.disconnect(timeout=TIMEOUT)


def url(table: Table | int, token: str | None = None) -> str:
    table_id = table if isinstance(table, int) else table.pk
    return f"/ws/tables/{table_id}/" + (f"?token={token}" if token else "")


def player(view: dict[str, Any], name: str) -> dict[str, Any]:
    return next(p for p in view["players"] if p["name"] == name)


def action_message(frame: dict[str, Any], action: dict[str, Any], **extra: Any) -> dict[str, Any]:
    message = {"type": "action", "action": action, "version": frame["version"]}
    return {"client_id": uuid.uuid4().hex, **message, **extra}


def draw_stock() -> dict[str, Any]:
    return {"type": "draw", "source": "stock"}


# --- connecting -----------------------------------------------------------------------------


async def test_a_session_cookie_gives_the_player_their_own_view(table: Table, ann: Person) -> None:
    async with opened(url(table), headers(ann)) as socket:
        frame = await socket.next()
    assert frame["type"] == "state"
    assert frame["version"] == table.version
    assert frame["status"] == "playing"
    assert frame["players"] == ["ann", "bob"]
    view = frame["view"]
    assert view["you"] == "ann"
    assert isinstance(player(view, "ann")["hand"], list)
    assert isinstance(player(view, "bob")["hand"], int)
    assert isinstance(view["stock"], int)
    assert "seed" not in view
    assert [d["seed"] for d in view["deals"]] == [None]
    assert frame["deadline"].endswith("Z")


async def test_a_token_gives_the_player_their_own_view(table: Table, bob: Person) -> None:
    async with opened(url(table, bob.token)) as socket:
        frame = await socket.next()
    assert frame["view"]["you"] == "bob"
    assert isinstance(player(frame["view"], "bob")["hand"], list)
    assert isinstance(player(frame["view"], "ann")["hand"], int)


async def test_a_bad_token_is_refused_before_accept(table: Table) -> None:
    await refused(url(table, "not-a-token"))


async def test_an_unknown_table_is_refused(table: Table, ann: Person) -> None:
    assert await refused(url(table.pk + 1000), headers(ann)) == CLOSE_NOT_FOUND


async def test_a_path_that_names_no_table_is_refused(table: Table, ann: Person) -> None:
    await refused("/ws/tables/first/", headers(ann))
    await refused("/ws/tables/", headers(ann))


async def test_an_anonymous_spectator_gets_the_public_view(table: Table) -> None:
    async with opened(url(table)) as socket:
        frame = await socket.next()
    view = frame["view"]
    assert all(isinstance(p["hand"], int) for p in view["players"])
    assert isinstance(view["stock"], int)
    assert "you" not in view and "legal" not in view and "seed" not in view
    assert "drawn" not in view


async def test_a_logged_in_user_without_a_seat_gets_the_public_view(
    table: Table, cid: Person
) -> None:
    async with opened(url(table, cid.token)) as socket:
        frame = await socket.next()
    assert all(isinstance(p["hand"], int) for p in frame["view"]["players"])
    assert "you" not in frame["view"]


async def test_origins(table: Table, ann: Person, settings: Any) -> None:
    settings.ALLOWED_HOSTS = ["rummy.example"]
    async with opened(url(table), headers(ann, origin=b"https://rummy.example")) as socket:
        assert (await socket.next())["view"]["you"] == "ann"
    # No Origin at all: a bot, which a cross-site page cannot be.
    async with opened(url(table, ann.token)) as socket:
        assert (await socket.next())["view"]["you"] == "ann"
    # A page elsewhere riding on the visitor's cookie.
    await refused(url(table), headers(ann, origin=b"https://evil.example"))
    assert await connections(table.pk) == {"ann": 0, "bob": 0}


# --- the connected flag, disconnecting and reconnecting ----------------------------------------


async def test_the_connected_flag_follows_the_sockets(
    table: Table, ann: Person, bob: Person
) -> None:
    async with AsyncExitStack() as stack:
        a = await stack.enter_async_context(opened(url(table), headers(ann)))
        first = await a.next()
        assert player(first["view"], "ann")["connected"] is True
        assert player(first["view"], "bob")["connected"] is False

        b = await stack.enter_async_context(opened(url(table, bob.token)))
        seen_by_b = await b.next()
        assert player(seen_by_b["view"], "ann")["connected"] is True
        assert player(seen_by_b["view"], "bob")["connected"] is True
        told_a = await a.next()  # Bob's arrival
        assert player(told_a["view"], "bob")["connected"] is True
        assert told_a["version"] == first["version"]
        assert await connections(table.pk) == {"ann": 1, "bob": 1}

        await a.communicator.disconnect(timeout=TIMEOUT)
        gone = await b.next()
        assert player(gone["view"], "ann")["connected"] is False
        assert gone["version"] == seen_by_b["version"] == (await fresh(table.pk)).version
        assert await connections(table.pk) == {"ann": 0, "bob": 1}
        assert await b.quiet()
    assert await connections(table.pk) == {"ann": 0, "bob": 0}
    assert (await fresh(table.pk)).version == table.version  # sockets never change the game


async def test_a_connected_flag_read_before_a_socket_opened_never_reaches_it(
    table: Table, ann: Person, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A push read before Ann's socket was counted (her flag still false) that reaches the
    socket after its first frame is older than that frame: dropped. One read after it is not."""
    async with opened(url(table), headers(ann)) as a:
        first = await a.next()
        assert player(first["view"], "ann")["connected"] is True
        monkeypatch.setattr(games_push.time, "time", lambda: 0.0)  # read "long ago"
        await database_sync_to_async(stale_push)(table.pk)
        assert await a.quiet()
        monkeypatch.undo()
        await database_sync_to_async(games_push.push_table_id)(table.pk)  # read now: the same
        assert await a.quiet()


def stale_push(table_id: int) -> None:
    """A push of Ann's table as it was before her socket opened: her connection not counted."""
    Seat.objects.filter(table_id=table_id, user__username="ann").update(connections=0)
    games_push.push_table_id(table_id)
    Seat.objects.filter(table_id=table_id, user__username="ann").update(connections=1)


async def test_sockets_opening_together_are_told_to_the_table_in_one_push(
    table: Table, ann: Person, bob: Person, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Under a server, sockets opening on a table within ``PRESENCE_DELAY`` of each other (Bob's
    and a second of Ann's) cost the table one push, which tells the others of all of them."""
    pushes: list[int] = []
    real = games_push.push_table

    def counted(table: Table, *args: Any) -> None:
        pushes.append(table.pk)
        real(table, *args)

    monkeypatch.setattr(games_push, "push_table", counted)
    async with AsyncExitStack() as stack:
        a = await stack.enter_async_context(opened(url(table), headers(ann)))
        await a.next()
        await asyncio.sleep(games_push.PRESENCE_DELAY * 2)  # Ann's own arrival told
        pushes.clear()
        b = await stack.enter_async_context(opened(url(table, bob.token)))
        a2 = await stack.enter_async_context(opened(url(table, ann.token)))
        await b.next(), await a2.next()
        told = await a.next()
        assert player(told["view"], "bob")["connected"] is True
        assert await connections(table.pk) == {"ann": 2, "bob": 1}
        assert pushes == [table.pk]
        assert await a.quiet()


async def test_two_sockets_of_one_player_keep_them_connected_until_both_close(
    table: Table, ann: Person, bob: Person
) -> None:
    async with opened(url(table, bob.token)) as b:
        await b.next()
        async with opened(url(table), headers(ann)) as a1:
            await a1.next()
            await b.next()
            async with opened(url(table, ann.token)) as a2:
                await a2.next()
                assert await connections(table.pk) == {"ann": 2, "bob": 1}
                # Ann was connected already: nobody's view changed, so nothing more is sent.
                assert await b.quiet() and await a1.quiet()
            # Ann is still connected: Bob's view is unchanged, so nothing is sent again.
            assert await connections(table.pk) == {"ann": 1, "bob": 1}
            assert await b.quiet()
        assert player((await b.next())["view"], "ann")["connected"] is False


async def test_reconnecting_gives_the_current_state(table: Table, ann: Person, bob: Person) -> None:
    async with opened(url(table), headers(ann)) as a:
        frame = await a.next()
        assert frame["view"]["turn"] == "ann"
        await a.send(action_message(frame, draw_stock()))
        drew = await a.next()
        assert drew["version"] == frame["version"] + 1
        discard = next(x for x in drew["view"]["legal"] if x["type"] == "discard")
        await a.send(action_message(drew, discard))
        assert (await a.next())["version"] == drew["version"] + 1
    # While Ann is away Bob draws (through the REST service).
    moved = await database_sync_to_async(services.table_apply_action)(
        table_id=table.pk, user=bob.user, action=draw_stock(), version=drew["version"] + 1
    )
    async with opened(url(table, ann.token)) as a:
        back = await a.next()
    now = await fresh(table.pk)
    assert back["version"] == now.version == moved.version
    assert back["view"]["turn"] == "bob"
    assert player(back["view"], "ann")["hand"] == now.state["players"][0]["hand"]
    assert player(back["view"], "bob")["hand"] == len(now.state["players"][1]["hand"])


# --- messages and errors --------------------------------------------------------------------


async def test_sync_returns_the_current_state(table: Table, ann: Person) -> None:
    async with opened(url(table), headers(ann)) as a:
        first = await a.next()
        again = await a.ask({"type": "sync"})
    assert again == first


async def test_a_stale_version_is_refused_to_the_sender_alone(
    table: Table, ann: Person, bob: Person
) -> None:
    async with opened(url(table), headers(ann)) as a, opened(url(table, bob.token)) as b:
        frame = await a.next()
        await b.next()
        await a.next()  # Bob connected
        stale = action_message(frame, draw_stock(), version=frame["version"] - 1)
        error = await a.ask(stale)
        assert error == {
            "type": "error",
            "client_id": stale["client_id"],
            "error": "stale_version",
            "message": error["message"],
            "version": frame["version"],
        }
        # Bob's next frame is the answer to his own sync: nothing reached him before it.
        synced = await b.ask({"type": "sync"})
        assert synced["type"] == "state" and synced["version"] == frame["version"]
        assert await a.quiet() and await b.quiet()
    assert (await fresh(table.pk)).version == frame["version"]


async def test_a_repeated_client_id_is_applied_once_and_answered_again(
    table: Table, ann: Person, bob: Person
) -> None:
    async with opened(url(table), headers(ann)) as a, opened(url(table, bob.token)) as b:
        frame = await a.next()
        await b.next()
        await a.next()  # Bob connected
        message = action_message(frame, draw_stock())
        applied = await a.ask(message)
        assert applied["version"] == frame["version"] + 1
        assert (await b.next())["version"] == applied["version"]

        repeat = await a.ask(message)  # its version is stale by now: the client_id comes first
        assert repeat["type"] == "state"
        assert repeat["version"] == applied["version"]
        assert repeat["client_id"] == message["client_id"]
        assert repeat["view"] == applied["view"]
        synced = await b.ask({"type": "sync"})  # nothing was pushed to Bob for the repeat
        assert synced["version"] == applied["version"]
        assert await a.quiet() and await b.quiet()

    now = await fresh(table.pk)
    assert now.version == frame["version"] + 1
    count = await database_sync_to_async(
        TableEvent.objects.filter(table=now, client_id=message["client_id"]).count
    )()
    assert count == 1


async def test_not_your_turn(table: Table, bob: Person) -> None:
    async with opened(url(table, bob.token)) as b:
        frame = await b.next()
        assert frame["view"]["turn"] == "ann"
        message = action_message(frame, draw_stock())
        error = await b.ask(message)
    assert error["type"] == "error"
    assert error["error"] == "not_your_turn"
    assert error["client_id"] == message["client_id"]


async def test_an_anonymous_action_is_refused(table: Table) -> None:
    async with opened(url(table)) as socket:
        frame = await socket.next()
        error = await socket.ask(action_message(frame, draw_stock(), client_id="c-1"))
    assert error["error"] == "not_seated"
    assert error["client_id"] == "c-1"
    assert "log in" in error["message"]
    assert (await fresh(table.pk)).version == frame["version"]


async def test_an_action_from_a_user_without_a_seat_is_refused(table: Table, cid: Person) -> None:
    async with opened(url(table), headers(cid)) as socket:
        frame = await socket.next()
        error = await socket.ask(action_message(frame, draw_stock(), client_id="c-2"))
    assert (error["error"], error["client_id"]) == ("not_seated", "c-2")
    assert (await fresh(table.pk)).version == frame["version"]


@pytest.mark.parametrize(
    ("text", "client_id"),
    [
        ("{not json", None),
        ("[1, 2]", None),
        ('"sync"', None),
        ('{"client_id": "c-3"}', "c-3"),
        ('{"type": "hello", "client_id": "c-4"}', "c-4"),
        ('{"type": "action", "action": {"type": "fly"}, "version": 1, "client_id": "c-5"}', "c-5"),
        ('{"type": "action", "action": {"type": "draw", "source": "stock"}}', None),
        ("[" * 5000 + "]" * 5000, None),
    ],
)
async def test_a_malformed_message_is_a_bad_request_and_the_socket_stays_open(
    table: Table, ann: Person, text: str, client_id: str | None
) -> None:
    async with opened(url(table), headers(ann)) as a:
        frame = await a.next()
        await a.communicator.send_to(text_data=text)
        error = await a.next()
        assert error["type"] == "error"
        assert (error["error"], error["client_id"]) == ("bad_request", client_id)
        assert error["message"]
        assert (await a.ask({"type": "sync"}))["version"] == frame["version"]


async def test_a_binary_frame_is_a_bad_request(table: Table, ann: Person) -> None:
    async with opened(url(table), headers(ann)) as a:
        await a.next()
        await a.communicator.send_to(bytes_data=b'{"type": "sync"}')
        assert (await a.next())["error"] == "bad_request"
        assert (await a.ask({"type": "sync"}))["type"] == "state"


async def test_a_huge_frame_is_refused_and_the_socket_closed(table: Table, ann: Person) -> None:
    async with opened(url(table), headers(ann)) as a:
        await a.next()
        huge = json.dumps({"type": "sync", "pad": "x" * MAX_FRAME_BYTES})
        await a.communicator.send_to(text_data=huge)
        error = await a.next()
        assert (error["type"], error["error"], error["client_id"]) == ("error", "bad_request", None)
        closed = await a.communicator.receive_output(timeout=TIMEOUT)
        assert closed == {"type": "websocket.close", "code": CLOSE_TOO_BIG}


async def test_a_frame_at_the_limit_is_read(table: Table, ann: Person) -> None:
    async with opened(url(table), headers(ann)) as a:
        first = await a.next()
        message = json.dumps({"type": "sync", "pad": ""})
        message = message.replace('""', '"' + "x" * (MAX_FRAME_BYTES - len(message)) + '"')
        assert len(message.encode()) == MAX_FRAME_BYTES
        await a.communicator.send_to(text_data=message)
        assert (await a.next())["version"] == first["version"]


async def test_a_failing_handler_still_gives_the_seat_up(
    table: Table, ann: Person, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A crash drops the socket without a disconnect; the seat must not stay connected."""

    def broken(**kwargs: Any) -> None:
        raise RuntimeError("the database went away")

    monkeypatch.setattr(services, "table_apply_action", broken)
    communicator = WebsocketCommunicator(application, url(table), headers=headers(ann))
    try:
        assert (await communicator.connect(timeout=TIMEOUT))[0]
        frame = await communicator.receive_json_from(timeout=TIMEOUT)
        assert await connections(table.pk) == {"ann": 1, "bob": 0}
        await communicator.send_json_to(action_message(frame, draw_stock()))
        # The application's task ends with the error: wait on it (receive_output would sit out
        # its whole timeout on an empty queue before looking at the task).
        with pytest.raises(RuntimeError, match="went away"):
            await communicator.wait(timeout=TIMEOUT)
    finally:
        with suppress(RuntimeError):
            await communicator.disconnect(timeout=TIMEOUT)
    assert await connections(table.pk) == {"ann": 0, "bob": 0}


# --- a spectator who sits down ---------------------------------------------------------------


async def test_a_spectator_who_takes_a_seat_switches_to_their_own_view(
    ruleset: RuleSet, ann: Person, bob: Person
) -> None:
    waiting = await database_sync_to_async(services.table_create)(
        creator=ann.user, ruleset=ruleset, seats=3
    )
    async with opened(url(waiting, bob.token)) as b:
        before = await b.next()
        assert before["players"] == ["ann"] and before["view"] is None
        await database_sync_to_async(services.table_join)(table_id=waiting.pk, user=bob.user)
        joined = await b.next()
        assert joined["players"] == ["ann", "bob"]
        assert await connections(waiting.pk) == {"ann": 0, "bob": 1}

        await database_sync_to_async(services.table_start)(table_id=waiting.pk, user=ann.user)
        started = await b.next()
        assert started["status"] == "playing"
        assert started["view"]["you"] == "bob"
        assert isinstance(player(started["view"], "bob")["hand"], list)
        assert player(started["view"], "bob")["connected"] is True
        assert await b.quiet()
    assert await connections(waiting.pk) == {"ann": 0, "bob": 0}


async def test_a_player_who_leaves_before_the_start_goes_back_to_watching(
    ruleset: RuleSet, ann: Person, bob: Person
) -> None:
    waiting = await database_sync_to_async(services.table_create)(
        creator=ann.user, ruleset=ruleset, seats=3
    )
    await database_sync_to_async(services.table_join)(table_id=waiting.pk, user=bob.user)
    async with opened(url(waiting, bob.token)) as b, opened(url(waiting), headers(ann)) as a:
        assert (await b.next())["players"] == ["ann", "bob"]
        await a.next()
        assert await connections(waiting.pk) == {"ann": 1, "bob": 1}
        await database_sync_to_async(services.table_leave)(table_id=waiting.pk, user=bob.user)
        left = await b.next()
        assert left["players"] == ["ann"]
        assert (await a.next())["players"] == ["ann"]
        # Bob now watches: the public group's pushes reach him, and nothing counts him seated.
        await database_sync_to_async(services.table_join)(table_id=waiting.pk, user=bob.user)
        back = await b.next()
        assert back["players"] == ["ann", "bob"]
        assert await connections(waiting.pk) == {"ann": 1, "bob": 1}
    assert await connections(waiting.pk) == {"ann": 0, "bob": 0}


# --- the move log in the frames (docs/tables.md, "Moves") --------------------------------------

SYMBOL = {"S": "\u2660", "H": "\u2665", "D": "\u2666", "C": "\u2663"}


def words(card: str) -> str:
    """A drawn card as the log names it: ``7♣``, or ``a joker`` (the deal is random)."""
    return "a joker" if card == "*" else card[:-1] + SYMBOL[card[-1]]


async def test_an_opponents_move_reaches_the_other_player_and_a_spectator_in_words(
    table: Table, ann: Person, bob: Person
) -> None:
    async with AsyncExitStack() as stack:
        a = await stack.enter_async_context(opened(url(table), headers(ann)))
        first = await a.next()
        assert first["moves_since"] == 0
        assert [m["text"] for m in first["moves"]] == ["hand 1 dealt to you and bob"]
        b = await stack.enter_async_context(opened(url(table, bob.token)))
        assert (await b.next())["moves"][0]["text"] == "hand 1 dealt to ann and you"
        # Bob's socket counted: a push that adds no move, and says so.
        counted = await a.next()
        assert (counted["moves"], counted["moves_since"]) == ([], first["version"])
        spectator = await stack.enter_async_context(opened(url(table)))
        assert (await spectator.next())["moves"][0]["text"] == "hand 1 dealt to ann and bob"

        await a.send(action_message(counted, draw_stock()))
        drew = [await s.next() for s in (a, b, spectator)]
        card = drew[0]["view"]["drawn"]
        assert all(f["moves_since"] == first["version"] for f in drew)
        mine, bobs, public = (f["moves"] for f in drew)
        assert [(m["kind"], m["cards"], m["text"]) for m in mine] == [
            ("draw", [card], f"you drew {words(card)}")
        ]
        for seen in (bobs, public):  # the card drawn from the stock is Ann's alone
            assert [(m["kind"], m["cards"], m["text"]) for m in seen] == [
                ("draw", [], "ann drew from the stock")
            ]
            assert card not in json.dumps(seen)

        discard = next(x for x in drew[0]["view"]["legal"] if x["type"] == "discard")
        await a.send(action_message(drew[0], discard))
        threw = [await s.next() for s in (a, b, spectator)]
        assert {f["moves_since"] for f in threw} == {drew[0]["version"]}
        told = words(discard["card"])
        assert [m["text"] for m in threw[0]["moves"]] == [f"you discarded {told}"]
        assert [m["text"] for m in threw[1]["moves"]] == [f"ann discarded {told}"]
        assert [m["text"] for m in threw[2]["moves"]] == [f"ann discarded {told}"]
        assert threw[2]["moves"][0]["version"] == threw[2]["version"]
        assert all([await s.quiet() for s in (a, b, spectator)])

        # A reconnect, and a sync, get the whole list again.
        async with opened(url(table, bob.token)) as again:
            whole = await again.next()
        assert whole["moves_since"] == 0
        assert [m["text"] for m in whole["moves"]] == [
            "hand 1 dealt to ann and you",
            "ann drew from the stock",
            f"ann discarded {told}",
        ]
        synced = await a.ask({"type": "sync"})
        assert synced["moves_since"] == 0
        assert [m["text"] for m in synced["moves"]][1:] == [
            f"you drew {words(card)}",
            f"you discarded {told}",
        ]


# --- coming back after a timeout -----------------------------------------------------------


@database_sync_to_async
def absent_table(ruleset: RuleSet, ann: Person, bob: Person) -> tuple[Table, str]:
    """Ann and Bob's table after the first mover ran out of time once (``max_timeouts`` 1: once
    is absent), and that mover's name."""
    table = services.table_create(
        creator=ann.user, ruleset=ruleset, seats=2, overrides={"max_timeouts": 1}
    )
    services.table_join(table_id=table.pk, user=bob.user)
    table.refresh_from_db()
    state = table.state
    assert state is not None
    mover = state["turn"]
    Table.objects.filter(pk=table.pk).update(deadline=timezone.now() - timedelta(seconds=1))
    assert table_enforce_deadline(table.pk)
    return table, mover


async def test_back_brings_an_absent_player_back(
    ruleset: RuleSet, ann: Person, bob: Person
) -> None:
    table, mover = await absent_table(ruleset, ann, bob)
    who = ann if mover == "ann" else bob
    async with opened(url(table, who.token)) as socket:
        frame = await socket.next()
        assert player(frame["view"], mover)["absent"] is True
        await socket.send({"type": "back"})
        back = await socket.next()
        assert back["type"] == "state" and back["version"] == frame["version"] + 1
        assert player(back["view"], mover)["absent"] is False
        assert player(back["view"], mover)["timeouts"] == 0
        # Back already: nothing changes and nothing is sent.
        await socket.send({"type": "back"})
        assert await socket.quiet()
    kinds = await database_sync_to_async(
        lambda: list(TableEvent.objects.filter(table=table).values_list("kind", flat=True))
    )()
    assert kinds.count("back") == 1


async def test_back_from_someone_without_a_seat_is_refused_to_them(
    table: Table, cid: Person
) -> None:
    async with opened(url(table), headers(cid)) as watcher, opened(url(table)) as anonymous:
        frame = await watcher.next()
        await anonymous.next()
        error = await watcher.ask({"type": "back", "client_id": "c-6"})
        assert (error["type"], error["error"], error["client_id"]) == ("error", "not_seated", "c-6")
        error = await anonymous.ask({"type": "back"})
        assert (error["type"], error["error"]) == ("error", "not_seated")
        assert await anonymous.quiet() and await watcher.quiet()
    assert (await fresh(table.pk)).version == frame["version"]


# --- a whole hand over sockets, and what each person saw ----------------------------------------


def choose(legal: list[dict[str, Any]]) -> dict[str, Any]:
    """Draw from the stock, meld or lay off what can be, else discard: a hand that ends."""
    for kind in ("meld", "layoff", "discard"):
        for action in legal:
            if action["type"] == kind:
                return action
    return next((a for a in legal if a.get("source") == "stock"), legal[0])


def cards_in(value: Any) -> set[str]:
    """Every string in ``value`` (at any depth) that is a card, jokers' stand-ins included."""
    if isinstance(value, str):
        return {value} if CARD.match(value) else set()
    if isinstance(value, dict):
        return set().union(*map(cards_in, value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*map(cards_in, value)) if value else set()
    return set()


def public_cards(full: dict[str, Any]) -> set[str]:
    """What everyone has seen of the full state: the pile, the melds, what was taken from it."""
    seen = set(full["discard"]) | set(full["taken"]) | cards_in(full["melds"])
    if full["required"]:
        seen.add(full["required"])
    return seen


@dataclass(frozen=True)
class Snapshot:
    version: int
    full: dict[str, Any]
    deals: list[dict[str, Any]]
    last_hand: dict[str, Any] | None


@database_sync_to_async
def snapshot(table_id: int) -> Snapshot:
    table = Table.objects.get(pk=table_id)
    return Snapshot(table.version, table.state, table.deals, table.last_hand)


def check_frame(frame: dict[str, Any], who: str | None, snap: Snapshot) -> None:
    """``frame``, received by ``who`` (None: a spectator), shows them nothing hidden."""
    assert frame["type"] == "state" and frame["version"] == snap.version
    full, view = snap.full, frame["view"]
    assert "seed" not in view
    assert isinstance(view["stock"], int) and view["stock"] == len(full["stock"])
    for seen, truth in zip(view["players"], full["players"], strict=True):
        if seen["name"] == who:
            assert seen["hand"] == truth["hand"]
        else:
            assert seen["hand"] == len(truth["hand"])
    over = full["phase"] in ("hand_over", "game_over")
    for deal, secret in zip(view["deals"], snap.deals, strict=True):
        assert deal["commitment"] == secret["commitment"]
        playing = deal["hand"] == full["hand_number"] and not over
        assert deal["seed"] == (None if playing else secret["seed"])
    # The finished hand's summary shows its cards left in hand, public once it is over (they
    # are scored in the open); it is the table's, of a hand that has ended, and nothing else
    # of the frame may show a hidden card.
    finished = frame["last_hand"]
    assert finished == snap.last_hand
    assert finished is None or finished["number"] < full["hand_number"] or over
    own = set(next(p["hand"] for p in full["players"] if p["name"] == who)) if who else set()
    # The moves tell the past: each is checked at its own version (check_moves); the summary
    # was checked above.
    state = {k: v for k, v in frame.items() if k not in ("moves", "last_hand")}
    leaked = cards_in(state) - public_cards(full) - own
    assert not leaked, f"{who or 'the spectator'} saw {sorted(leaked)} at v{snap.version}"
    if who is None:
        assert "you" not in view and "legal" not in view and "drawn" not in view
        return
    assert view["you"] == who
    mine = [a.to_dict() for a in legal_actions(state_from_dict(full), who)]
    assert view["legal"] == mine  # exactly the viewer's own actions, nobody else's
    assert bool(mine) == (full["turn"] == who)  # no rummy calls here: only the mover has any
    if full["turn"] != who:
        assert "drawn" not in view


def check_moves(frame: dict[str, Any], who: str | None, snaps: dict[int, Snapshot]) -> None:
    """Each move of ``frame`` shows ``who`` only what was public at its version, or their own:
    a stock draw's card to its drawer alone."""
    for move in frame["moves"]:
        snap = snaps.get(move["version"])
        if snap is None:
            # Only the row that ended a hand has no snapshot of its own (the next hand was
            # dealt in the same change), and then nothing of that hand is secret.
            assert move["kind"] in ("discard", "hand_over", "layoff", "meld"), move
            continue
        full = snap.full
        own = {c for p in full["players"] if p["name"] == who for c in p["hand"]}
        leaked = cards_in(move) - public_cards(full) - own
        assert not leaked, f"{who or 'the spectator'} saw {sorted(leaked)} in {move}"
        if move["kind"] == "draw":
            assert bool(move["cards"]) == (move["player"] == who), move


async def test_a_whole_hand_over_sockets_shows_nobody_a_hidden_card(
    table: Table, ann: Person, bob: Person
) -> None:
    snaps = {table.version: await snapshot(table.pk)}
    async with AsyncExitStack() as stack:
        a = await stack.enter_async_context(opened(url(table), headers(ann)))
        await a.next()
        b = await stack.enter_async_context(opened(url(table, bob.token)))
        await b.next()
        await a.next()  # Bob connected
        spectator = await stack.enter_async_context(opened(url(table)))
        await spectator.next()
        sockets = {"ann": a, "bob": b}
        everyone = [a, b, spectator]

        for _ in range(MAX_STEPS):
            mover = sockets[a.frames[-1]["view"]["turn"]]
            last = mover.frames[-1]
            await mover.send(action_message(last, choose(last["view"]["legal"])))
            frames = [await s.next() for s in everyone]  # one push each, the sender's included
            snap = await snapshot(table.pk)
            snaps[snap.version] = snap
            assert {f["version"] for f in frames} == {snap.version}
            # One version per change; two when it ended the hand and the next one was dealt.
            assert snap.version - last["version"] in (1, 2)
            if len(frames[0]["view"]["hands"]) == 1:
                break
        else:
            pytest.fail(f"the hand did not end in {MAX_STEPS} actions")
        assert all([await s.quiet() for s in everyone])

    for who, socket in (("ann", a), ("bob", b), (None, spectator)):
        assert len(socket.frames) > 10
        for frame in socket.frames:
            check_frame(frame, who, snaps[frame["version"]])
            check_moves(frame, who, snaps)

    end = snaps[max(snaps)]
    assert end.full["hand_number"] == 2 and len(end.full["hands"]) == 1
    # Everyone, the spectator too, gets the finished hand's summary with the new deal: the
    # engine's scores, and the cards each player was left holding.
    summary = spectator.frames[-1]["last_hand"]
    assert summary is not None and a.frames[-1]["last_hand"] == summary
    hand = end.full["hands"][0]
    assert (summary["number"], summary["went_out"]) == (1, hand["went_out"])
    assert summary["scores"] == hand["scores"]
    assert summary["totals"] == {p["name"]: p["score"] for p in end.full["players"]}
    rules = Rules.from_dict(end.full["rules"])
    in_hand = {p: hand_value(rules, parse_cards(c)) for p, c in summary["left"].items()}
    assert in_hand == {p: s["in_hand"] for p, s in hand["scores"].items()}
    assert spectator.frames[0]["last_hand"] is None  # before any hand ended
    first, second = a.frames[-1]["view"]["deals"]
    assert (
        first["seed"] == end.deals[0]["seed"] and commitment(first["seed"]) == first["commitment"]
    )
    assert second["seed"] is None
    assert await connections(table.pk) == {"ann": 0, "bob": 0}


# --- the configured layer (channels-redis in CI) ------------------------------------------------


@pytest.mark.usefixtures("configured_layer")
async def test_on_the_configured_channel_layer(table: Table, ann: Person, bob: Person) -> None:
    backend = django_settings.CHANNEL_LAYERS["default"]["BACKEND"]
    layer = get_channel_layer()
    assert f"{type(layer).__module__}.{type(layer).__name__}" == backend
    async with opened(url(table), headers(ann)) as a, opened(url(table, bob.token)) as b:
        frame = await a.next()
        await b.next()
        assert player((await a.next())["view"], "bob")["connected"] is True
        await a.send(action_message(frame, draw_stock()))
        mine, theirs = await a.next(), await b.next()
        assert mine["version"] == theirs["version"] == frame["version"] + 1
        assert isinstance(player(mine["view"], "ann")["hand"], list)
        assert player(theirs["view"], "ann")["hand"] == len(player(mine["view"], "ann")["hand"])


@database_sync_to_async
def time_out(table_id: int) -> None:
    """The mover's time runs out (as if the deadline had passed) and the server plays."""
    Table.objects.filter(pk=table_id).update(deadline=timezone.now() - timedelta(seconds=1))
    assert table_enforce_deadline(table_id)


@database_sync_to_async
def public_players(table_id: int) -> dict[str, dict[str, Any]]:
    table = Table.objects.select_related("ruleset", "creator").get(pk=table_id)
    view = table_payload(table, None)["view"]
    return {p["name"]: p for p in view["players"]}


async def test_a_disconnected_player_keeps_their_clock_and_gets_the_state_on_return(
    table: Table, ann: Person, bob: Person
) -> None:
    """No pause for a lost connection: the clock runs on, the others see the player as not
    connected, and reconnecting brings the state as it is now."""
    path = f"/ws/tables/{table.pk}/?token={ann.token}"
    async with opened(path) as socket:
        first = await socket.next()
    assert first["view"]["turn"] == "ann"
    await time_out(table.pk)
    seen = await public_players(table.pk)
    assert (seen["ann"]["connected"], seen["ann"]["timeouts"]) == (False, 1)
    now = await fresh(table.pk)
    async with opened(path) as socket:
        back = await socket.next()
    mine = next(p for p in back["view"]["players"] if p["name"] == "ann")
    assert back["version"] == now.version > first["version"]
    assert (mine["connected"], mine["timeouts"], back["view"]["turn"]) == (True, 1, "bob")
    assert back["deadline"] == now.deadline.isoformat().replace("+00:00", "Z")
