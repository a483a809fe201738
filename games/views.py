"""Pages: the lobby (open tables and the create-table form), the table page and its replay.

The table page is rendered once by the server and then kept live by ``static/js/table.js`` over
the WebSocket protocol. Join, leave and start are plain POST forms calling the same services as
the API.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from games import services
from games.clock_services import can_manage
from games.engine.rules import Rules
from games.engine.summary import rules_summary
from games.errors import TableError
from games.forms import LobbyFilterForm, TableForm
from games.listing import TableFilter, table_filter, tables_listed
from games.models import Table
from games.refusals import seat_actions
from games.selectors import has_replay, table_answer, table_get

# The house rules of RULES.md, as the lobby names those a table plays with.
HOUSE_RULES = {
    "must_discard_to_go_out": "must discard to go out",
    "top_discard_must_meld": "taken top discard must be melded",
    "deep_pickup_new_meld": "deep pickups start a new meld",
    "rummy_call": "Rummy! calls",
    "winner_must_go_out": "winner must go out",
}
LOBBY_SIZE = 50
FILTERS = ("ruleset", "seats", "club", "rated")


def lobby_row(table: Table, visitor: Any) -> dict[str, Any]:
    """What the lobby shows of an open table: its rules in brief, who sits there, and whether
    the visitor may join it (``games.refusals``: a club's table only for its members)."""
    rules = Rules.from_dict(table.rules)
    sentences = rules_summary(rules)
    # Target, cards and jokers, card values: the summary's first, second and fourth sentences.
    brief = " ".join(sentences[i] for i in (0, 1, 3))
    seats = list(table.seat_set.all())
    return {
        "table": table,
        "summary": brief,
        "house": [label for name, label in HOUSE_RULES.items() if getattr(rules, name)],
        "players": [seat.user.username for seat in seats],
        "may_join": seat_actions(table, visitor, seats)["join"],
    }


def _filters(request: HttpRequest) -> tuple[TableFilter, str | None]:
    """The lists' filters from the query, or none and why (a hand-edited address)."""
    query = {k: v for k, v in request.GET.dict().items() if k in FILTERS}
    try:
        return table_filter(query), None
    except TableError as exc:
        return TableFilter(), exc.message


def lobby_lists(request: HttpRequest) -> dict[str, Any]:
    """The lobby's two lists, filtered: open tables (to join) and games in play (to watch)."""
    wanted, problem = _filters(request)
    waiting = tables_listed(replace(wanted, status=Table.Status.WAITING))[:LOBBY_SIZE]
    playing = tables_listed(replace(wanted, status=Table.Status.PLAYING))[:LOBBY_SIZE]
    return {
        "rows": [lobby_row(t, request.user) for t in waiting],
        "playing": [watch_row(t) for t in playing],
        "filter_problem": problem,
    }


def watch_row(table: Table) -> dict[str, Any]:
    """What the lobby shows of a game in play: who plays, under which rules and clock."""
    return {"table": table, "players": [seat.user.username for seat in table.seat_set.all()]}


def lobby(request: HttpRequest) -> HttpResponse:
    """Open tables and games in play, filtered, kept live by ``static/js/lobby.js`` (which asks
    for ``?part=lists`` again as the lobby socket tells of changes); quick play's buttons
    (drawn by the script from the socket's ``pools``); a logged-in visitor may create a table."""
    if request.method == "GET" and request.GET.get("part") == "lists":
        return render(request, "games/_lobby_lists.html", lobby_lists(request))
    form = TableForm(request.POST or None, user=request.user)
    if request.method == "POST":
        if not request.user.is_authenticated:
            return redirect(f"/accounts/login/?next={request.path}")
        if form.is_valid():
            data = form.cleaned_data
            try:
                table = services.table_create(
                    creator=request.user,  # type: ignore[arg-type]
                    ruleset=data["ruleset"],
                    seats=data["seats"],
                    overrides=form.overrides(),
                    turn_seconds=data["turn_seconds"],
                    time_bank_seconds=data["time_bank_seconds"],
                    between_hands_seconds=data["between_hands_seconds"],
                    rated=data["rated"],
                    club=data.get("club"),
                )
            except TableError as exc:
                form.add_error(None, exc.message)
            else:
                return redirect(table)
    context = {"form": form, "filters": LobbyFilterForm(request.GET or None)}
    return render(request, "games/lobby.html", {**context, **lobby_lists(request)})


def table_page(request: HttpRequest, table_id: int) -> HttpResponse:
    try:
        table = table_get(table_id)
    except TableError as exc:
        raise Http404(exc.message) from None
    # What this visitor may do with a seat, by the services' own checks (games.refusals): the
    # first render of the join, leave and start forms, and the payload's ``actions``, which
    # table.js follows as each state frame brings them anew.
    payload = table_answer(table, request.user)
    actions = payload["actions"]
    context = {
        "table": table,
        "payload": payload,
        "can_join": actions["join"],
        "can_leave": actions["leave"],
        "can_start": actions["start"],
        # Pause and resume buttons: shown by table.js while the game is in play.
        "can_manage": can_manage(request.user, table),  # type: ignore[arg-type]
    }
    return render(request, "games/table.html", context)


def table_replay_page(request: HttpRequest, table_id: int) -> HttpResponse:
    """A finished game step by step (``static/js/replay.js`` reads the replay API); before the
    game is over, a page saying there is no replay yet."""
    try:
        table = table_get(table_id)
    except TableError as exc:
        raise Http404(exc.message) from None
    return render(request, "games/replay.html", {"table": table, "ready": has_replay(table)})


def _table_post(request: HttpRequest, table_id: int, action: str) -> HttpResponse:
    call = {
        "join": services.table_join,
        "leave": services.table_leave,
        "start": services.table_start,
    }[action]
    try:
        call(table_id=table_id, user=request.user)  # type: ignore[arg-type]
    except TableError as exc:
        messages.error(request, exc.message)
    if action == "leave":
        return redirect("games:lobby")
    return redirect("games:table", table_id=table_id)


@require_POST
@login_required
def table_join(request: HttpRequest, table_id: int) -> HttpResponse:
    return _table_post(request, table_id, "join")


@require_POST
@login_required
def table_leave(request: HttpRequest, table_id: int) -> HttpResponse:
    return _table_post(request, table_id, "leave")


@require_POST
@login_required
def table_start(request: HttpRequest, table_id: int) -> HttpResponse:
    return _table_post(request, table_id, "start")
