"""The live bracket of an elimination event, as its page and ``GET /api/events/{slug}/bracket/``
show it: the format's ``bracket`` (every match, decided or not; a player who has left loses
theirs by walkover) with usernames, seeds and each match's live table.
"""

from __future__ import annotations

from typing import Any

import tournaments.payloads as payloads
from games.models import Table
from tournaments.format_inputs import entrants_of, gone_of, played_so_far, settings_of
from tournaments.formats import FormatError, get_format
from tournaments.models import RoundTable, Tournament
from tournaments.selectors import entry_names

SIDE_LABELS = {
    "winners": "Winners bracket",
    "losers": "Losers bracket",
    "final": "Grand final",
    "third": "Third place",
}


def event_bracket(event: Tournament) -> payloads.BracketOutput | None:
    """The bracket page's data: per side (winners, losers, final, third place) its columns, each
    a bracket round of matches with both slots (username and seed once known, else where the
    player comes from), the winner, the match's state and its live table. ``None`` for a format
    without a bracket; no sides before the field is seeded."""
    try:
        draw = getattr(get_format(event.format), "bracket", None)
    except FormatError:
        return None
    if draw is None:
        return None
    entrants = entrants_of(event)
    try:
        played, gone = played_so_far(event), gone_of(event)
        bracket = draw(entrants, played, settings_of(event), gone=gone) if entrants else None
    except FormatError:
        bracket = None  # a history the format refuses: nothing sensible to draw
    if bracket is None:
        return {"sides": []}
    seeds = {e.id: e.seed for e in entrants}
    tables = RoundTable.objects.filter(round__tournament=event).select_related("table")
    by_key = {t.key: t for t in tables}
    names = entry_names(event)
    rows = [match_row(m, names, seeds, by_key) for m in bracket.matches]
    double = any(m.side == "losers" for m in bracket.matches)
    return {"sides": [s for s in (side_of(rows, name, double) for name in SIDE_LABELS) if s]}


def side_of(
    matches: list[payloads.MatchOutput], side: str, double: bool
) -> payloads.SideOutput | None:
    mine = [m for m in matches if m["side"] == side]
    if not mine:
        return None
    numbers = sorted({m["round"] for m in mine})
    label = SIDE_LABELS[side] if double or side != "winners" else "Bracket"
    columns: list[payloads.ColumnOutput] = [
        {
            "label": column_label(side, n, numbers[-1], double),
            "matches": [m for m in mine if m["round"] == n],
        }
        for n in numbers
    ]
    return {"side": side, "label": label, "columns": columns}


def column_label(side: str, number: int, last: int, double: bool) -> str:
    if side == "final":
        return "Grand final" if number == 1 else "Reset"
    if side == "third":
        return "Third place"
    if side == "losers":
        return "Losers final" if number == last else f"Losers round {number}"
    if double:
        return "Winners final" if number == last else f"Winners round {number}"
    names = {last: "Final", last - 1: "Semi-finals", last - 2: "Quarter-finals"}
    return names.get(number, f"Round {number}")


def match_row(
    match: Any, names: dict[int, str], seeds: dict[int, int], tables: dict[str, RoundTable]
) -> payloads.MatchOutput:
    found = tables.get(match.key)
    scores = dict(zip(found.players, found.points or [], strict=False)) if found else {}
    slots: list[payloads.SlotOutput] = [
        {
            "username": names.get(s.entrant) if s.entrant is not None else None,
            "seed": seeds.get(s.entrant) if s.entrant is not None else None,
            "source": s.source,
            "bye": s.bye,
            "won": s.entrant is not None and s.entrant == match.winner,
            "points": scores.get(s.entrant) if s.entrant is not None else None,
        }
        for s in match.slots
    ]
    game = found.table if found else None
    return {
        "key": match.key,
        "side": match.side,
        "round": match.round,
        "slots": slots,
        "winner": names.get(match.winner) if match.winner is not None else None,
        "state": match_state(match, game, slots),
        "played_in": match.played_in,
        "table": game.pk if game else None,
        "url": game.get_absolute_url() if game else None,
    }


def match_state(
    match: Any, game: Table | None, slots: list[payloads.SlotOutput]
) -> payloads.MatchState:
    """``bye``, ``walkover`` (a player had left: the other went through without play), ``done``,
    ``playing`` (its game is on), ``ready`` (both players known) or ``waiting``."""
    if match.bye:
        return payloads.MatchState.BYE
    if match.walkover:
        return payloads.MatchState.WALKOVER
    if match.winner is not None:
        return payloads.MatchState.DONE
    if game is not None and game.status == Table.Status.PLAYING:
        return payloads.MatchState.PLAYING
    return (
        payloads.MatchState.READY
        if all(s["username"] for s in slots)
        else payloads.MatchState.WAITING
    )
