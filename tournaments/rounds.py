"""Rounds that run themselves: plan, open the tables, take in each result, move on.

The format (``tournaments.formats``) is a pure function of the entrants and the rounds played;
this module stores what it plans and what was played, and asks it again after each round. Every
step runs inside the caller's transaction holding the event's lock (and, from the finalization
hook, the finished table's), and each is idempotent: a result recorded twice, or a round
planned twice, finds its row and stops.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.utils import timezone

from games.hosting import table_open_for
from games.models import GameResult
from ratings.elo import rated_places
from tournaments.audit import audit
from tournaments.format_inputs import entrants_of, gone_of, played_of, settings_of
from tournaments.formats import PlayedRound, get_format
from tournaments.locks import lock_event
from tournaments.models import AuditEntry, Entry, Round, RoundTable, Tournament
from tournaments.notices import notify_table_ready
from tournaments.push import on_commit_event

Status = Tournament.Status
Action = AuditEntry.Action


def plan_next_round(event: Tournament, played: Sequence[PlayedRound] | None = None) -> Round | None:
    """Store the format's next round, and start it when the event runs rounds by itself; the
    players who have left are not in it. Updates the standings from the rounds ``played`` (read
    here when not given), or finishes the event when the format says it is over. Call holding
    the event's lock."""
    fmt = get_format(event.format)
    played = played_of(event) if played is None else played
    plan = fmt.next_round(entrants_of(event), played, settings_of(event), gone=gone_of(event))
    if plan is None:
        finish_event(event, played)
        return None
    if played:
        update_standings(event, played)
    round_, created = Round.objects.get_or_create(
        tournament=event, number=plan.number, defaults={"name": plan.name, "byes": list(plan.byes)}
    )
    if created:
        RoundTable.objects.bulk_create(
            RoundTable(round=round_, index=i, key=s.key, players=list(s.players))
            for i, s in enumerate(plan.tables)
        )
    on_commit_event(event.pk, "round")
    if event.auto_advance and event.paused_at is None:
        start_round(event, round_)
    return round_


def start_round(event: Tournament, round_: Round) -> None:
    """Open a table for each planned table with two or more players still in the event; a table
    left with fewer (someone left after the round was planned: the formats plan nobody who has
    left) is decided at once, whoever is still in winning it. Call holding the lock."""
    if round_.status != Round.Status.PENDING:
        return
    round_.status = Round.Status.RUNNING
    round_.started_at = timezone.now()
    round_.save(update_fields=["status", "started_at"])
    active = active_entries(event)
    for table in round_.tables.all():
        seated = [pid for pid in table.players if pid in active]
        if len(seated) >= 2 and event.online:
            players = [active[pid].user for pid in seated]
            table.table = table_open_for(
                players=players,
                ruleset=event.ruleset,
                overrides=event.overrides,
                turn_seconds=event.turn_seconds,
                time_bank_seconds=event.time_bank_seconds,
                rated=event.rated,
                club=event.club,
            )
            table.save(update_fields=["table"])
            notify_table_ready(event, round_, table, players)
        elif len(seated) < 2:
            record(table, dict.fromkeys(seated, (1, 0, False)))
    advance_if_done(event, round_)


def active_entries(event: Tournament) -> dict[int, Entry]:
    rows = event.entries.filter(status=Entry.Status.PLAYING).select_related("user")
    return {e.pk: e for e in rows}


def record(table: RoundTable, seated: dict[int, tuple[int, int, bool]]) -> bool:
    """Store a table's result: ``seated`` maps each player who sat to ``(place, points,
    absent)``; players of the plan who were not seated (they had left the event) are absent.
    Absent players share the last place (RULES.md). False if it was recorded already."""
    if table.done:
        return False
    rows = [seated.get(pid, (len(table.players), 0, True)) for pid in table.players]
    table.places = rated_places([r[0] for r in rows], [r[2] for r in rows])
    table.points = [r[1] for r in rows]
    table.finished_at = timezone.now()
    table.save(update_fields=["places", "points", "finished_at"])
    on_commit_event(table.round.tournament_id, "result")
    return True


def record_game(table: RoundTable, result: GameResult) -> bool:
    """Store the result of the game played at ``table``."""
    users = {e.user_id: e.pk for e in Entry.objects.filter(pk__in=table.players)}
    seated = {
        users[p["user"]]: (p["place"], p["score"], bool(p.get("absent")))
        for p in result.placements
        if p["user"] in users
    }
    return record(table, seated)


def advance_if_done(event: Tournament, round_: Round) -> None:
    """Once every table of the round has its result: the round is over, the standings are
    updated, and the next round is planned (or the event finishes)."""
    if round_.status != Round.Status.RUNNING or round_.tables.filter(places__isnull=True).exists():
        return
    round_.status = Round.Status.FINISHED
    round_.finished_at = timezone.now()
    round_.save(update_fields=["status", "finished_at"])
    played = played_of(event)  # read once for the standings and the next round's plan
    if event.status == Status.RUNNING:
        plan_next_round(event, played)
    else:
        update_standings(event, played)


def update_standings(event: Tournament, played: Sequence[PlayedRound]) -> None:
    fmt = get_format(event.format)
    rows = fmt.standings(entrants_of(event), played, settings_of(event), gone=gone_of(event))
    names = dict(event.entries.values_list("pk", "user__username"))
    event.standings = [
        {
            "rank": s.rank,
            "entry": s.entrant,
            "username": names[s.entrant],
            "points": s.points,
            "tiebreaks": dict(s.tiebreaks),
            "eliminated": s.eliminated,
        }
        for s in rows
    ]
    event.save(update_fields=["standings"])


def finish_event(event: Tournament, played: Sequence[PlayedRound]) -> None:
    update_standings(event, played)
    fmt = get_format(event.format)
    winner = fmt.champion(entrants_of(event), played, settings_of(event), gone=gone_of(event))
    event.champion = Entry.objects.get(pk=winner).user if winner is not None else None
    event.status = Status.FINISHED
    event.finished_at = timezone.now()
    event.save(update_fields=["champion", "status", "finished_at"])
    on_commit_event(event.pk, "status")
    audit(
        event,
        None,
        Action.FINISH,
        {"champion": event.champion.username if event.champion else None},
    )


def event_finalize(result: GameResult) -> None:
    """The ``tournaments`` finalization hook: a finished game of an event's table is that
    table's result, and may finish the round. Runs holding the table's lock (``run_hook``)."""
    table = RoundTable.objects.filter(table_id=result.table_id).select_related("round").first()
    if table is None:
        return
    event = lock_event(table.round.tournament_id)
    table.refresh_from_db()
    if event.status != Status.RUNNING or not record_game(table, result):
        return
    advance_if_done(event, table.round)


def table_summary(table: RoundTable, names: dict[int, str]) -> dict[str, Any]:
    """A table as ``simulate_event --json`` and the API list it."""
    out: dict[str, Any] = {
        "table": table.table_id,
        "key": table.key,
        "players": [names[p] for p in table.players],
        "placements": None,
    }
    if table.places is not None:
        out["placements"] = dict(zip((names[p] for p in table.players), table.places, strict=True))
    return out
