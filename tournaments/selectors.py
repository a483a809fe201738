"""Reads of events for the pages and the API: lists, one event with its settings and counts, its
rounds with their tables, standings, bracket, entries, announcements and audit log.

Each read returns plain dicts and lists, the same for the JSON API and the templates, so the two
never tell a different story; those the API answers with are typed in ``tournaments.payloads``.
Nothing an event shows is hidden information: games in play are only linked (``/tables/{id}/``),
where the table's own views apply.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from django.db.models import Q, QuerySet

from accounts.models import Club, ClubMembership, User
from games.engine.errors import ConfigError
from games.engine.rules import Rules
from games.engine.summary import rules_summary
from games.models import Table
from tournaments.access import is_event_admin
from tournaments.entry_reads import event_status_line, my_entry
from tournaments.errors import EventError, forbidden
from tournaments.models import (
    FORMAT_CHOICES,
    PRIVATE,
    AuditEntry,
    Entry,
    Round,
    RoundTable,
    Tournament,
)
from tournaments.payloads import (
    AnnouncementOutput,
    EventOutput,
    EventSummaryOutput,
    RoundBriefOutput,
    RoundOutput,
    RoundTableOutput,
    StandingsOutput,
)
from tournaments.standing import standings_by_entry

Status = Tournament.Status
#: The lists of ``/events/`` and ``GET /api/events/?status=``; drafts are listed to organizers.
LISTS: dict[str, tuple[str, ...]] = {
    "upcoming": ("registration", "check_in"),
    "running": ("running",),
    "finished": ("finished", "cancelled"),
}
LIST_ORDER = {
    "upcoming": ("starts_at", "created_at"),
    "running": ("-started_at",),
    "finished": ("-finished_at", "-created_at"),
}
FORMAT_NAMES = dict(FORMAT_CHOICES)
LIST_LIMIT = 100


def event_list(
    status: str, *, club: str | None = None, limit: int = LIST_LIMIT
) -> list[Tournament]:
    """The events of one list (``upcoming``, ``running``, ``finished``), of one club if given.

    :raises EventError: ``bad_request`` for another list name.
    """
    if status not in LISTS:
        raise EventError("bad_request", f"status: one of {', '.join(LISTS)}")
    found = (
        Tournament.objects.filter(status__in=LISTS[status])
        .exclude(PRIVATE)
        .select_related("club", "champion")
    )
    if club:
        found = found.filter(club__slug=club)
    return list(found.order_by(*LIST_ORDER[status])[:limit])


def drafts_for(user: User) -> QuerySet[Tournament]:
    """The drafts ``user`` organizes (``access.is_event_admin``: staff, the event's admins, its
    club's admins), so the list shows exactly the drafts whose pages open (those cancelled too,
    which stay private). Not their creator as such: one who is no longer an organizer (a club
    admin no more) no longer sees them."""
    drafts = Tournament.objects.filter(PRIVATE).select_related("club")
    if not user.is_authenticated:
        return drafts.none()
    if user.is_staff:
        return drafts
    clubs = ClubMembership.objects.filter(user=user, role=ClubMembership.Role.ADMIN)
    mine = Q(admins=user) | Q(club__in=clubs.values("club"))
    return drafts.filter(mine).distinct()


def clubs_with_events() -> QuerySet[Club]:
    return Club.objects.filter(tournaments__in=Tournament.objects.exclude(PRIVATE)).distinct()


def organizer_clubs(user: User) -> QuerySet[Club]:
    """The clubs ``user`` may create events for: every club for staff, else those they admin."""
    if user.is_staff:
        return Club.objects.all()
    return Club.objects.filter(
        memberships__user=user, memberships__role=ClubMembership.Role.ADMIN
    ).distinct()


def may_create_events(user: User) -> bool:
    """Staff, and the admins of a club (for their clubs' events)."""
    return user.is_authenticated and (user.is_staff or organizer_clubs(user).exists())


def event_get(slug: str, viewer: Any = None) -> Tournament:
    """The event called ``slug``; a private one (a draft) only for its organizers.

    :raises EventError: ``not_found`` (404).
    """
    event = Tournament.objects.select_related("club", "ruleset", "champion").filter(slug=slug)
    found = event.first()
    if found is None or (found.private and (viewer is None or not is_event_admin(viewer, found))):
        raise EventError("not_found", f"no event {slug!r}", 404)
    return found


def current_round(event: Tournament) -> Round | None:
    """The latest round planned: the one running or waiting, else the last one played."""
    return event.round_set.order_by("-number").first()


def format_name(slug: str) -> str:
    return FORMAT_NAMES.get(slug, slug)


def event_rules(event: Tournament) -> Rules | None:
    """The rules the event's tables play: its rule set with its overrides and the event's own
    clock, exactly as ``rounds.start_round`` opens them (None if the rule set no longer takes
    the overrides). The page's rules text and its clock row both read this, so they agree."""
    clock = {"turn_seconds": event.turn_seconds, "time_bank_seconds": event.time_bank_seconds}
    try:
        return event.ruleset.to_rules({**event.overrides, **clock})
    except ConfigError:
        return None


def event_rules_summary(event: Tournament) -> list[str]:
    """The event's rules in plain English (empty if its rule set no longer takes the overrides)."""
    rules = event_rules(event)
    return rules_summary(rules) if rules else []


def event_detail(event: Tournament, viewer: Any = None) -> EventOutput:
    """Everything the event's page header and ``GET /api/events/{slug}/`` show."""
    counts = Counter(event.entries.values_list("status", flat=True))
    latest = current_round(event)
    rows = standings_by_entry(event)
    return {
        **event_summary(event),
        "description": event.description,
        "ruleset": event.ruleset.slug,
        "ruleset_name": event.ruleset.name,
        "overrides": event.overrides,
        "turn_seconds": event.turn_seconds,
        "time_bank_seconds": event.time_bank_seconds,
        "rated": event.rated,
        "table_size": event.table_size,
        "rounds": event.rounds,
        "options": event.options,
        "seeding": event.seeding,
        "online": event.online,
        "auto_advance": event.auto_advance,
        "paused": event.paused_at is not None,
        "registration_opens_at": event.registration_opens_at,
        "registration_closes_at": event.registration_closes_at,
        "check_in_opens_at": event.check_in_opens_at,
        "check_in_closes_at": event.check_in_closes_at,
        "started_at": event.started_at,
        "finished_at": event.finished_at,
        "max_players": event.max_players,
        "conditions": {
            "min_rating": event.min_rating,
            "max_rating": event.max_rating,
            "min_rated_games": event.min_rated_games,
            "members_only": event.members_only,
        },
        "counts": {status: counts.get(status, 0) for status in Entry.Status.values},
        "status_text": event_status_line(event, latest, dict(counts), rows),
        "current_round": round_brief(latest) if latest else None,
        "my_entry": my_entry(event, viewer, rows),
        "is_admin": viewer is not None and is_event_admin(viewer, event),
    }


def event_summary(event: Tournament) -> EventSummaryOutput:
    """An event as the lists show it."""
    return {
        "slug": event.slug,
        "name": event.name,
        "url": event.get_absolute_url(),
        "club": event.club.slug if event.club else None,
        "club_name": event.club.name if event.club else None,
        "status": event.status,
        "status_label": event.get_status_display(),
        "format": event.format,
        "format_name": format_name(event.format),
        "starts_at": event.starts_at,
        "champion": event.champion.username if event.champion else None,
    }


def round_brief(round_: Round) -> RoundBriefOutput:
    return {
        "id": round_.pk,
        "number": round_.number,
        "name": round_.name,
        "status": round_.status,
    }


def entry_names(event: Tournament) -> dict[int, str]:
    return dict(event.entries.values_list("pk", "user__username"))


def event_rounds(event: Tournament) -> list[RoundOutput]:
    """Every round planned, first to last, each with its tables (see ``round_row``)."""
    names = entry_names(event)
    rounds = event.round_set.order_by("number").prefetch_related("tables__table")
    return [round_row(r, names) for r in rounds]


def round_row(round_: Round, names: dict[int, str]) -> RoundOutput:
    return {
        **round_brief(round_),
        "status_label": round_.get_status_display(),
        "started_at": round_.started_at,
        "finished_at": round_.finished_at,
        "byes": [names[p] for p in round_.byes if p in names],
        "tables": [table_row(t, names) for t in round_.tables.all()],
    }


def table_row(table: RoundTable, names: dict[int, str]) -> RoundTableOutput:
    """A round's table: who sits (usernames in seat order), its live game and its result
    (``placements`` and ``points`` by username, ``None`` until it is in)."""
    players = [names[p] for p in table.players]
    game: Table | None = table.table
    placements: dict[str, int] | None = None
    points: dict[str, int] | None = None
    if table.places is not None:
        placements = dict(zip(players, table.places, strict=True))
        points = dict(zip(players, table.points or [], strict=False))
    return {
        "id": table.pk,
        "key": table.key,
        "players": players,
        "table": table.table_id,
        "url": game.get_absolute_url() if game else None,
        "playing": game is not None and game.status == Table.Status.PLAYING,
        "placements": placements,
        "points": points,
        "adjudicated": table.adjudicated,
        "seats": [
            {
                "username": name,
                "place": placements[name] if placements else None,
                "points": (points or {}).get(name),
            }
            for name in players
        ],
    }


def round_table_get(event_id: int, round_table_id: int) -> RoundTable:
    """The event's round table ``round_table_id``, with its round, the event and its game.

    :raises EventError: ``not_found`` (404).
    """
    found = (
        RoundTable.objects.select_related("table", "round__tournament")
        .filter(pk=round_table_id, round__tournament_id=event_id)
        .first()
    )
    if found is None:
        raise EventError("not_found", f"no table {round_table_id} in this event", 404)
    return found


def tiebreak_names(rows: list[dict[str, Any]]) -> list[str]:
    """The tiebreak columns, in the order the format applies them."""
    names: list[str] = []
    for row in rows:
        names += [n for n in row["tiebreaks"] if n not in names]
    return names


def event_standings(event: Tournament) -> StandingsOutput:
    """The standings as of the last finished round (``rows`` empty before the first)."""
    last = event.round_set.filter(status=Round.Status.FINISHED).order_by("-number").first()
    return {
        "round": last.number if last else None,
        "final": event.status == Status.FINISHED,
        "tiebreaks": tiebreak_names(event.standings),
        "rows": event.standings,
    }


def event_announcements(event: Tournament, limit: int = 50) -> list[AnnouncementOutput]:
    notes = event.announcements.select_related("author")[:limit]
    return [
        {"id": n.pk, "text": n.text, "author": n.author.username, "created_at": n.created_at}
        for n in notes
    ]


def event_audit(event: Tournament, limit: int = 200) -> list[dict[str, Any]]:
    """The organizers' actions, latest first (``actor`` None: the service itself)."""
    rows = AuditEntry.objects.filter(tournament=event).select_related("actor")[:limit]
    return [
        {
            "action": a.action,
            "actor": a.actor.username if a.actor else None,
            "details": a.details,
            "created_at": a.created_at,
        }
        for a in rows
    ]


def results_rows(event: Tournament) -> list[list[Any]]:
    """Every seat of every table with a result: what ``results.csv`` holds, header first."""
    names = entry_names(event)
    header = ["round", "round_name", "table", "game", "player", "place", "points", "adjudicated"]
    rows: list[list[Any]] = [header]
    tables = (
        RoundTable.objects.filter(round__tournament=event, places__isnull=False)
        .select_related("round")
        .order_by("round__number", "index")
    )
    for t in tables:
        points = t.points or [None] * len(t.players)
        places = t.places or []  # never empty: only tables with their result are read
        for pid, place, score in zip(t.players, places, points, strict=True):
            rows.append(
                [
                    t.round.number,
                    t.round.name,
                    t.key,
                    t.table_id or "",
                    names[pid],
                    place,
                    "" if score is None else score,
                    t.adjudicated,
                ]
            )
    return rows


def standings_rows(event: Tournament) -> list[list[Any]]:
    """The standings as ``standings.csv`` holds them, header first."""
    table = event_standings(event)
    header = ["rank", "player", "points", *table["tiebreaks"], "eliminated"]
    rows: list[list[Any]] = [header]
    for row in table["rows"]:
        breaks = [row["tiebreaks"].get(n, "") for n in table["tiebreaks"]]
        out = "true" if row["eliminated"] else "false"
        rows.append([row["rank"], row["username"], row["points"], *breaks, out])
    return rows


def require_creator(user: User, club: str | None) -> None:
    """:raises EventError: ``forbidden`` unless ``user`` is staff, or an admin of ``club``."""
    if user.is_staff:
        return
    if not club or not organizer_clubs(user).filter(slug=club).exists():
        raise forbidden("only staff, or a club's admins for their club, create events")
