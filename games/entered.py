"""A game played face to face and entered afterwards (an event's scorekeeper enters it): the
table it becomes, finished, with its hands and result written as an online game's are
(``games.record``), so it takes the path of any finished game: its finalization hooks run after
commit (the event records it as a round table's result, the ratings rate it).

What such a table holds, and why:

- no snapshot and no log rows (``state`` None, ``version`` 0): nothing was played online, so
  there is no position to replay; a new log kind would only say what the ``GameResult`` says;
- one ``HandResult`` per player per hand: ``melded``, ``in_hand`` and their difference ``net``
  (RULES.md, "Scoring"); ``went_out`` is the one player with nothing in hand; when several (or
  nobody) have 0, the hand names nobody: the entry does not say who went out;
- a ``GameResult`` whose placements go by total (the engine's ``placements``: equal totals share
  a place), everyone ``acted`` and nobody ``absent``, and ``ended`` ``target`` when a total
  reached the rules' target, else ``entered`` (a club game may stop short of the target).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from django.db import transaction
from django.utils import timezone

from accounts.models import Club, User
from games.engine.errors import BAD_REQUEST, ConfigError
from games.engine.scoring import placements
from games.engine.state import HandResult as EngineHand
from games.engine.state import Score
from games.engine.views import hand_dict
from games.errors import TableError
from games.models import GameResult, RuleSet, Seat, Table
from games.record import write_game_result, write_hand_results

#: One entered hand: each player's ``Score`` (points melded, points left in hand) by username.
EnteredHand = Mapping[str, Score]


def table_record_entered(
    *,
    players: Sequence[User],
    ruleset: RuleSet,
    overrides: dict[str, Any],
    rated: bool,
    club: Club | None,
    hands: Sequence[EnteredHand],
) -> Table:
    """The finished table of a game ``players`` played face to face (seated in this order, the
    first its creator), under ``ruleset`` plus ``overrides`` (the clock's fields included), its
    ``hands`` in order. Its finalization hooks run after commit.

    :raises TableError: ``bad_request`` for rules the rule set refuses, no hands, or a hand that
        does not score exactly the players.
    """
    names = [p.username for p in players]
    _check(hands, names)
    try:
        rules = ruleset.to_rules(overrides)
    except ConfigError as exc:
        raise TableError(BAD_REQUEST, str(exc)) from None
    finished = [
        hand_dict(EngineHand(number, _went_out(hand, names), tuple(hand[n] for n in names)), names)
        for number, hand in enumerate(hands, 1)
    ]
    now = timezone.now()
    with transaction.atomic():
        table = Table.objects.create(
            ruleset=ruleset,
            rules=rules.to_dict(),
            overrides=overrides,
            seats=len(players),
            status=Table.Status.FINISHED,
            turn_seconds=rules.turn_seconds,
            time_bank_seconds=rules.time_bank_seconds,
            rated=rated,
            club=club,
            creator=players[0],
            started_at=now,
            finished_at=now,
        )
        Seat.objects.bulk_create(
            Seat(table=table, user=u, position=i) for i, u in enumerate(players)
        )
        _write_result(table, players, finished, rules.target)
    return table


def _check(hands: Sequence[EnteredHand], names: list[str]) -> None:
    if not hands:
        raise TableError(BAD_REQUEST, "hands: enter at least one hand")
    for number, hand in enumerate(hands, 1):
        if sorted(hand) != sorted(names):
            raise TableError(BAD_REQUEST, f"hand {number}: score exactly {', '.join(names)}")


def _went_out(hand: EnteredHand, names: list[str]) -> int | None:
    """The seat of the one player left with nothing in hand, or None when that is not one."""
    empty = [seat for seat, name in enumerate(names) if hand[name].in_hand == 0]
    return empty[0] if len(empty) == 1 else None


def _write_result(
    table: Table, players: Sequence[User], hands: list[dict[str, Any]], target: int
) -> None:
    users = {u.username: u.pk for u in players}
    for hand in hands:
        write_hand_results(table, hand, users)
    totals = {u.username: 0 for u in players}
    for hand in hands:
        for name, score in hand["scores"].items():
            totals[name] += score["net"]
    # Everyone played at the club: present, and acting (so the ratings count the game).
    rows = [
        {
            "player": p.player,
            "user": users[p.player],
            "place": p.place,
            "score": p.score,
            "absent": False,
            "acted": True,
        }
        for p in placements(list(totals.items()))
    ]
    reached = max(totals.values()) >= target
    ended = GameResult.Ended.TARGET if reached else GameResult.Ended.ENTERED
    write_game_result(table, rows, hands, ended=ended)
