"""A hostile client on the table socket, through the whole ASGI application (origin check, token
and session auth, routing) against a started four-seat table.

Garbage from hypothesis (tests/hostile/ws_garbage.py), huge frames, floods, actions meant for
another table, out of turn, from a seat nobody holds, at stale versions and with replayed
``client_id``s: each must get the protocol's answer, leave the socket as the protocol says, and
change nothing it should not. After every case the database is read again: the table's version,
log length and snapshot are compared with before, and its snapshot with its log replayed
(``games.selectors.table_mismatch``).

The rate limit runs at the production numbers here (the test settings raise it for the suite's
flat-out bots); its clock is a fake the tests move by hand, so nothing waits or races a timer.
"""

from __future__ import annotations

import json
from contextlib import AsyncExitStack
from dataclasses import dataclass
from typing import Any

import pytest
from channels.db import database_sync_to_async
from hypothesis import HealthCheck, given
from hypothesis import settings as fuzzing
from hypothesis import strategies as st

from config.settings import base as deployed
from config.ws_limit import (
    CLOSE_POLICY,
    CLOSE_TOO_BIG,
    FLOOD_FACTOR,
    MAX_FRAME_BYTES,
    RATE_LIMITED,
    RateLimitedConsumer,
)
from games import services
from games.models import RuleSet, Table, TableEvent
from games.selectors import table_mismatch
from tests.games import test_consumers as sockets
from tests.games.test_consumers import (
    TIMEOUT,
    Person,
    Socket,
    action_message,
    choose,
    connections,
    draw_stock,
    headers,
    opened,
    person,
    url,
)
from tests.hostile.ws_garbage import Frame, frames, owed

pytestmark = pytest.mark.django_db(transaction=True)

# The socket tests' fixtures, found by pytest among this module's names: the players and rule
# set, and the two autouse ones (the in-memory channel layer, the consumers' connections closed).
ann, bob, cid, ruleset = sockets.ann, sockets.bob, sockets.cid, sockets.ruleset
_layer, _close_worker_connections = sockets._layer, sockets._close_worker_connections

# A deployment's numbers (config/settings/test.py raises the rate for the suite's bots).
BURST, PER_SECOND = deployed.WS_RATE_BURST, deployed.WS_RATE_PER_SECOND
# Each player's share of these (a quarter) is more than a burst: only the refill lets them pass.
HUMAN_ACTIONS = 4 * (BURST + 5)


