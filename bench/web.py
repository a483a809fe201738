"""Request latency of the service skeleton, in process: home page, health probe, token call.

Runs on a throwaway SQLite database with the embedded defaults and prints one JSON object:
median and 95th-percentile milliseconds per request and the requests per second one worker
thread sustains. The token call is dominated by password hashing (PBKDF2, by design slow).
"""

import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROUNDS = {"home": 300, "healthz": 300, "token": 5}


def setup_django(workdir: Path) -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings"
    # The embedded defaults, whatever services the calling shell points at.
    for name in ("DATABASE_URL", "REDIS_URL", "CELERY_BROKER_URL", "DJANGO_ENV"):
        os.environ.pop(name, None)
    os.environ["SQLITE_PATH"] = str(workdir / "bench.sqlite3")
    os.environ["DJANGO_SECRET_KEY"] = "bench-only-" + "k" * 50
    os.environ["DJANGO_DEBUG"] = "false"
    os.environ["DJANGO_ALLOWED_HOSTS"] = "testserver"
    os.environ["DJANGO_LOG_LEVEL"] = "ERROR"
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def timed(call: Callable[[], int], rounds: int) -> dict[str, float]:
    samples = []
    for _ in range(rounds):
        start = time.perf_counter()
        status = call()
        samples.append((time.perf_counter() - start) * 1000)
        assert status == 200, status
    samples.sort()
    return {
        "median_ms": round(statistics.median(samples), 3),
        "p95_ms": round(samples[int(len(samples) * 0.95) - 1], 3),
        "per_second": round(1000 / statistics.mean(samples), 1),
    }


def main() -> None:
    with tempfile.TemporaryDirectory() as workdir:
        setup_django(Path(workdir))
        from django.test import Client

        from accounts.models import User

        User.objects.create_user("bench", password="a sturdy bench passphrase")
        client = Client()
        body = json.dumps({"username": "bench", "password": "a sturdy bench passphrase"})
        calls: dict[str, Callable[[], int]] = {
            "home": lambda: client.get("/").status_code,
            "healthz": lambda: client.get("/healthz").status_code,
            "token": lambda: (
                client.post("/api/auth/token/", body, content_type="application/json").status_code
            ),
        }
        results = {name: timed(call, ROUNDS[name]) for name, call in calls.items()}
    print(json.dumps({"bench": "web", "python": sys.version.split()[0], "results": results}))


if __name__ == "__main__":
    main()
