"""The ``actions`` of a waiting table's ``state`` frames: each connection gets its own user's
(join, leave, start, by the services' checks), although spectators share one group's frames, and
they change as seats fill; a game's frames carry none and cost no read.

The sockets and people come from ``test_consumers`` (the in-memory layer, as there).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from channels.db import database_sync_to_async

from accounts.models import Club, ClubMembership
from games import consumers, services
from games.models import RuleSet, Table
from tests.games.test_consumers import (  # noqa: F401  (the autouse fixtures: their layer)
    Person,
    Socket,
    _close_worker_connections,
    _layer,
    draw_stock,
    headers,
    opened,
    person,
    url,
)

pytestmark = pytest.mark.django_db(transaction=True)

NOTHING = {"join": False, "leave": False, "start": False}


@pytest.fixture
def ruleset() -> RuleSet:
    rule_set, _ = RuleSet.objects.get_or_create(slug="ws", defaults={"name": "Sockets"})
    return rule_set


@database_sync_to_async
def club_table(ruleset: RuleSet, creator: Person, *members: Person) -> Table:
    """A three-seat table of the club Hearts, opened by ``creator``; ``members`` are the club's."""
    club = Club.objects.create(name="Hearts", slug="hearts")
    for who in (creator, *members):
        ClubMembership.objects.create(club=club, user=who.user)
    return services.table_create(creator=creator.user, ruleset=ruleset, seats=3, club=club)


@database_sync_to_async
def people(*names: str) -> list[Person]:
    return [person(name) for name in names]


async def until(socket: Socket, wanted: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
    """The first frame from now on that is ``wanted`` (pushes of a ``connected`` flag may come
    between); each is awaited with the suite's timeout."""
    for _ in range(10):
        frame = await socket.next()
        if wanted(frame):
            return frame
    raise AssertionError(f"no wanted frame among {socket.frames[-10:]}")


def seated(*names: str) -> Callable[[dict[str, Any]], bool]:
    return lambda frame: frame["players"] == list(names)


async def test_each_spectator_gets_their_own_actions_and_they_change_as_seats_fill(
    ruleset: RuleSet,
) -> None:
    ann, bob, cid, eve = await people("ann", "bob", "cid", "eve")
    table = await club_table(ruleset, ann, bob, cid)
    join = database_sync_to_async(services.table_join)
    async with (
        opened(url(table), headers(ann)) as a,
        opened(url(table, cid.token)) as c,
        opened(url(table, eve.token)) as e,
        opened(url(table)) as anonymous,
    ):
        assert (await a.next())["actions"] == {"join": False, "leave": True, "start": False}
        # Three spectators of one public group, three answers: a member, an outsider, nobody.
        assert (await c.next())["actions"] == {"join": True, "leave": False, "start": False}
        assert (await e.next())["actions"] == NOTHING
        assert (await anonymous.next())["actions"] == NOTHING

        await join(table_id=table.pk, user=bob.user)
        assert (await until(a, seated("ann", "bob")))["actions"]["start"] is True
        assert (await until(c, seated("ann", "bob")))["actions"]["join"] is True
        assert (await until(e, seated("ann", "bob")))["actions"] == NOTHING
        assert (await until(anonymous, seated("ann", "bob")))["actions"] == NOTHING

        # The last seat: the game starts, and its frames carry no actions.
        await join(table_id=table.pk, user=cid.user)
        for socket in (a, c, e, anonymous):
            started = await until(socket, seated("ann", "bob", "cid"))
            assert started["status"] == "playing" and "actions" not in started
        assert c.frames[-1]["view"]["you"] == "cid"


async def test_one_who_leaves_is_offered_the_seat_again(ruleset: RuleSet) -> None:
    ann, bob = await people("ann", "bob")
    table = await database_sync_to_async(services.table_create)(
        creator=ann.user, ruleset=ruleset, seats=3
    )
    await database_sync_to_async(services.table_join)(table_id=table.pk, user=bob.user)
    async with opened(url(table, bob.token)) as b:
        assert (await b.next())["actions"] == {"join": False, "leave": True, "start": False}
        await database_sync_to_async(services.table_leave)(table_id=table.pk, user=bob.user)
        assert (await until(b, seated("ann")))["actions"] == {
            "join": True,
            "leave": False,
            "start": False,
        }
        # The creator leaves: Bob watches the table abort, with nothing left to do there.
        await database_sync_to_async(services.table_leave)(table_id=table.pk, user=ann.user)
        aborted = await until(b, seated())
        assert aborted["status"] == "aborted" and "actions" not in aborted


async def test_a_games_frames_are_sent_without_reading_actions(
    ruleset: RuleSet, monkeypatch: pytest.MonkeyPatch
) -> None:
    ann, bob, cid = await people("ann", "bob", "cid")
    table = await database_sync_to_async(services.table_create)(
        creator=ann.user, ruleset=ruleset, seats=2
    )
    await database_sync_to_async(services.table_join)(table_id=table.pk, user=bob.user)
    asked: list[int] = []
    real = consumers._actions

    def counted(table_id: int, user: Any) -> Any:
        asked.append(table_id)
        return real(table_id, user)

    monkeypatch.setattr(consumers, "_actions", counted)
    async with opened(url(table, cid.token)) as c, opened(url(table), headers(ann)) as a:
        first = await a.next()
        assert "actions" not in first and "actions" not in await c.next()
        mover = ann if first["view"]["turn"] == "ann" else bob
        await database_sync_to_async(services.table_apply_action)(
            table_id=table.pk, user=mover.user, action=draw_stock(), version=first["version"]
        )
        moved = await until(c, lambda frame: frame["version"] > first["version"])
        assert moved["status"] == "playing" and "actions" not in moved
        assert "actions" not in await until(a, lambda frame: frame["version"] > first["version"])
    assert asked == []
