"""Face-to-face results: an event admin enters a game played at the club, hand by hand.

Each hand gives, per player, the points they put on the table and the points left in their
hand; the service does the subtraction and the totals (RULES.md, "Scoring"). The game becomes a
finished ``games`` table of the event, so it takes the path of any other finished game: its
finalization hooks run after commit, the ``tournaments`` hook records it as the round table's
result, and, in a rated event, the ``ratings`` hook rates it.

What such a table holds, and why:

- no snapshot and no log rows (``state`` None, ``version`` 0): nothing was played online, so
  there is no position to replay; a new log kind would only say what the ``GameResult`` says;
- one ``HandResult`` per player per hand: ``melded`` the table points, ``in_hand`` the hand
  points, ``net`` their difference. ``went_out`` is the one player with 0 in hand; when several
  (or nobody) have 0, the hand names nobody: the entry does not say who went out;
- a ``GameResult`` whose placements go by total (ties share a place), everyone ``acted`` and
  nobody ``absent``, ``hands`` the entered hands in the shape the engine's full state lists
  them, and ``ended`` ``"target"`` when a total reached the event's target, else ``"entered"``
  (a club game may stop short of the target, when the evening ends).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from django.db import transaction
from django.utils import timezone

from accounts.models import User
from config.errors import refuse
from games.engine.errors import ConfigError
from games.models import GameResult, HandResult, Seat, Table
from games.timers import on_commit_finalize
from tournaments.access import require_admin
from tournaments.audit import audit
from tournaments.errors import EventError
from tournaments.locks import lock_event
from tournaments.models import Entry, RoundTable, Tournament
from tournaments.refusals import result_entry_refusal
from tournaments.selectors import round_table_get

#: One hand's entry: username -> {"table": points melded, "hand": points left in hand}.
Hand = Mapping[str, Mapping[str, int]]

#: The most points one number may say: two full decks with four jokers are worth 852 (aces and
#: jokers 15), so anything above this is a typing slip, not a score.
MAX_POINTS = 1_000

#: A game at the club is never this long; a longer entry is a pasted mistake.
MAX_HANDS = 200

ENDED_TARGET = "target"
ENDED_ENTERED = "entered"


def bad(message: str) -> EventError:
    return EventError("bad_request", message)


# --- The arithmetic (pure) ----------------------------------------------------------------------


def check_hands(hands: Sequence[Hand], names: Sequence[str]) -> None:
    """:raises EventError: ``bad_request`` naming the hand and player at fault: no hands, a hand
    that does not name exactly ``names``, or points that are not whole numbers 0 to 1,000."""
    if not isinstance(hands, Sequence) or isinstance(hands, str) or not hands:
        raise bad("hands: enter at least one hand")
    if len(hands) > MAX_HANDS:
        raise bad(f"hands: at most {MAX_HANDS}")
    expected = sorted(names)
    for number, hand in enumerate(hands, 1):
        if not isinstance(hand, Mapping) or sorted(hand) != expected:
            raise bad(f"hand {number}: give the points of exactly {', '.join(expected)}")
        for name in names:
            _check_points(hand[name], f"hand {number}, {name}")


def _check_points(points: object, where: str) -> None:
    if not isinstance(points, Mapping) or sorted(points) != ["hand", "table"]:
        raise bad(f"{where}: give table and hand points")
    for key in ("table", "hand"):
        value = points[key]
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_POINTS:
            raise bad(f"{where}: {key} points must be a whole number from 0 to {MAX_POINTS}")


def hand_nets(hand: Hand) -> dict[str, int]:
    """Each player's score for the hand: table points less hand points.

    >>> hand_nets({"ann": {"table": 45, "hand": 5}, "bob": {"table": 10, "hand": 30}})
    {'ann': 40, 'bob': -20}
    """
    return {name: p["table"] - p["hand"] for name, p in hand.items()}


def running_totals(hands: Sequence[Hand]) -> list[dict[str, int]]:
    """Each player's total after each hand.

    >>> h = {"ann": {"table": 45, "hand": 5}, "bob": {"table": 10, "hand": 30}}
    >>> running_totals([h, h])
    [{'ann': 40, 'bob': -20}, {'ann': 80, 'bob': -40}]
    """
    out: list[dict[str, int]] = []
    for hand in hands:
        before = out[-1] if out else {}
        out.append({n: before.get(n, 0) + net for n, net in hand_nets(hand).items()})
    return out


def went_out(hand: Hand) -> str | None:
    """The one player left with nothing in hand, or None when that is not one player."""
    empty = [name for name, p in hand.items() if p["hand"] == 0]
    return empty[0] if len(empty) == 1 else None


def standings(totals: Mapping[str, int], seats: Sequence[str]) -> list[tuple[str, int, int]]:
    """``(player, place, total)`` best first; equal totals share a place (1, 1, 3), in seat
    order among themselves.

    >>> standings({"ann": 60, "bob": 80, "cid": 60}, ["ann", "bob", "cid"])
    [('bob', 1, 80), ('ann', 2, 60), ('cid', 2, 60)]
    """
    order = sorted(seats, key=lambda n: -totals[n])
    out: list[tuple[str, int, int]] = []
    for i, name in enumerate(order):
        place = out[-1][1] if out and out[-1][2] == totals[name] else i + 1
        out.append((name, place, totals[name]))
    return out


# --- The textarea format ------------------------------------------------------------------------

_ITEM = re.compile(r"^([^\s,/]+)\s+(\d+)\s*/\s*(\d+)$")


def hands_from_text(text: str) -> list[dict[str, dict[str, int]]]:
    """Hands typed one per line, each player as ``name table/hand``, players apart by commas;
    blank lines are skipped. Names and counts are checked against the table by
    ``scorekeeper_enter``.

    >>> hands = hands_from_text("ann 45/5, bob 10/30\\n\\nbob 60/0, ann 0/12")
    >>> len(hands), hands[1]
    (2, {'bob': {'table': 60, 'hand': 0}, 'ann': {'table': 0, 'hand': 12}})

    :raises EventError: ``bad_request`` naming the line at fault.
    """
    hands = []
    for number, line in enumerate(text.splitlines(), 1):
        if line.strip():
            hands.append(_parse_line(line, number))
    if not hands:
        raise bad("hands: enter at least one hand, one line each (ann 45/5, bob 10/30)")
    return hands


def _parse_line(line: str, number: int) -> dict[str, dict[str, int]]:
    hand: dict[str, dict[str, int]] = {}
    for item in line.split(","):
        found = _ITEM.match(item.strip())
        if found is None:
            raise bad(
                f"line {number}: {item.strip()!r} is not a player's name and table/hand "
                "points in whole numbers, like ann 45/5"
            )
        name, table, in_hand = found.groups()
        if name in hand:
            raise bad(f"line {number}: {name} is there twice")
        hand[name] = {"table": int(table), "hand": int(in_hand)}
    return hand


# --- The service --------------------------------------------------------------------------------


def scorekeeper_enter(
    *, event_id: int, round_table_id: int, hands: Sequence[Hand], actor: User
) -> Table:
    """Enter the game a round table played face to face: ``hands`` in order, each naming every
    player of the table still in the event. Returns the finished ``games`` table it became;
    the event records it (and the ratings rate it) after commit, through the finalization hooks.

    :raises EventError: ``forbidden`` (403) for anyone but the event's organizers, and for one
        who plays at this table (another organizer enters it), ``not_found``
        (404), ``wrong_status`` (409) when the table's round is not running, its result is in or
        it has a game already, ``bad_request`` for hands that do not add up to a game.
    """
    with transaction.atomic():
        event = lock_event(event_id)
        require_admin(actor, event)
        table = round_table_get(event.pk, round_table_id)
        refuse(result_entry_refusal(event, table, actor))
        players = _seated(table)
        names = [p.username for p in players]
        check_hands(hands, names)
        game = _finished_table(event, players)
        _write_hands(game, hands, players)
        result = _write_result(game, hands, players, _target(game))
        table.table = game
        table.save(update_fields=["table"])
        places = {row["player"]: row["place"] for row in result.placements}
        details = {"table": table.pk, "game": game.pk, "hands": len(hands), "places": places}
        audit(event, actor, "enter_result", details)
        on_commit_finalize(game)
    return game


def _seated(table: RoundTable) -> list[User]:
    """The table's players still in the event, in seat order (those who left are recorded
    absent and last by the event, as at an online table)."""
    entries = Entry.objects.filter(pk__in=table.players, status=Entry.Status.PLAYING)
    users = {e.pk: e.user for e in entries.select_related("user")}
    return [users[pid] for pid in table.players if pid in users]


def _finished_table(event: Tournament, players: list[User]) -> Table:
    """A finished table of the event's rules and clock, its players seated in order."""
    overrides = {
        **event.overrides,
        "turn_seconds": event.turn_seconds,
        "time_bank_seconds": event.time_bank_seconds,
    }
    try:
        rules = event.ruleset.to_rules(overrides)
    except ConfigError as exc:
        raise bad(str(exc)) from None
    now = timezone.now()
    game = Table.objects.create(
        ruleset=event.ruleset,
        rules=rules.to_dict(),
        overrides=overrides,
        seats=len(players),
        status=Table.Status.FINISHED,
        turn_seconds=rules.turn_seconds,
        time_bank_seconds=rules.time_bank_seconds,
        rated=event.rated,
        club=event.club,
        creator=players[0],
        started_at=now,
        finished_at=now,
    )
    Seat.objects.bulk_create(Seat(table=game, user=u, position=i) for i, u in enumerate(players))
    return game


