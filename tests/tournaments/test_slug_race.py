"""Events of one name created at once: each gets a slug of its own, the clash retried, never a
500. Real threads with their own connections, so committed data (``transactional_db``)."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from django.db import connection

from accounts.models import User
from tests.tournaments.factories import staff
from tournaments import services
from tournaments.errors import EventError
from tournaments.models import Tournament

pytestmark = pytest.mark.django_db(transaction=True)


def create_at_once(creators: list[User], monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """Each creator's ``event_create`` of "Club night", every one having read the same free
    slug before any inserts (held at a barrier); each result or exception."""
    barrier = threading.Barrier(len(creators))
    free_slug = services._free_slug
    first = threading.local()

    def slug_read_together(name: str) -> str:
        slug = free_slug(name)
        if not getattr(first, "done", False):
            first.done = True
            barrier.wait(timeout=10)
        return slug

    monkeypatch.setattr(services, "_free_slug", slug_read_together)
    results: list[Any] = [None] * len(creators)

    def run(i: int) -> None:
        try:
            results[i] = services.event_create(
                created_by=creators[i], name="Club night", format="swiss"
            )
        except Exception as exc:  # a crash is a result the test names
            results[i] = exc
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(creators))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    return results


def test_events_of_one_name_created_at_once_each_get_a_free_slug(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    creators = [staff(f"director{i}") for i in range(3)]
    results = create_at_once(creators, monkeypatch)
    assert all(isinstance(r, Tournament) for r in results), results
    assert sorted(r.slug for r in results) == ["club-night", "club-night-2", "club-night-3"]
    assert Tournament.objects.count() == 3


def test_a_chosen_slug_that_is_taken_is_a_bad_request() -> None:
    director = staff()
    services.event_create(created_by=director, name="Club night", format="swiss")
    with pytest.raises(EventError) as info:
        services.event_create(created_by=director, name="Other", format="swiss", slug="club-night")
    assert (info.value.code, info.value.status) == ("bad_request", 400)
