"""config.cache.FailOpenRedisCache: the full mode's cache works on Redis, and while Redis is out
of reach the counters it holds read as empty, so logging in and registering still work."""

from __future__ import annotations

import os
import socket
import uuid
from typing import Any

import pytest
from django.core.cache import cache
from django.test import Client
from rest_framework.test import APIClient

from config.cache import FailOpenRedisCache
from tests.accounts.factories import PASSWORD, UserFactory


def _dead_redis_url() -> str:
    """A Redis URL where nothing listens: a port the OS handed out, then closed again."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"redis://127.0.0.1:{port}/0"


def _cache(url: str) -> FailOpenRedisCache:
    options = {"socket_connect_timeout": 1, "socket_timeout": 2}
    return FailOpenRedisCache(url, {"OPTIONS": options, "KEY_PREFIX": uuid.uuid4().hex})


@pytest.fixture
def dead_cache(settings: Any) -> None:
    """The site's cache is a Redis that does not answer."""
    location = _dead_redis_url()
    settings.CACHES = {
        "default": {"BACKEND": "config.cache.FailOpenRedisCache", "LOCATION": location}
    }


@pytest.mark.skipif(not os.environ.get("REDIS_URL"), reason="needs Redis (REDIS_URL)")
def test_counters_are_kept_on_a_live_redis() -> None:
    live = _cache(os.environ["REDIS_URL"])
    assert live.add("n", 0, timeout=60) is True
    assert live.add("n", 5, timeout=60) is False
    assert (live.incr("n"), live.incr("n", 3)) == (1, 4)
    assert live.get("n") == 4 and live.get_many(["n", "m"]) == {"n": 4}
    live.set("m", "x", timeout=60)
    assert live.has_key("m") and live.touch("m", timeout=30)
    assert live.delete("n") and live.get("n", "gone") == "gone"
    with pytest.raises(ValueError):
        live.incr("never-set")  # an error that is not Redis being down is raised as usual
    live.delete("m")


def test_a_redis_out_of_reach_reads_as_empty_and_drops_writes() -> None:
    dead = _cache(_dead_redis_url())
    assert dead.get("n", 7) == 7 and dead.get_many(["n"]) == {}
    assert dead.add("n", 0) is False and dead.set("n", 1) is None
    assert dead.incr("n", 2) == 2
    assert (dead.has_key("n"), dead.touch("n"), dead.delete("n")) == (False, False, False)


@pytest.mark.django_db
@pytest.mark.usefixtures("dead_cache")
def test_logging_in_works_while_redis_is_out_of_reach() -> None:
    assert cache.get("anything", "unset") == "unset"
    UserFactory(username="ann")
    client = Client()
    wrong = client.post("/accounts/login/", {"username": "ann", "password": "nope-nope-1"})
    assert wrong.status_code == 200 and not wrong.wsgi_request.user.is_authenticated
    right = client.post("/accounts/login/", {"username": "ann", "password": PASSWORD})
    assert right.status_code == 302
    token = APIClient().post(
        "/api/auth/token/", {"username": "ann", "password": PASSWORD}, format="json"
    )
    assert token.status_code == 200 and token.json()["token"]


@pytest.mark.django_db
@pytest.mark.usefixtures("dead_cache")
def test_registering_works_while_redis_is_out_of_reach() -> None:
    body = {"username": "bea", "password": "a-long-enough-phrase-7", "email": "bea@example.org"}
    answer = APIClient().post("/api/auth/register/", body, format="json")
    assert answer.status_code == 201, answer.content
