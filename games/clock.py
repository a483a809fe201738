"""The turn clock as arithmetic on a table row: deadlines, time banks, pauses (RULES.md,
"Playing online").

A turn starts when the previous one ends or a hand is dealt, and its clock runs through the draw,
the melds and the discard. The player to move has ``turn_seconds``, then whatever is left of their
time bank (``time_bank_seconds`` per player per game, kept in ``Table.banks`` in milliseconds);
the server plays the turn at ``deadline`` = turn start + turn clock + bank. When a turn ends, the
time it took beyond the turn clock is taken from the mover's bank. A pause freezes every clock:
on resume the turn's start and its deadline move on by the length of the pause.

Between hands there is a break (``between_hands_seconds``) during which no clock runs: when a
hand ends and the next is dealt, ``break_ends_at`` is set, and no turn starts before it (a turn
that begins during the break, because someone played on, starts at its end too). Actions are
accepted during the break; only the clock waits. A pause during the break keeps what is left of
it: resume moves its end on like the turn's start.

These functions only set fields; the services that call them hold the row lock and save.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta

from games.models import Table
from games.payloads import ClockOutput


def _ms(delta: timedelta) -> int:
    return delta // timedelta(milliseconds=1)


def fill_banks(table: Table, names: list[str]) -> None:
    """Every player starts the game with the whole time bank."""
    table.banks = dict.fromkeys(names, table.time_bank_seconds * 1000)


def end_turn(table: Table, mover: str | None, now: datetime) -> None:
    """Charge ``mover``'s bank with what their turn, ending ``now``, took past the turn clock."""
    if mover is None or table.turn_started_at is None:
        return
    over = _ms(now - table.turn_started_at) - table.turn_seconds * 1000
    if over > 0 and mover in table.banks:
        table.banks = {**table.banks, mover: max(0, table.banks[mover] - over)}


def start_break(table: Table, now: datetime) -> None:
    """A hand ended ``now`` and the next is dealt: the break between hands starts (none when
    the table's ``between_hands_seconds`` is 0)."""
    seconds = table.between_hands_seconds
    table.break_ends_at = now + timedelta(seconds=seconds) if seconds else None


def start_turn(table: Table, mover: str | None, now: datetime) -> None:
    """``mover``'s turn starts ``now``, or at the break's end if a break runs then (None:
    nobody is to move, so no deadline)."""
    if mover is None:
        table.turn_started_at = table.deadline = None
        return
    if table.break_ends_at is not None and table.break_ends_at > now:
        now = table.break_ends_at
    table.turn_started_at = now
    bank = timedelta(milliseconds=table.banks.get(mover, 0))
    table.deadline = now + timedelta(seconds=table.turn_seconds) + bank


def pause(table: Table, now: datetime) -> None:
    table.paused_at = now


def resume(table: Table, now: datetime) -> None:
    """Restart the clocks: the time paused is added to the turn's start and deadline."""
    if table.paused_at is None:
        return
    shift = now - table.paused_at
    if table.break_ends_at is not None and table.break_ends_at > table.paused_at:
        table.break_ends_at += shift  # paused during the break: the rest of it is kept
    if table.turn_started_at is not None:
        table.turn_started_at += shift
    if table.deadline is not None:
        table.deadline += shift
    table.paused_at = None


def is_due(table: Table, now: datetime) -> bool:
    """The turn's time is up and the server should play it."""
    return (
        table.status == Table.Status.PLAYING
        and table.paused_at is None
        and table.deadline is not None
        and table.deadline <= now
    )


def turn_ends(table: Table) -> datetime | None:
    """When the turn clock runs out (the mover's bank runs after it)."""
    if table.turn_started_at is None:
        return None
    return table.turn_started_at + timedelta(seconds=table.turn_seconds)


def break_ends(table: Table, now: datetime) -> datetime | None:
    """When the break between hands running at ``now`` ends; None when none runs. While the
    table is paused its clocks stand still at the pause, so the break runs as of then."""
    moment = table.paused_at or now
    if (
        table.status != Table.Status.PLAYING
        or table.break_ends_at is None
        or table.break_ends_at <= moment
    ):
        return None
    return table.break_ends_at


def clock_payload(table: Table, text: Callable[[datetime], str], now: datetime) -> ClockOutput:
    """The ``clock`` object of views and answers (``text`` formats a datetime as UTC ISO) at
    ``now``.

    While paused, ``remaining`` is the seconds the mover had left when the pause began, and the
    deadline is frozen (the answers' ``deadline`` is null).
    """
    ends = turn_ends(table)
    rest = break_ends(table, now)
    remaining = None
    if table.paused_at is not None and table.deadline is not None:
        remaining = max(0.0, (table.deadline - table.paused_at).total_seconds())
    return {
        "turn_seconds": table.turn_seconds,
        "time_bank_seconds": table.time_bank_seconds,
        "turn_started": None if table.turn_started_at is None else text(table.turn_started_at),
        "turn_ends": None if ends is None else text(ends),
        "banks": {name: ms / 1000 for name, ms in table.banks.items()},
        "paused": table.paused_at is not None,
        "remaining": remaining,
        "between_hands_seconds": table.between_hands_seconds,
        "break_ends": None if rest is None else text(rest),
    }
