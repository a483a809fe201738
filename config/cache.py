"""Django's Redis cache, failing open while Redis is out of reach.

The cache holds nothing but counters: the API throttles and the log-in guard's failures
(``accounts.login_guard``). Were a Redis restart to fail every call that reads them, nobody could
log in or register until it was back, though PostgreSQL, which holds everything that matters,
is fine. So a connection error or timeout reads as "nothing counted" and a write is dropped,
with a warning in the log. For those few seconds the limits are not enforced; every other
defence stays. Any other error (a bad key, a wrong type) is raised as usual.
"""

from __future__ import annotations

import logging
from typing import Any

from django.core.cache.backends.base import DEFAULT_TIMEOUT
from django.core.cache.backends.redis import RedisCache
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

logger = logging.getLogger(__name__)
UNREACHABLE = (RedisConnectionError, RedisTimeoutError, OSError)


def _unreachable(operation: str, exc: Exception) -> None:
    logger.warning("cache %s skipped: Redis is out of reach (%s)", operation, exc)


class FailOpenRedisCache(RedisCache):
    """``RedisCache`` whose reads answer the default and writes do nothing while Redis is down."""

    def get(self, key: Any, default: Any = None, version: int | None = None) -> Any:
        try:
            return super().get(key, default, version)
        except UNREACHABLE as exc:
            _unreachable("get", exc)
            return default

    def get_many(self, keys: Any, version: int | None = None) -> dict[Any, Any]:
        try:
            return super().get_many(keys, version)
        except UNREACHABLE as exc:
            _unreachable("get_many", exc)
            return {}

    def has_key(self, key: Any, version: int | None = None) -> bool:
        try:
            return bool(super().has_key(key, version))
        except UNREACHABLE as exc:
            _unreachable("has_key", exc)
            return False

    def add(
        self, key: Any, value: Any, timeout: Any = DEFAULT_TIMEOUT, version: int | None = None
    ) -> bool:
        try:
            return bool(super().add(key, value, timeout, version))
        except UNREACHABLE as exc:
            _unreachable("add", exc)
            return False

    def set(
        self, key: Any, value: Any, timeout: Any = DEFAULT_TIMEOUT, version: int | None = None
    ) -> None:
        try:
            super().set(key, value, timeout, version)
        except UNREACHABLE as exc:
            _unreachable("set", exc)

    def touch(self, key: Any, timeout: Any = DEFAULT_TIMEOUT, version: int | None = None) -> bool:
        try:
            return bool(super().touch(key, timeout, version))
        except UNREACHABLE as exc:
            _unreachable("touch", exc)
            return False

    def incr(self, key: Any, delta: int = 1, version: int | None = None) -> int:
        """The new count; ``delta`` while Redis is down (as if this were the first)."""
        try:
            return int(super().incr(key, delta, version))
        except UNREACHABLE as exc:
            _unreachable("incr", exc)
            return delta

    def delete(self, key: Any, version: int | None = None) -> bool:
        try:
            return bool(super().delete(key, version))
        except UNREACHABLE as exc:
            _unreachable("delete", exc)
            return False
