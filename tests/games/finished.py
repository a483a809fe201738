"""A finished table for the game-over tests: a game to a target of 1 (a hand or so), played by
the engine's greedy bots through the services, from a deal at least two players move in (so a
rated one counts)."""

from __future__ import annotations

from accounts.models import User
from games.models import RuleSet, Table
from tests.games.tables import contested_seed, play_greedy, started_table

ONE_HAND = {"target": 1}


def finished_table(users: list[User], *, rated: bool = True) -> Table:
    rules = RuleSet.objects.get(slug="standard").to_rules(ONE_HAND)
    seed = contested_seed(rules, [u.username for u in users])
    table = started_table(users, overrides=ONE_HAND, seed=seed)
    if not rated:
        Table.objects.filter(pk=table.pk).update(rated=False)
        table.refresh_from_db()
    play_greedy(table, users, until=lambda t: t.status != Table.Status.PLAYING)
    table.refresh_from_db()
    assert table.status == Table.Status.FINISHED
    return table
