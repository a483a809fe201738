"""Suite-wide setup: the services check and a clean cache for every test."""

import os
import socket
from collections.abc import Iterator
from urllib.parse import urlsplit

import pytest
from django.conf import settings
from django.core.cache import cache

# (environment variable, default port) of each service the full suite runs against.
SERVICES = (("DATABASE_URL", 5432), ("REDIS_URL", 6379))


def _unreachable(url: str, default_port: int) -> str | None:
    """None when something accepts TCP connections at the URL's address, else the reason."""
    parts = urlsplit(url)
    address = (parts.hostname or "127.0.0.1", parts.port or default_port)
    try:
        socket.create_connection(address, timeout=3).close()
    except OSError as exc:
        return f"{address[0]}:{address[1]} does not answer ({exc})"
    return None


def pytest_configure(config: pytest.Config) -> None:
    """With REQUIRE_SERVICES=1, stop before any test unless PostgreSQL and Redis answer.

    Without it a missing service just means the embedded default (SQLite, in-memory layer and
    broker); CI sets it so a broken service can never pass silently as the fallback.
    """
    if os.environ.get("REQUIRE_SERVICES") != "1":
        return
    problems = []
    for name, port in SERVICES:
        url = os.environ.get(name, "")
        reason = _unreachable(url, port) if url else "is not set"
        if reason:
            problems.append(f"{name} {reason}")
    if problems:
        raise pytest.UsageError("REQUIRE_SERVICES=1 but " + "; ".join(problems))


@pytest.fixture(autouse=True)
def _clear_cache() -> Iterator[None]:
    # Throttle counters live in the cache; one test's requests must not throttle the next.
    # The engine's tests run without Django too (`-p no:django`): then there is no cache.
    if not settings.configured:
        yield
        return
    cache.clear()
    yield
    cache.clear()
