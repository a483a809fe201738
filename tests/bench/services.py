"""Running a bench script from a test, on the services CI gives it.

A bench needs PostgreSQL and Redis: those of ``DATABASE_URL`` and ``REDIS_URL`` when set, else
the local defaults (each bench makes a database of its own and uses a Redis database of its own
on them). Where they do not answer the bench must say so, and CI (``REQUIRE_SERVICES=1``) always
has them, so there a bench that says it skipped fails the test.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent.parent


def run_bench(script: str, *args: str) -> dict[str, Any]:
    """``python bench/<script> args...`` from the repository root: its JSON."""
    command = [sys.executable, f"bench/{script}", *args]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout)


def service_args(redis_db: int) -> list[str]:
    """``--pg`` (the server of ``DATABASE_URL``) and ``--redis`` (database ``redis_db`` of the
    server of ``REDIS_URL``)."""
    database = os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/rummy")
    broker = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")
    server = urlsplit(database)._replace(path="/").geturl()
    redis = urlsplit(broker)._replace(path=f"/{redis_db}").geturl()
    return ["--pg", server, "--redis", redis]


def skipped(out: dict[str, Any]) -> bool:
    """The bench found no PostgreSQL or Redis; allowed only where the services are optional."""
    if "skipped" not in out:
        return False
    assert os.environ.get("REQUIRE_SERVICES") != "1", out
    assert "does not answer" in out["skipped"]
    return True
