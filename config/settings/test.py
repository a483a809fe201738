"""Settings for the test suite: the development settings, tuned for speed.

With `DATABASE_URL` / `REDIS_URL` set the suite runs on PostgreSQL and Redis, otherwise on the
embedded default; tests/conftest.py enforces `REQUIRE_SERVICES=1`.
"""

import os

from .development import *

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
# Tests start their own worker where they need one; importing config.asgi must not.
CELERY_WORKER_EMBEDDED = False
# A queue of this run's own: the workers the tests start consume only the timers this run set,
# whatever else shares the Redis broker.
CELERY_TASK_DEFAULT_QUEUE = f"rummy-test-{os.getpid()}"
# Groups of this run's own on a shared Redis: each run's database numbers its tables from 1.
_layer: dict = CHANNEL_LAYERS["default"]
if "CONFIG" in _layer:
    _layer["CONFIG"] = {**_layer["CONFIG"], "prefix": f"rummy-test-{os.getpid()}"}
# Local to the test process, so clearing it between tests never touches a shared Redis.
CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
LOGGING = {"version": 1, "disable_existing_loggers": False}
# The suite's bots play flat out over sockets, far past a person's pace, and a refused frame
# would stall them. The limit's own tests set its numbers back (tests/hostile/test_ws_fuzz.py).
WS_RATE_PER_SECOND = 1000.0

if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    import tempfile

    # A file, not memory: threads (race tests, live servers) then share one database with real
    # locking. A shared-cache memory database fails at once with "table is locked" instead of
    # waiting for the IMMEDIATE write lock. One file per process, removed after the run.
    DATABASES["default"]["TEST"] = {
        "NAME": os.path.join(tempfile.gettempdir(), f"rummy-test-{os.getpid()}.sqlite3")
    }
else:
    # A database of this run's own, so two runs on one server (a developer's and CI's) never
    # drop each other's; pytest-django drops it at the end.
    DATABASES["default"]["TEST"] = {"NAME": f"test_{DATABASES['default']['NAME']}_{os.getpid()}"}

# Threads of the live servers in browser tests close their connections after each request, so
# the test database can be dropped at the end of the run.
DATABASES["default"]["CONN_MAX_AGE"] = 0
# No pool in the test process: with it, the socket tests (tests/games/test_consumers.py) stalled
# on a full pool after some 50 tests. Each service call a test makes itself from its event loop
# (database_sync_to_async(services.table_apply_action), say) took a connection that the close
# after the call did not see, so it was never given back; the servers' own calls gave theirs
# back (a real server's count stays at its bound: bench/db_connections.py). Without a pool such
# a connection closes with its thread. The servers, workers and benches the tests start run
# the full settings, pool included (tests/bench/test_db_connections_bench.py counts a server's).
DATABASES["default"].get("OPTIONS", {}).pop("pool", None)

# Emails stay in memory (``django.core.mail.outbox``), in worker processes the tests start too.
MAILERS = {"default": {"BACKEND": "django.core.mail.backends.locmem.EmailBackend"}}
SITE_URL = "https://rummy.example"
