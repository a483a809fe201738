"""How a matrix row is written, and the body each call sends (``test_authz_matrix.py``).

A row is one call, ``"METHOD /path/"`` with ``{placeholders}`` filled from the world (an
event's slug by its status, a table's id by its name, the ids the organizer calls take), and
what each role gets. Roles can be given by group: ``everyone``, ``logged`` (all but anon),
``outsiders`` (other, spectator, rival) and ``organizers`` (host, staff, root); a role named
alone wins over its group.

What a role gets:
- a status code (REST, pages): a refusal (4xx) must change nothing, a 404 must say
  ``not_found``;
- ``login``: sent to the login page (a page or form for logged-in users), nothing changed;
- ``done`` / ``same`` / ``refused``: a form posted from a page, which always redirects back:
  done says so and changed something, same says so and changed nothing (a repeat), refused
  shows an error and changed nothing; ``invalid``: the form shown again (200), nothing changed;
- sockets: ``accept`` (with a ``state`` or event frame), ``closed`` (4404: hidden or unknown),
  ``done`` (accepted: the table moved on), ``quiet`` (accepted, nothing to say), or an error
  code (that ``error`` frame, nothing changed).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tests.accounts.factories import PASSWORD
from tests.hostile.authz_world import ROLES, World, ann_move
from tournaments.models import Entry, RoundTable

GROUPS = {
    "everyone": tuple(ROLES),
    "logged": tuple(r for r in ROLES if r != "anon"),
    "outsiders": ("other", "spectator", "rival"),
    "organizers": ("host", "staff", "root"),
}
Body = Callable[[World, str], dict[str, Any]]


@dataclass(frozen=True)
class Row:
    call: str  # "METHOD /path/" with {placeholders}
    expect: dict[str, Any]
    body: Body | None = None
    private: str = ""  # what the answer must hide from whom: "view", "tools" (see the tests)
    kind: str = field(default="")

    @property
    def method(self) -> str:
        return self.call.split(" ", 1)[0]

    @property
    def template(self) -> str:
        return self.call.split(" ", 1)[1]

    def path(self, world: World) -> str:
        return self.template.format(**params(world))


def row(call: str, body: Body | None = None, private: str = "", **cells: Any) -> Row:
    """A row; every role must get an expectation, from a group or by name."""
    expect: dict[str, Any] = {}
    for group, roles in GROUPS.items():
        if group in cells:
            expect.update(dict.fromkeys(roles, cells[group]))
    expect.update({role: cells[role] for role in ROLES if role in cells})
    unknown = set(cells) - set(GROUPS) - set(ROLES)
    assert not unknown and set(expect) == set(ROLES), (
        f"{call}: {unknown or set(ROLES) - set(expect)}"
    )
    kind = "ws" if call.startswith("WS") else "api" if " /api/" in call else "page"
    return Row(call, expect, body, private, kind)


def params(world: World) -> dict[str, Any]:
    slugs = {status: event.slug for status, event in world.events.items()}
    tables = {f"t_{name}": table.pk for name, table in world.tables.items()}
    return {**slugs, **tables, **world.ids}


# --- bodies ---------------------------------------------------------------------------------------


def _names(round_table_id: int) -> list[str]:
    players = RoundTable.objects.get(pk=round_table_id).players
    names = dict(Entry.objects.filter(pk__in=players).values_list("pk", "user__username"))
    return [names[p] for p in players]


def places(world: World, role: str) -> dict[str, Any]:
    names = _names(world.ids["decide"])
    return {"places": {n: i + 1 for i, n in enumerate(names)}, "reason": "matrix"}


def place_fields(world: World, role: str) -> dict[str, Any]:
    names = _names(world.ids["decide"])
    return {**{f"place-{i}": i + 1 for i in range(len(names))}, "reason": "matrix"}


def hands(world: World, role: str) -> dict[str, Any]:
    first, *rest = _names(world.ids["face_table"])
    return {
        "hands": [{first: {"table": 60, "hand": 0}, **{n: {"table": 0, "hand": 10} for n in rest}}]
    }


def hands_text(world: World, role: str) -> dict[str, Any]:
    first, *rest = _names(world.ids["face_table"])
    return {"hands": ", ".join([f"{first} 60/0", *(f"{n} 0/10" for n in rest)])}


def _waiting_tables(world: World) -> list[list[int]]:
    tables = RoundTable.objects.filter(round_id=world.ids["round"]).order_by("index")
    return [list(t.players) for t in tables]


def reseat(world: World, role: str) -> dict[str, Any]:
    (a, b), (c, d) = _waiting_tables(world)
    return {"tables": [[a, c], [b, d]]}


def reseat_text(world: World, role: str) -> dict[str, Any]:
    names = dict(Entry.objects.values_list("pk", "user__username"))
    (a, b), (c, d) = _waiting_tables(world)
    return {"tables": f"{names[a]}, {names[c]}\n{names[b]}, {names[d]}"}


def _check_in_entries(world: World) -> list[int]:
    event = world.events["check_in"]
    return list(Entry.objects.filter(tournament=event).order_by("pk").values_list("pk", flat=True))


def seed_order(world: World, role: str) -> dict[str, Any]:
    return {"order": _check_in_entries(world)[::-1]}


def seed_move(world: World, role: str) -> dict[str, Any]:
    return {"entry": _check_in_entries(world)[0], "move": "down"}


def move(world: World, role: str) -> dict[str, Any]:
    return ann_move(world)


def register(world: World, role: str) -> dict[str, Any]:
    return {"username": f"new-{role}", "password": PASSWORD, "email": f"{role}@example.com"}


def credentials(world: World, role: str) -> dict[str, Any]:
    return {"username": ROLES[role] or "nobody", "password": PASSWORD}


def event_form(world: World, role: str) -> dict[str, Any]:
    """The create-event form for a hearts club event, every required field filled."""
    return {
        "name": "Form night",
        "club": "hearts",
        "ruleset": "standard",
        "format": "swiss",
        "table_size": 2,
        "turn_seconds": 60,
        "time_bank_seconds": 0,
        "seeding": "rating",
        "min_rated_games": 0,
    }


def fixed(**body: Any) -> Body:
    return lambda world, role: body


rematch = fixed(accept=True)
say = fixed(text="good game")
