"""`GET /healthz`: can this server reach its database, channel layer and broker?

Answers 200 when all three respond and 503 otherwise, with one entry per dependency, so a load
balancer can take a server out and an operator can see which dependency failed. Errors name the
exception class only: connection strings may hold passwords.
"""

import asyncio
from collections.abc import Callable

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import connection
from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from config.celery import app as celery_app

# A dependency slower than this is as good as down for a request that waits on it.
CHECK_TIMEOUT_SECONDS = 2.0


def check_database() -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")


def check_channel_layer() -> None:
    """Round-trip one message through the layer (Redis is really touched in full mode)."""
    layer = get_channel_layer()
    if layer is None:
        raise RuntimeError("no channel layer configured")

    async def round_trip() -> None:
        channel = await layer.new_channel()
        await layer.send(channel, {"type": "health.ping"})
        await layer.receive(channel)

    async def bounded() -> None:
        await asyncio.wait_for(round_trip(), CHECK_TIMEOUT_SECONDS)

    async_to_sync(bounded)()


def check_broker() -> None:
    with celery_app.connection_for_write() as conn:
        conn.ensure_connection(max_retries=0, timeout=CHECK_TIMEOUT_SECONDS)


CHECKS: dict[str, Callable[[], None]] = {
    "database": check_database,
    "channel_layer": check_channel_layer,
    "broker": check_broker,
}


def run_check(check: Callable[[], None]) -> dict[str, object]:
    try:
        check()
    except Exception as exc:  # any failure means "not reachable"; the class says which kind
        return {"ok": False, "error": type(exc).__name__}
    return {"ok": True}


@never_cache
@require_GET
def healthz(request: HttpRequest) -> JsonResponse:
    results = {name: run_check(check) for name, check in CHECKS.items()}
    healthy = all(result["ok"] for result in results.values())
    body = {"status": "ok" if healthy else "unavailable", "checks": results}
    return JsonResponse(body, status=200 if healthy else 503)