def _target(game: Table) -> int:
    return int(game.rules["target"])


def _write_hands(game: Table, hands: Sequence[Hand], players: list[User]) -> None:
    HandResult.objects.bulk_create(
        HandResult(
            table=game,
            hand=number,
            player=user.username,
            user=user,
            melded=hand[user.username]["table"],
            in_hand=hand[user.username]["hand"],
            net=hand[user.username]["table"] - hand[user.username]["hand"],
            went_out=went_out(hand) == user.username,
        )
        for number, hand in enumerate(hands, 1)
        for user in players
    )


def _write_result(
    game: Table, hands: Sequence[Hand], players: list[User], target: int
) -> GameResult:
    names = [u.username for u in players]
    users = {u.username: u.pk for u in players}
    totals = running_totals(hands)[-1]
    # Everyone played at the club: present, and acting (so the ratings count the game).
    rows: list[dict[str, Any]] = [
        {
            "player": n,
            "user": users[n],
            "place": place,
            "score": score,
            "absent": False,
            "acted": True,
        }
        for n, place, score in standings(totals, names)
    ]
    firsts = [r["player"] for r in rows if r["place"] == 1]
    assert game.finished_at is not None  # _finished_table made it finished
    return GameResult.objects.create(
        table=game,
        winner=firsts[0] if len(firsts) == 1 else "",
        ended=ENDED_TARGET if max(totals.values()) >= target else ENDED_ENTERED,
        placements=rows,
        hands=[_hand_dict(number, hand) for number, hand in enumerate(hands, 1)],
        finished_at=game.finished_at,
    )


def _hand_dict(number: int, hand: Hand) -> dict[str, Any]:
    """A hand as the engine's full state lists it (``games.engine.views.full_state``)."""
    scores = {
        name: {"melded": p["table"], "in_hand": p["hand"], "net": p["table"] - p["hand"]}
        for name, p in hand.items()
    }
    return {"number": number, "went_out": went_out(hand), "scores": scores}
