"""The hostile probes of the leak test (``test_leaks.py``): another player's card named, a stale
version, someone else's turn, a spectator's action, malformed frames, a repeated ``client_id``,
over the socket and REST. Each is answered by an error (or, for a repeat, the change it made
first), and the table does not change; every answer is recorded for the scan."""

from __future__ import annotations

import uuid
from typing import Any

from games.engine.cards import format_card
from games.engine.state import GameState
from tests.hostile.leak_world import Game, World, db, read_table
from tests.hostile.leaks import card_strings
from tests.hostile.recorder import Socket


def _hand(state: GameState, name: str) -> list[str]:
    seat = state.seat_of(name)
    assert seat is not None
    return sorted(c for c in map(format_card, state.players[seat].hand) if c != "*")


def socket_probes(game: Game, state: GameState, version: int) -> list[tuple[Socket, Any, set]]:
    """``(socket, (action, version), the error codes that may answer)`` for each socket probe:
    the mover names a card another player holds, sends a stale version or an impossible draw; a
    player out of turn draws or claims; the spectators act."""
    assert state.turn is not None
    mover = state.players[state.turn].name
    other = game.opponent(mover)
    theirs, mine = _hand(state, other), _hand(state, mover)
    secret, by, sock = theirs[0], game.seated[mover], game.seated[other]
    in_hand = {"not_in_hand", "wrong_phase", "invalid_meld"}
    too_deep = {"bad_request", "wrong_phase"}  # in the play phase, the phase is checked first
    no_claim = {"no_rummy", "bad_request"}  # an empty pile makes a count of 1 malformed
    claim = {"type": "rummy", "count": 1, "melds": [{"cards": theirs[:3]}]}
    return [
        (by, ({"type": "discard", "card": secret}, version), in_hand),
        (by, ({"type": "meld", "cards": [*mine[:2], secret]}, version), in_hand),
        (by, ({"type": "draw", "source": "stock"}, version - 1), {"stale_version"}),
        (by, ({"type": "draw", "source": "discard", "count": 99}, version), too_deep),
        (sock, ({"type": "draw", "source": "stock"}, version), {"not_your_turn"}),
        (sock, (claim, version), no_claim),
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
    other = game.opponent(mover)
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
