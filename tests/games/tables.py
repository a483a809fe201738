"""Helpers for table tests: users, a started table with a chosen deal, and moves from the engine."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any
from unittest import mock

from accounts.models import User
from games import record, services
from games.engine.bots import GreedyBot
from games.engine.engine import apply
from games.engine.legal import legal_actions
from games.engine.play import next_move
from games.engine.rules import Rules
from games.engine.state import GameState, Phase, new_game
from games.models import Table
from games.selectors import table_state
from tests.accounts.factories import UserFactory


def players(*names: str) -> list[User]:
    return [UserFactory(username=name) for name in names]


@contextmanager
def seeds_from(first: str) -> Iterator[None]:
    """Deal hand 1 with seed ``first``; later hands get fresh random seeds as in production."""
    real = record.new_seed
    calls = iter([first])
    with mock.patch.object(record, "new_seed", lambda: next(calls, None) or real()):
        yield


def find_seed(rules: Rules, names: list[str], wanted: Callable[[GameState], bool]) -> str:
    """The first seed ``s0, s1, ...`` whose first deal satisfies ``wanted``."""
    for i in range(5000):
        seed = f"s{i}"
        if wanted(new_game(rules, names, seed=seed)):
            return seed
    raise AssertionError("no seed among the first 5000 deals satisfies the condition")


def started_table(
    users: list[User],
    *,
    ruleset: str = "standard",
    overrides: dict[str, Any] | None = None,
    wanted: Callable[[GameState], bool] | None = None,
    seed: str | None = None,
    between_hands_seconds: int | None = None,
) -> Table:
    """A table of ``users`` (the first creates it), full and so started, with a deal that
    satisfies ``wanted`` when given, or dealt from ``seed``; ``between_hands_seconds`` as
    ``POST /api/tables/`` takes it (the rule set's when None)."""
    table = services.table_create(
        creator=users[0],
        ruleset=ruleset,
        seats=len(users),
        overrides=overrides,
        between_hands_seconds=between_hands_seconds,
    )
    names = [u.username for u in users]
    if seed is None:
        seed = find_seed(table.engine_rules(), names, wanted) if wanted else record.new_seed()
    with seeds_from(seed):
        for user in users[1:]:
            services.table_join(table_id=table.pk, user=user)
    table.refresh_from_db()
    return table


def state_of(table: Table) -> GameState:
    table.refresh_from_db()
    state = table_state(table)
    assert state is not None
    return state


def to_move(table: Table, users: list[User]) -> User:
    state = state_of(table)
    assert state.turn is not None
    name = state.names[state.turn]
    return next(u for u in users if u.username == name)


def act(table: Table, user: User, action: dict[str, Any], **kw: Any) -> services.ActionResult:
    table.refresh_from_db()
    return services.table_apply_action(
        table_id=table.pk, user=user, action=action, version=table.version, **kw
    )


def play_simple(table: Table, users: list[User], until: Callable[[Table], bool]) -> int:
    """Play the first legal stock draw / discard (else any legal action) until ``until``.

    Nobody melds, so a hand ends only when the stock runs out: quick, and a known shape.
    """
    steps = 0
    while not until(table) and table.status == Table.Status.PLAYING:
        state = state_of(table)
        user = to_move(table, users)
        options = legal_actions(state, user.username)
        pick = next((a for a in options if a.to_dict()["type"] in ("draw", "discard")), options[0])
        act(table, user, pick.to_dict())
        table.refresh_from_db()
        steps += 1
        assert steps < 5000, "the condition was never met"
    return steps


def greedy_hand_movers(rules: Rules, names: list[str], seed: str) -> set[str]:
    """Who makes a move of their own in hand 1 dealt from ``seed`` as ``play_greedy`` plays it."""
    state = new_game(rules, names, seed=seed)
    bots = {name: GreedyBot(seed=i) for i, name in enumerate(names)}
    movers = set()
    while state.phase not in (Phase.HAND_OVER, Phase.GAME_OVER):
        name, action = next_move(state, bots)
        movers.add(name)
        state = apply(state, name, action).state
    return movers


def contested_seed(rules: Rules, names: list[str], movers: int = 2) -> str:
    """A random seed whose hand 1, as ``play_greedy`` plays it, sees at least ``movers`` players
    move: in about one three-seat deal in a thousand the first mover goes out at once, and a
    game fewer than two players moved in is not rated."""
    seed = record.new_seed()
    while len(greedy_hand_movers(rules, names, seed)) < movers:
        seed = record.new_seed()
    return seed


def play_greedy(table: Table, users: list[User], until: Callable[[Table], bool]) -> int:
    """Play the engine's greedy bots (melds, lay-offs, "Rummy!" claims) through the service."""
    by_name = {u.username: u for u in users}
    bots = {name: GreedyBot(seed=i) for i, name in enumerate(by_name)}
    steps = 0
    while not until(table) and table.status == Table.Status.PLAYING:
        name, action = next_move(state_of(table), bots)
        act(table, by_name[name], action.to_dict())
        table.refresh_from_db()
        steps += 1
        assert steps < 5000, "the condition was never met"
    return steps