class FakeClock:
    """A monotonic clock that moves only when the test says so."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture(autouse=True)
def clock(settings: Any, monkeypatch: pytest.MonkeyPatch) -> FakeClock:
    settings.WS_RATE_BURST, settings.WS_RATE_PER_SECOND = BURST, PER_SECOND
    fake = FakeClock()
    monkeypatch.setattr(RateLimitedConsumer, "clock", fake)
    return fake


@pytest.fixture
def dan() -> Person:
    return person("dan")


@pytest.fixture
def eve() -> Person:
    """Logged in, seated nowhere on the four-seat table: a spectator."""
    return person("eve")


@pytest.fixture
def four(ruleset: RuleSet, ann: Person, bob: Person, cid: Person, dan: Person) -> Table:
    """Ann, Bob, Cid and Dan at a four-seat table, started by the fourth join."""
    table = services.table_create(creator=ann.user, ruleset=ruleset, seats=4)
    for who in (bob, cid, dan):
        services.table_join(table_id=table.pk, user=who.user)
    table.refresh_from_db()
    assert table.status == Table.Status.PLAYING
    return table


@pytest.fixture
def players(four: Table, ann: Person, bob: Person, cid: Person, dan: Person) -> list[Person]:
    """The four, the player to move first."""
    seated = [ann, bob, cid, dan]
    turn = four.state["turn"]
    return sorted(seated, key=lambda p: p.name != turn)


@dataclass(frozen=True)
class Record:
    version: int
    log: int
    state: Any


@database_sync_to_async
def record(table_id: int) -> Record:
    """The table as the database has it, after checking its snapshot against its log."""
    table = Table.objects.get(pk=table_id)
    assert table_mismatch(table) is None
    return Record(table.version, TableEvent.objects.filter(table=table).count(), table.state)


async def send_raw(socket: Socket, frame: Frame) -> None:
    """Any frame, the empty ones too (the communicator's ``send_to`` refuses those)."""
    kind = "text" if frame.text is not None else "bytes"
    value = frame.text if frame.text is not None else frame.data
    await socket.communicator.send_input({"type": "websocket.receive", kind: value})


async def closed_with(socket: Socket) -> int:
    output = await socket.communicator.receive_output(timeout=TIMEOUT)
    assert output["type"] == "websocket.close", output
    return int(output["code"])


# --- garbage -------------------------------------------------------------------------------------

SENDERS = ["mover", "waiting", "spectator", "anonymous"]


@fuzzing(
    max_examples=80,
    derandomize=True,
    deadline=None,
    database=None,
    # One table for every example is the point: garbage must never change it.
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data(), sender=st.sampled_from(SENDERS))
async def test_garbage_is_refused_and_changes_nothing(
    four: Table, players: list[Person], eve: Person, data: st.DataObject, sender: str
) -> None:
    before = await record(four.pk)
    who = {"mover": players[0], "waiting": players[1], "spectator": eve}.get(sender)
    user, seated = (who.name if who else None), sender in ("mover", "waiting")

    def answer(frame: Frame) -> tuple[str, Any] | None:
        return owed(frame, user=user, seated=seated, version=before.version)

    batch = data.draw(st.lists(frames(before.version).filter(answer), min_size=1, max_size=6))
    # The spectator by session cookie from a page of the site, the players by token: both ways in.
    path = url(four, who.token if who and seated else None)
    # A page of the site itself: its origin is the site's (SITE_URL), as a browser sends it.
    page = headers(who, origin=b"https://rummy.example") if sender == "spectator" else None
    async with opened(path, page) as socket:
        assert (await socket.next())["version"] == before.version
        for frame in batch:
            await send_raw(socket, frame)
            error = await socket.next()
            code, client_id = answer(frame) or ("", None)
            # As JSON carries it: two lone surrogates sent raw come back as one escaped pair.
            echo = json.loads(json.dumps(client_id))
            assert (error["type"], error["error"], error["client_id"]) == ("error", code, echo)
            assert isinstance(error["message"], str) and error["message"]
            if code == "stale_version":
                assert error["version"] == before.version
        # Still open, still at the same version.
        assert (await socket.ask({"type": "sync"}))["version"] == before.version
    assert await record(four.pk) == before


# --- huge frames ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "frame",
    [
        Frame(text=json.dumps({"type": "sync", "pad": "x" * MAX_FRAME_BYTES})),
        # Under the limit in characters, over it in UTF-8 bytes.
        Frame(
            text=json.dumps(
                {"type": "sync", "pad": "é" * (MAX_FRAME_BYTES // 2)}, ensure_ascii=False
            )
        ),
        Frame(data=b"\x00" * (MAX_FRAME_BYTES + 1)),
    ],
    ids=["ascii", "multibyte", "binary"],
)
async def test_a_huge_frame_is_refused_then_closed_and_the_rest_unread(
    four: Table, players: list[Person], frame: Frame
) -> None:
    before = await record(four.pk)
    mover = players[0]
    async with opened(url(four, mover.token)) as socket:
        first = await socket.next()
        await send_raw(socket, frame)
        error = await socket.next()
        assert (error["error"], error["client_id"]) == ("bad_request", None)
        assert await closed_with(socket) == CLOSE_TOO_BIG
        # Whatever the client still sends is dropped unread: this move is never made.
        await socket.send(action_message(first, draw_stock()))
        assert await socket.quiet()
    assert await record(four.pk) == before
    assert set((await connections(four.pk)).values()) == {0}


# --- floods --------------------------------------------------------------------------------------


def discard_of(frame: dict[str, Any]) -> dict[str, Any]:
    return next(a for a in frame["view"]["legal"] if a["type"] == "discard")


async def test_a_flood_is_refused_unprocessed_then_closed(
    four: Table, players: list[Person], clock: FakeClock
) -> None:
    before = await record(four.pk)
    async with opened(url(four, players[0].token)) as socket:
        first = await socket.next()
        for _ in range(BURST):  # a burst at once is taken
            assert (await socket.ask({"type": "sync"}))["type"] == "state"
        draw = action_message(first, draw_stock())  # the mover's own legal move
        error = await socket.ask(draw)
        assert error == {
            "type": "error",
            "client_id": draw["client_id"],
            "error": RATE_LIMITED,
            "message": error["message"],
            "retry_after": 1 / PER_SECOND,
        }
        assert await record(four.pk) == before  # refused, so not played
        clock.now += error["retry_after"]
        drew = await socket.ask(draw)  # the same message once a token is back: played
        assert drew["version"] == before.version + 1
        # Now a flood of legal discards: not one is played, and the socket is closed.
        for _ in range(FLOOD_FACTOR * BURST):
            flood = action_message(drew, discard_of(drew))
            refused = await socket.ask(flood)
            assert (refused["error"], refused["client_id"]) == (RATE_LIMITED, flood["client_id"])
        assert await closed_with(socket) == CLOSE_POLICY
        await socket.send({"type": "sync"})
        assert await socket.quiet()  # dropped unread
    after = await record(four.pk)
    assert (after.version, after.log) == (before.version + 1, before.log + 1)
    assert set((await connections(four.pk)).values()) == {0}


async def test_players_at_human_pace_are_never_limited(
    four: Table, players: list[Person], clock: FakeClock
) -> None:
    """The four at a table, each asking for the state a few times first (a page reloaded), then
    an action every half second: each sends more than a burst holds, and not one is refused."""
    async with AsyncExitStack() as stack:
        sockets = {}
        for who in players:
            socket = await stack.enter_async_context(opened(url(four, who.token)))
            for earlier in sockets.values():
                await earlier.next()  # told of the arrival
            sockets[who.name] = socket
            await socket.next()
        for socket in sockets.values():
            for _ in range(5):
                assert (await socket.ask({"type": "sync"}))["type"] == "state"
        for _ in range(HUMAN_ACTIONS):
            clock.now += 0.5
            mover = sockets[next(iter(sockets.values())).frames[-1]["view"]["turn"]]
            last = mover.frames[-1]
            await mover.send(action_message(last, choose(last["view"]["legal"])))
            frames = [await s.next() for s in sockets.values()]
            assert [f["type"] for f in frames] == ["state"] * len(sockets), frames
    assert (await record(four.pk)).version >= four.version + HUMAN_ACTIONS


# --- requests the protocol refuses ---------------------------------------------------------------


async def refused_with(
    table: Table, who: Person | None, message: dict[str, Any], code: str
) -> dict[str, Any]:
    """``message`` sent on ``table``'s socket by ``who`` (None: anonymous) is refused with
    ``code``, to them alone, and changes nothing."""
    before = await record(table.pk)
    async with opened(url(table, who.token if who else None)) as socket:
        await socket.next()
        error = await socket.ask(message)
        assert (error["type"], error["error"]) == ("error", code), error
        assert error["client_id"] == message.get("client_id")
        # Nothing else followed (no push of a change): the answer to a sync comes next.
        assert (await socket.ask({"type": "sync"}))["version"] == before.version
    assert await record(table.pk) == before
    return error


@pytest.fixture
def other(ruleset: RuleSet, players: list[Person], eve: Person) -> Table:
    """A second table, started: the four-seat table's second player and Eve, the former to
    move, so a move there is legal for someone seated here too."""
    table = services.table_create(creator=players[1].user, ruleset=ruleset, seats=2)
    services.table_join(table_id=table.pk, user=eve.user)
    table.refresh_from_db()
    assert table.state["turn"] == players[1].name
    return table


async def test_the_socket_url_decides_the_table_not_the_message(
    four: Table, other: Table, players: list[Person], eve: Person
) -> None:
    there = await record(other.pk)
    move = {"type": "action", "action": draw_stock(), "version": there.version, "table": other.pk}
    # Legal on the other table for both, refused on this one: not their turn, not their seat.
    await refused_with(four, players[1], {**move, "client_id": "b-1"}, "not_your_turn")
    await refused_with(four, eve, {**move, "client_id": "e-1"}, "not_seated")
    # The mover's move is played where the socket is.
    async with opened(url(four, players[0].token)) as socket:
        first = await socket.next()
        played = await socket.ask({**move, "version": first["version"], "client_id": "a-1"})
    assert played["version"] == first["version"] + 1 == (await record(four.pk)).version
    assert await record(other.pk) == there


@pytest.mark.parametrize("turn", [1, 2, 3])
async def test_out_of_turn(four: Table, players: list[Person], turn: int) -> None:
    message = {"type": "action", "action": draw_stock(), "version": four.version, "client_id": "x"}
    await refused_with(four, players[turn], message, "not_your_turn")


@pytest.mark.parametrize("who", ["spectator", "anonymous"])
async def test_from_no_seat(four: Table, eve: Person, who: str) -> None:
    message = {"type": "action", "action": draw_stock(), "version": four.version, "client_id": "x"}
    await refused_with(four, eve if who == "spectator" else None, message, "not_seated")
    await refused_with(four, eve if who == "spectator" else None, {"type": "back"}, "not_seated")


@pytest.mark.parametrize("offset", [-1, 1, 10**40])
async def test_a_stale_version(four: Table, players: list[Person], offset: int) -> None:
    version = four.version + offset
    message = {"type": "action", "action": draw_stock(), "version": version, "client_id": "x"}
    error = await refused_with(four, players[0], message, "stale_version")
    assert error["version"] == four.version


# --- replayed client_ids -------------------------------------------------------------------------


async def test_a_replayed_client_id_is_answered_again_and_never_played_twice(
    four: Table, players: list[Person]
) -> None:
    """Whatever else the repeat says (the same message, another move, a move the engine would
    refuse now, an old version), its client_id is the one the server keys on: it is answered
    with the state its first use left, to the sender alone, and no body is played again."""
    async with opened(url(four, players[0].token)) as socket:
        first = await socket.next()
        draw = action_message(first, draw_stock())
        drew = await socket.ask(draw)
        assert drew["version"] == first["version"] + 1
        after = await record(four.pk)
        repeats = [
            draw,
            {**draw, "version": drew["version"], "action": discard_of(drew)},  # legal now
            {**draw, "version": drew["version"]},  # a second draw: wrong_phase if played
            {**draw, "action": {"type": "discard", "card": "nonsense"}},
        ]
        for repeat in repeats:
            answer = await socket.ask(repeat)
            assert answer == {**drew, "client_id": draw["client_id"]}, repeat
            assert await record(four.pk) == after
        assert await socket.quiet()
