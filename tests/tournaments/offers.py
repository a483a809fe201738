"""Helpers of the tests that hold the event page to its services: every call one person might
make on an event, tried on its service (and undone), what the page and its context offer, and
events where an organizer plays.

A call is named the same way throughout, whatever its ids: ``register``, ``check-in``,
``withdraw``; ``tool:<action>`` for the organizer's buttons; ``remove:<username>``;
``result:<round>.<table>`` and ``adjudicate:<round>.<table>`` (round number, table's place in it
from 1); ``reseat:<round>`` and ``round-start:<round>``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

from django.db import transaction
from django.test import Client, RequestFactory

from accounts.models import Club, ClubMembership, User
from config.errors import ServiceError
from games.models import Table
from tests.tournaments.factories import started_event, user_named
from tournaments import entries, organizer, services
from tournaments.access import is_event_admin
from tournaments.models import AuditEntry, Entry, Round, RoundTable, Tournament
from tournaments.page_context import page_context
from tournaments.refusals import STILL_IN
from tournaments.scorekeeper import scorekeeper_enter
from tournaments.seed_order import event_seed_order, seeding_preview


class _Undo(Exception):
    pass


def snapshot(event: Tournament) -> tuple[Any, ...]:
    """What any event call changes: the event's own fields, its entries, rounds, tables (and
    their games) and audit log."""
    fresh = Tournament.objects.get(pk=event.pk)
    tables = RoundTable.objects.filter(round__tournament=event).order_by("pk")
    return (
        fresh.status,
        fresh.paused_at,
        fresh.registration_closes_at,
        fresh.check_in_closes_at,
        list(Entry.objects.filter(tournament=event).order_by("pk").values_list("status")),
        list(event.round_set.order_by("pk").values_list("status")),
        list(tables.values_list("places", "players", "table_id", "adjudicated")),
        list(Table.objects.filter(tournament_table__in=tables).values_list("status", "version")),
        AuditEntry.objects.filter(tournament=event).count(),
    )


def changes(event: Tournament, call: Callable[[], object]) -> bool:
    """Whether ``call`` is accepted and changes something (a call that changes nothing, like
    registering twice, is not worth offering), tried in a savepoint and undone."""
    before = snapshot(event)
    try:
        with transaction.atomic():
            call()
            changed = snapshot(event) != before
            raise _Undo
    except _Undo:
        return changed
    except ServiceError:
        return False


def table_name(table: RoundTable) -> str:
    return f"{table.round.number}.{table.index + 1}"


def _still_in(table: RoundTable) -> list[str]:
    rows = Entry.objects.filter(pk__in=table.players, status=Entry.Status.PLAYING)
    return list(rows.values_list("user__username", flat=True))


def _places(table: RoundTable) -> dict[str, int]:
    """A valid decision of ``table``: every player its decision needs, placed in some order."""
    if table.table is not None and table.table.status == Table.Status.PLAYING:
        names = list(table.table.seat_set.values_list("user__username", flat=True))
    else:
        names = _still_in(table)
    return {name: i + 1 for i, name in enumerate(names)}


def _hands(table: RoundTable) -> list[dict[str, dict[str, int]]]:
    names = _still_in(table)
    return [{name: {"table": 20 + i, "hand": 5 * i} for i, name in enumerate(names)}]


def candidate_calls(event: Tournament, viewer: User) -> Iterator[tuple[str, Callable[[], object]]]:
    """Every call ``viewer`` might make on ``event`` from its page, with valid input."""
    pk = event.pk
    yield "register", lambda: entries.entry_register(event_id=pk, user=viewer)
    yield "check-in", lambda: entries.entry_check_in(event_id=pk, user=viewer)
    yield "withdraw", lambda: entries.entry_withdraw(event_id=pk, user=viewer)
    if not is_event_admin(viewer, event):
        return
    yield from _tool_calls(pk, viewer)
    for entry in event.entries.filter(status__in=STILL_IN).select_related("user"):
        yield f"remove:{entry.user.username}", _remover(pk, entry.pk, viewer)
    for table in RoundTable.objects.filter(round__tournament=event).select_related("round"):
        yield f"result:{table_name(table)}", _result(pk, table, viewer)
        yield f"adjudicate:{table_name(table)}", _decider(pk, table, viewer)
    for round_ in event.round_set.all():
        yield f"reseat:{round_.number}", _reseater(pk, round_, viewer)
        yield f"round-start:{round_.number}", _round_starter(pk, round_, viewer)


def _tool_calls(pk: int, actor: User) -> Iterator[tuple[str, Callable[[], object]]]:
    for name, service in (
        ("open-registration", services.event_open_registration),
        ("open-check-in", services.event_open_check_in),
        ("close", services.event_close_window),
        ("start", services.event_start),
        ("pause", organizer.event_pause),
        ("resume", organizer.event_resume),
    ):
        yield f"tool:{name}", _tool(service, pk, actor)
    yield "tool:cancel", lambda: services.event_cancel(event_id=pk, actor=actor, reason="test")
    yield "tool:seed", lambda: event_seed_order(event_id=pk, actor=actor, order=_reversed_seeds(pk))


def _reversed_seeds(pk: int) -> list[int]:
    """The seeding as it stands, bottom seed first: a change whenever two players are in."""
    return [row["entry"] for row in seeding_preview(Tournament.objects.get(pk=pk))][::-1]


def _tool(service: Any, pk: int, actor: User) -> Callable[[], object]:
    return lambda: service(event_id=pk, actor=actor)


def _remover(pk: int, entry_id: int, actor: User) -> Callable[[], object]:
    return lambda: organizer.entry_remove(
        event_id=pk, entry_id=entry_id, actor=actor, disqualify=False, reason="test"
    )


def _result(pk: int, table: RoundTable, actor: User) -> Callable[[], object]:
    return lambda: scorekeeper_enter(
        event_id=pk, round_table_id=table.pk, hands=_hands(table), actor=actor
    )


def _decider(pk: int, table: RoundTable, actor: User) -> Callable[[], object]:
    return lambda: organizer.round_table_adjudicate(
        event_id=pk, round_table_id=table.pk, places=_places(table), actor=actor, reason="test"
    )


def _reseater(pk: int, round_: Round, actor: User) -> Callable[[], object]:
    seating = [list(t.players) for t in round_.tables.all()]
    return lambda: organizer.round_reseat(
        event_id=pk, round_id=round_.pk, tables=seating, actor=actor
    )


def _round_starter(pk: int, round_: Round, actor: User) -> Callable[[], object]:
    return lambda: organizer.round_start(event_id=pk, round_id=round_.pk, actor=actor)


def accepted(event: Tournament, viewer: User) -> set[str]:
    """The calls ``viewer`` may make on ``event`` now, as its services say."""
    return {name for name, call in candidate_calls(event, viewer) if changes(event, call)}


def offered_by_context(event: Tournament, viewer: User) -> set[str]:
    """What the page's context (``player_panel``, ``organizer_tools``) offers ``viewer``."""
    request = RequestFactory().get(event.get_absolute_url())
    request.user = viewer
    context = page_context(request, Tournament.objects.get(pk=event.pk))
    offers = set(context["you"]["actions"])
    tools = context.get("tools")
    if tools is None:
        return offers
    names = dict(Round.objects.filter(tournament=event).values_list("pk", "number"))
    offers |= {f"tool:{k.replace('_', '-')}" for k, v in tools.items() if v is True}
    offers |= {f"remove:{e['username']}" for e in tools["players"]}
    offers |= {"tool:seed"} if tools["seeding"] else set()
    for row in tools["open_tables"]:
        name = table_name(RoundTable.objects.select_related("round").get(pk=row["id"]))
        offers |= {f"result:{name}"} if row["enter_result"] else set()
        offers |= {f"adjudicate:{name}"} if row["adjudicate"] else set()
    for row in tools["waiting_rounds"]:
        number = names[row["id"]]
        offers |= {f"reseat:{number}"} if row["reseat"] else set()
        offers |= {f"round-start:{number}"} if row["start"] else set()
    return offers


