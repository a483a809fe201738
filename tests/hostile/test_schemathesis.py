"""Schemathesis over the whole OpenAPI schema: every operation, called anonymously, as a player
seated at a started table, and as staff running an event, through Django's WSGI application in
this process. No answer may be a server error, and every answer must be one the schema
documents: its status code, its content type, its body and its headers.

Path parameters are drawn half from what schemathesis generates and half from objects made for
the test (a started table, an event with a planned round), so the calls reach past the 404 into
the views' real work. Hypothesis is derandomized, so a run repeats itself.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
import schemathesis
from django.core.signals import request_finished, request_started
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rest_framework.authtoken.models import Token
from rest_framework.throttling import ScopedRateThrottle
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from games import services
from tests.accounts.factories import UserFactory
from tests.games.tables import started_table
from tests.tournaments.factories import FOUR, entry_of, round_of, started_event, user_named
from tournaments.models import Tournament

# Views run in the request's own transactions and commit, as in production.
pytestmark = pytest.mark.django_db(transaction=True)

CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
    response_headers_conformance,
]

# Per operation, mode and identity (derandomized: the same cases every run). 20 took two minutes
# on a slow CI machine, where the whole run must stay under 20; a hundred found nothing more than
# 20 did, in four minutes.
EXAMPLES = 12
FUZZ = settings(
    max_examples=EXAMPLES,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=list(HealthCheck),
)

CONFIG = schemathesis.Config.from_dict(
    {
        "generation": {
            # The identities are ours (the tests' Authorization headers); generated credentials
            # would only turn each call into a 401 for a made-up token.
            "with-security-parameters": False,
            "max-examples": EXAMPLES,
            "deterministic": True,
        },
    }
)


# Operation label -> the status codes it answered with.
Seen = dict[str, set[int]]


@dataclass
class World:
    """Objects of the test database the generated calls are pointed at."""

    tokens: dict[str, str] = field(default_factory=dict)
    path: dict[str, list[Any]] = field(default_factory=dict)

    def auth(self, username: str) -> dict[str, str]:
        return {"Authorization": f"Token {self.tokens[username]}"}


def _event_ids(event: Tournament) -> dict[str, list[Any]]:
    first = round_of(event)
    return {
        # Rule sets share the parameter's name with events.
        "slug": [event.slug, "standard"],
        "round_id": [first.pk],
        "round_table_id": list(first.tables.values_list("pk", flat=True)),
        "entry_id": [entry_of(event, "cid").pk],
    }


@pytest.fixture
def world(monkeypatch: pytest.MonkeyPatch) -> World:
    """ann sits at a started table against bob and at a waiting table of her own; the director
    (staff) runs a started Swiss of four; everyone has an API token."""
    # Turn timers stay out of the broker: no worker consumes them in this test.
    monkeypatch.setattr("games.timers.send", lambda *args, **kwargs: None)
    # Sign-ups would use up the `auth` rate before the token call is fuzzed (throttling has
    # its own tests in tests/accounts/test_apis.py).
    monkeypatch.setattr(ScopedRateThrottle, "THROTTLE_RATES", {"auth": "100000/min"})
    ann, bob = UserFactory(username="ann"), UserFactory(username="bob")
    director = UserFactory(username="director", is_staff=True)
    playing = started_table([ann, bob])
    waiting = services.table_create(creator=ann, ruleset="standard", seats=4)
    event = started_event(director, [ann, *(user_named(n) for n in FOUR[1:])], format="swiss")
    world = World(
        path={"table_id": [playing.pk, waiting.pk], "username": ["ann"], **_event_ids(event)}
    )
    for user in (ann, bob, director):
        world.tokens[user.username] = Token.objects.get_or_create(user=user)[0].key
    return world


def _real_values(world: World, path_parameters: dict[str, Any] | None) -> st.SearchStrategy[Any]:
    """Each generated path parameter, or one of the world's values for it."""
    if not path_parameters:
        return st.just(path_parameters)
    known = {
        name: st.sampled_from(world.path[name]) for name in path_parameters if name in world.path
    }
    real = st.fixed_dictionaries({**{k: st.just(v) for k, v in path_parameters.items()}, **known})
    return st.one_of(real, st.just(path_parameters))


