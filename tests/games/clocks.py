"""Helpers for turn-clock tests: a clock the test moves, a recorder of the Celery tasks sent, and
whole turns played through the services.

The services read the time through ``django.utils.timezone.now``; ``freeze`` replaces it, so
every deadline, bank and log time of a test is exact arithmetic on ``T0``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from accounts.models import User
from games.engine.legal import legal_actions
from games.engine.state import Phase
from games.models import Table
from tests.games.tables import act, state_of, to_move

T0 = datetime(2030, 1, 1, 12, 0, tzinfo=UTC)
DRAW = {"type": "draw", "source": "stock"}


class FakeTime:
    """``timezone.now`` for the services: stands still until the test moves it."""

    def __init__(self, start: datetime) -> None:
        self.now = start

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> datetime:
        self.now += timedelta(**delta)
        return self.now

    def at(self, moment: datetime) -> datetime:
        self.now = moment
        return moment


def freeze(monkeypatch: pytest.MonkeyPatch, start: datetime = T0) -> FakeTime:
    fake = FakeTime(start)
    monkeypatch.setattr("django.utils.timezone.now", fake)
    return fake


@dataclass(frozen=True)
class Sent:
    name: str
    args: tuple[Any, ...]
    eta: datetime | None


@dataclass
class Sends:
    """Every task ``games.timers.send`` was asked to send, in order."""

    all: list[Sent] = field(default_factory=list)

    def __call__(self, name: str, args: tuple[Any, ...], *, eta: datetime | None = None) -> None:
        self.all.append(Sent(name, tuple(args), eta))

    def named(self, name: str) -> list[Sent]:
        return [s for s in self.all if s.name == name]

    def clear(self) -> None:
        self.all.clear()


def record_sends(monkeypatch: pytest.MonkeyPatch) -> Sends:
    """Record the tasks sent instead of publishing them, and skip the socket pushes (these
    tests read the frames with ``state_frame``; the channel layer is not what they test)."""
    sends = Sends()
    monkeypatch.setattr("games.timers.send", sends)
    monkeypatch.setattr("games.push.push_table", lambda table, seats=None, since=None: None)
    return sends


def discard_any(table: Table, user: User) -> None:
    """``user`` discards the first card the engine lets them."""
    options = legal_actions(state_of(table), user.username)
    pick = next(a for a in options if a.to_dict()["type"] == "discard")
    act(table, user, pick.to_dict())


def play_turn(table: Table, users: list[User]) -> User:
    """The player to move draws from the stock and discards (unless drawing from the empty
    stock ended the hand); returns who moved."""
    user = to_move(table, users)
    act(table, user, DRAW)
    if state_of(table).phase == Phase.PLAY:
        discard_any(table, user)
    table.refresh_from_db()
    return user


def fresh(table: Table) -> Table:
    table.refresh_from_db()
    return table