_FORM = re.compile(r'<form[^>]*action="/events/[^/"]+/([^"]*)"')


def offered_by_page(event: Tournament, viewer: User) -> set[str]:
    """The forms of the event page as ``viewer`` gets it, named as the calls they post."""
    client = Client()
    client.force_login(viewer)
    html = client.get(event.get_absolute_url()).content.decode()
    tables = {
        t.pk: t for t in RoundTable.objects.filter(round__tournament=event).select_related("round")
    }
    rounds = dict(Round.objects.filter(tournament=event).values_list("pk", "number"))
    offers: set[str] = set()
    for path in _FORM.findall(html):
        offers |= _form_call(path, tables, rounds)
    if "remove-player" in {p.strip("/") for p in _FORM.findall(html)}:
        section = html[html.index('id="remove-entry"') :]
        section = section[: section.index("</select>")]
        names = re.findall(r'<option value="\d+">([^ ]+) \(', section)
        offers |= {f"remove:{name}" for name in names}
    return offers


_PLAYER = {"register/": "register", "check-in/": "check-in", "withdraw/": "withdraw"}
_NOT_CALLS = ("announce/", "remove-player/")


def _form_call(path: str, tables: dict[int, RoundTable], rounds: dict[int, int]) -> set[str]:
    if path in _PLAYER:
        return {_PLAYER[path]}
    if path in _NOT_CALLS:
        return set()  # the announcement is always there; removals are read from the list
    found = re.fullmatch(r"tables/(\d+)/(result|adjudicate)/", path)
    if found:
        return {f"{found[2]}:{table_name(tables[int(found[1])])}"}
    found = re.fullmatch(r"rounds/(\d+)/(reseat|start)/", path)
    if found:
        call = "reseat" if found[2] == "reseat" else "round-start"
        return {f"{call}:{rounds[int(found[1])]}"}
    return {f"tool:{path.strip('/')}"}


# --- an organizer who plays in their own event ---------------------------------------------------


def olga_plays(director: User, players: list[str], **fields: object) -> tuple[Tournament, User]:
    """A running event of the club Hearts, whose admin Olga plays in it."""
    club = Club.objects.create(name="Hearts", slug="hearts")
    olga = user_named("olga")
    ClubMembership.objects.create(club=club, user=olga, role=ClubMembership.Role.ADMIN)
    return started_event(director, players, club=club, **fields), olga


def olga_in_a_swiss(director: User, **fields: object) -> tuple[Tournament, User]:
    return olga_plays(director, ["ann", "bob", "cid", "olga"], format="swiss", rounds=2, **fields)


def olga_in_a_swiss_waiting(director: User) -> tuple[Tournament, User]:
    return olga_in_a_swiss(director, auto_advance=False)


def olga_face_to_face(director: User) -> tuple[Tournament, User]:
    return olga_plays(director, ["ann", "olga"], online=False)
