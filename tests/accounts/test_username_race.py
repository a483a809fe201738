"""Two look-alike names signed up at the same instant: one account, the other refused (issue 20,
item 3). Real threads with their own connections, so committed data (``transactional_db``).

Each sign-up's first check is held at a barrier until both have made it, so both have seen the
other's name free before either inserts: without the lock on the name's look
(``services.name_claimed``) both accounts were made."""

from __future__ import annotations

import threading
from collections.abc import Callable
from contextlib import suppress
from typing import Any

import pytest
from django.db import connection
from django.test import Client

from accounts import services
from accounts.models import User
from tests.accounts.factories import PASSWORD

pytestmark = pytest.mark.django_db(transaction=True)

LATIN = "admin"
CYRILLIC = "\u0430dmin"  # a Cyrillic a: the same skeleton


def at_once(sign_up: Callable[[str], Any], monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """``sign_up`` of both names in two threads, each one's first ``username_check`` passed
    together (the barrier gives up after a second: with the lock the other thread waits there
    instead); each result or exception."""
    barrier = threading.Barrier(2)
    check = services.username_check
    first = threading.local()

    def checked_together(username: str, **kwargs: Any) -> None:
        check(username, **kwargs)
        if not getattr(first, "done", False):
            first.done = True
            # With the lock the other sign-up waits for it instead, and the barrier breaks.
            with suppress(threading.BrokenBarrierError):
                barrier.wait(timeout=1)

    monkeypatch.setattr(services, "username_check", checked_together)
    results: list[Any] = [None, None]

    def run(i: int, name: str) -> None:
        try:
            results[i] = sign_up(name)
        except Exception as exc:  # a refusal or a crash is a result the test names
            results[i] = exc
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i, n)) for i, n in enumerate((LATIN, CYRILLIC))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    return results


def test_the_api_makes_one_of_two_lookalikes_signed_up_at_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def sign_up(name: str) -> Any:
        return services.user_register(username=name, password=PASSWORD)

    results = at_once(sign_up, monkeypatch)
    refused = [r for r in results if isinstance(r, services.UsernameTaken)]
    assert len(refused) == 1, results
    assert refused[0].message == services.UsernameTaken.LOOKALIKE
    assert User.objects.count() == 1


def test_the_sign_up_page_makes_one_of_two_lookalikes_signed_up_at_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def sign_up(name: str) -> Any:
        form = {"username": name, "email": "", "password1": PASSWORD, "password2": PASSWORD}
        return Client().post("/accounts/signup/", form)

    results = at_once(sign_up, monkeypatch)
    assert sorted(r.status_code for r in results) == [200, 302], results
    [refused] = [r for r in results if r.status_code == 200]
    assert "looks like one that is taken" in refused.content.decode()
    assert User.objects.count() == 1