@pytest.fixture
def keep_connection() -> Iterator[None]:
    """Keep the test's database connection across requests, as Django's test client does: the
    test settings close it after each request (CONN_MAX_AGE 0), and a new PostgreSQL connection
    per call would be most of this test's time."""
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


@pytest.fixture
def api_schema(world: World, keep_connection: None) -> schemathesis.BaseSchema:
    """The schema as the application serves it, its path parameters pointed at the world."""
    schema = schemathesis.openapi.from_wsgi("/api/schema/", get_wsgi_application(), config=CONFIG)

    @schema.hook
    def flatmap_path_parameters(context: Any, path_parameters: dict[str, Any]) -> Any:
        return _real_values(world, path_parameters)

    return schema


def _fuzz(operation: Any, mode: GenerationMode, headers: dict[str, str], seen: Seen) -> str | None:
    """Call ``operation`` with generated cases; the first failure found (shrunk), or None."""

    @FUZZ
    @given(case=operation.as_strategy(generation_mode=mode))
    def run(case: schemathesis.Case) -> None:
        response = case.call_and_validate(headers=headers, checks=CHECKS)
        seen.setdefault(operation.label, set()).add(response.status_code)

    try:
        run()
    except (AssertionError, BaseExceptionGroup) as exc:
        return f"{operation.label} [{mode.value}]: {exc}"
    return None


def _modes(operation: Any) -> list[GenerationMode]:
    """Valid data always; invalid data too where there is some to send: a query, a body or a
    typed path parameter (a free-form string in the path has no invalid value)."""
    typed_path = any(
        (p.definition.get("schema") or {}).get("type") != "string"
        for p in operation.path_parameters
    )
    if typed_path or len(operation.query) or len(operation.body):
        return [GenerationMode.POSITIVE, GenerationMode.NEGATIVE]
    return [GenerationMode.POSITIVE]


def fuzz_all(schema: schemathesis.BaseSchema, headers: dict[str, str]) -> tuple[list[str], Seen]:
    """Every operation of the schema, fuzzed with valid and invalid data: the failures found,
    and the status codes each operation answered with."""
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) >= 40, "the schema lost operations"
    # Revoking the caller's token is fuzzed last: after it, the token opens nothing.
    operations.sort(key=lambda op: op.label == REVOKE)
    seen: Seen = {}
    runs = [(op, mode) for op in operations for mode in _modes(op)]
    failures = [_fuzz(op, mode, headers, seen) for op, mode in runs]
    return [failure for failure in failures if failure], seen


REVOKE = "DELETE /api/auth/token/"


def reached(seen: Seen, label: str) -> set[int]:
    """The status codes ``label`` answered with other than 404: the calls that found the
    world's objects (a fuzz that only ever missed them would prove little)."""
    return seen.get(label, set()) - {404}


def test_anonymous_calls_match_the_schema(api_schema: schemathesis.BaseSchema) -> None:
    failures, seen = fuzz_all(api_schema, {})
    assert not failures, "\n\n".join(failures)
    assert 200 in reached(seen, "GET /api/tables/{table_id}/")
    assert 200 in reached(seen, "GET /api/events/{slug}/standings/")
    assert reached(seen, "POST /api/tables/{table_id}/join/") == {401}


def test_a_seated_players_calls_match_the_schema(
    api_schema: schemathesis.BaseSchema, world: World
) -> None:
    failures, seen = fuzz_all(api_schema, world.auth("ann"))
    assert not failures, "\n\n".join(failures)
    assert reached(seen, "GET /api/auth/me/") == {200}
    assert 204 in reached(seen, REVOKE)  # the first call revokes, the next ones are refused
    assert reached(seen, "POST /api/tables/{table_id}/actions/") & {200, 400, 409}
    assert 403 in reached(seen, "POST /api/events/{slug}/start/"), "ann runs no event"


def test_staff_calls_match_the_schema(api_schema: schemathesis.BaseSchema, world: World) -> None:
    failures, seen = fuzz_all(api_schema, world.auth("director"))
    assert not failures, "\n\n".join(failures)
    assert 201 in reached(seen, "POST /api/events/")
    assert 201 in reached(seen, "POST /api/events/{slug}/announce/")
