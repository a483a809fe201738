"""Face-to-face results: an event admin enters a game played at the club, hand by hand.

Each hand gives, per player, the points they put on the table and the points left in their
hand. This module reads and checks the entry (the form's textarea, or the API's JSON) and the
event's side (who may enter it, which round table, the audit); the game itself is recorded by
the games app (``games.entered.table_record_entered``), which does the scoring (RULES.md,
"Scoring") and makes it a finished table of the event, so it takes the path of any other
finished game: its finalization hooks run after commit, the ``tournaments`` hook records it as
the round table's result, and, in a rated event, the ``ratings`` hook rates it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from django.db import transaction

from accounts.models import User
from config.errors import refuse
from games.engine.state import Score
from games.entered import EnteredHand, table_record_entered
from games.models import Table
from tournaments.access import require_admin
from tournaments.audit import audit
from tournaments.errors import EventError
from tournaments.locks import lock_event
from tournaments.models import AuditEntry, Entry, RoundTable, Tournament
from tournaments.refusals import result_entry_refusal
from tournaments.selectors import round_table_get

#: One hand's entry: username -> {"table": points melded, "hand": points left in hand}.
Hand = Mapping[str, Mapping[str, int]]

#: The most points one number may say: two full decks with four jokers are worth 852 (aces and
#: jokers 15), so anything above this is a typing slip, not a score.
MAX_POINTS = 1_000

#: A game at the club is never this long; a longer entry is a pasted mistake.
MAX_HANDS = 200

Action = AuditEntry.Action


def bad(message: str) -> EventError:
    return EventError("bad_request", message)


# --- The entry's checks (pure) --------------------------------------------------------------------


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


# --- The textarea format ------------------------------------------------------------------------

# ASCII digits, a few: points are at most MAX_POINTS, and int() refuses thousands of digits.
_ITEM = re.compile(r"^([^\s,/]+)\s+([0-9]{1,9})\s*/\s*([0-9]{1,9})$")


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
    :raises TableError: ``bad_request`` for the event's rules, should its rule set no longer
        take its overrides.
    """
    with transaction.atomic():
        event = lock_event(event_id)
        require_admin(actor, event)
        table = round_table_get(event.pk, round_table_id)
        refuse(result_entry_refusal(event, table, actor))
        players = _seated(table)
        names = [p.username for p in players]
        check_hands(hands, names)
        game = table_record_entered(
            players=players,
            ruleset=event.ruleset,
            overrides=_overrides(event),
            rated=event.rated,
            club=event.club,
            hands=[entered_hand(hand) for hand in hands],
        )
        table.table = game
        table.save(update_fields=["table"])
        places = {row["player"]: row["place"] for row in game.result.placements}
        details = {"table": table.pk, "game": game.pk, "hands": len(hands), "places": places}
        audit(event, actor, Action.ENTER_RESULT, details)
    return game


def entered_hand(hand: Hand) -> EnteredHand:
    """A checked hand's points as the games app scores them.

    >>> entered_hand({"ann": {"table": 45, "hand": 5}})["ann"].net
    40
    """
    return {name: Score(p["table"], p["hand"]) for name, p in hand.items()}


def _overrides(event: Tournament) -> dict[str, Any]:
    """The event's rule overrides and its clock: the table is one of the event's."""
    return {
        **event.overrides,
        "turn_seconds": event.turn_seconds,
        "time_bank_seconds": event.time_bank_seconds,
    }


def _seated(table: RoundTable) -> list[User]:
    """The table's players still in the event, in seat order (those who left are recorded
    absent and last by the event, as at an online table)."""
    entries = Entry.objects.filter(pk__in=table.players, status=Entry.Status.PLAYING)
    users = {e.pk: e.user for e in entries.select_related("user")}
    return [users[pid] for pid in table.players if pid in users]
