"""A whole event played by bots through the real services: ``simulate_event``.

Bot players register and check in, the event starts, and every table the rounds open is played
by the engine's greedy bots through ``games.services.table_apply_action``, each acting at once.
When a table's game ends its finalization hooks (ratings, then the event's advancement) run here
and now, as a worker would run them, so the next round opens; the loop ends when the event
finishes. Deals are shuffled by the service as always; ``seed`` fixes the bots' play and the
order players are created in.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from accounts.models import User
from games import finalization, services
from games.engine.bots import GreedyBot
from games.engine.play import next_move
from games.models import Table
from games.selectors import table_state
from tournaments.departures import live_tables
from tournaments.entries import entry_check_in, entry_register
from tournaments.models import Round, Tournament
from tournaments.rounds import table_summary
from tournaments.services import (
    event_create,
    event_open_check_in,
    event_open_registration,
    event_start,
)

#: A table that has not ended after this many actions is a bug, not a long game.
MAX_ACTIONS = 20_000


@dataclass(frozen=True)
class Plan:
    format: str
    players: int
    table_size: int
    rounds: int | None = None
    target: int | None = None
    seed: int = 0


def simulate(plan: Plan) -> Tournament:
    """Create the bots and the event, and play it to the end.

    :raises EventError: settings the event refuses (an unknown format, a table size it cannot
        seat), as ``event_create`` and ``event_start`` raise them.
    """
    rng = random.Random(plan.seed)
    run = _run_number()
    director = User.objects.create_user(username=f"sim{run}-director", is_staff=True)
    bots = [User.objects.create_user(username=f"sim{run}-p{i:03d}") for i in range(plan.players)]
    rng.shuffle(bots)
    event = event_create(
        created_by=director,
        name=f"Simulated {plan.format.replace('_', ' ')} #{run}",
        format=plan.format,
        table_size=plan.table_size,
        rounds=plan.rounds,
        overrides={"target": plan.target} if plan.target else {},
    )
    event_open_registration(event_id=event.pk, actor=director)
    for bot in bots:
        entry_register(event_id=event.pk, user=bot)
    event_open_check_in(event_id=event.pk, actor=director)
    for bot in bots:
        entry_check_in(event_id=event.pk, user=bot)
    event_start(event_id=event.pk, actor=director)
    _play_out(event, rng)
    event.refresh_from_db()
    return event


def _run_number() -> int:
    n = 1
    while User.objects.filter(username=f"sim{n}-director").exists():
        n += 1
    return n


def _play_out(event: Tournament, rng: random.Random) -> None:
    while True:
        event.refresh_from_db()
        tables = live_tables(event)
        if not tables:
            if event.status != Tournament.Status.RUNNING:
                return
            raise RuntimeError(f"event {event.slug} is running with no table in play")
        for table in tables:
            play_table(table, rng)
            for hook in finalization.hook_names():
                finalization.run_hook(table.pk, hook)


def play_table(table: Table, rng: random.Random) -> None:
    """Play a table's game to its end with greedy bots, through the service.

    Each action starts from what the previous one's service answered (``ActionResult``: the
    table, version and state its change left under the lock), not from a fresh read of the row:
    no other writer acts on a simulated table, so that answer is the table as it now stands.
    """
    users = {s.user.username: s.user for s in table.seat_set.select_related("user")}
    bots = {name: GreedyBot(seed=rng.randrange(2**32)) for name in users}
    version, state = table.version, table_state(table)
    for _ in range(MAX_ACTIONS):
        if table.status != Table.Status.PLAYING or state is None:
            return
        name, action = next_move(state, bots)
        done = services.table_apply_action(
            table_id=table.pk,
            user=users[name],
            action=action.to_dict(),
            version=version,
            client_id=None,
        )
        table, version, state = done.table, done.version, done.state
    raise RuntimeError(f"table {table.pk} did not finish in {MAX_ACTIONS} actions")


def summary(event: Tournament) -> dict[str, Any]:
    """The event as ``simulate_event --json`` prints it."""
    names = dict(event.entries.values_list("pk", "user__username"))
    rounds = event.round_set.filter(status=Round.Status.FINISHED).prefetch_related("tables")
    return {
        "format": event.format,
        "rounds": [
            {"number": r.number, "tables": [table_summary(t, names) for t in r.tables.all()]}
            for r in rounds
        ],
        "standings": [
            {
                "rank": s["rank"],
                "username": s["username"],
                "points": s["points"],
                "tiebreaks": s["tiebreaks"],
            }
            for s in event.standings
        ],
        "champion": event.champion.username if event.champion else None,
    }
