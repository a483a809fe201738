"""``GET /metrics``: the Prometheus exposition to a bearer of ``METRICS_TOKEN`` or an address in
``METRICS_ALLOWED_NETWORKS``, and the site's 404 to anyone else (config/metrics_view.py); the
broker's queue depth read at scrape time (config/metrics.py)."""

from __future__ import annotations

from typing import Any

import pytest
import redis
from django.conf import settings
from django.test import Client

pytestmark = pytest.mark.django_db

TOKEN = "a-long-random-scrape-token"


def scrape(client: Client | None = None, **extra: Any) -> Any:
    return (client or Client()).get("/metrics", **extra)


def test_nobody_is_answered_by_default() -> None:
    assert (settings.METRICS_TOKEN, settings.METRICS_ALLOWED_NETWORKS) == ("", [])
    # The test client comes from 127.0.0.1: loopback is not trusted unless named.
    assert scrape().status_code == 404
    assert scrape(HTTP_AUTHORIZATION="Bearer ").status_code == 404


def test_a_bearer_of_the_token_is_answered(settings: Any) -> None:
    settings.METRICS_TOKEN = TOKEN
    answer = scrape(HTTP_AUTHORIZATION=f"Bearer {TOKEN}")
    assert answer.status_code == 200
    assert answer["Content-Type"].startswith("text/plain; version=")
    body = answer.content.decode()
    for name in ("django_http_requests_total_by_method", "rummy_table_action_seconds"):
        assert name in body
    assert answer["Cache-Control"].startswith("max-age=0")


def test_a_wrong_token_or_none_is_a_missing_page(settings: Any) -> None:
    settings.METRICS_TOKEN = TOKEN
    for header in (f"Bearer {TOKEN}x", TOKEN, f"Basic {TOKEN}", ""):
        answer = scrape(HTTP_AUTHORIZATION=header)
        assert answer.status_code == 404, header
        assert b"rummy_" not in answer.content


def test_an_allowed_network_is_answered_and_others_are_not(settings: Any) -> None:
    settings.METRICS_ALLOWED_NETWORKS = ["10.0.0.0/8", "fd00::/8"]
    assert scrape(REMOTE_ADDR="10.1.2.3").status_code == 200
    assert scrape(REMOTE_ADDR="fd00::5").status_code == 200
    assert scrape(REMOTE_ADDR="192.0.2.7").status_code == 404
    assert scrape(REMOTE_ADDR="127.0.0.1").status_code == 404
    assert scrape(REMOTE_ADDR="not an address").status_code == 404


def test_other_methods_are_refused_only_to_whom_may_scrape(settings: Any) -> None:
    settings.METRICS_TOKEN = TOKEN
    assert Client().post("/metrics").status_code == 404
    allowed = Client().post("/metrics", HTTP_AUTHORIZATION=f"Bearer {TOKEN}")
    assert allowed.status_code == 405


@pytest.mark.skipif(
    not settings.CELERY_BROKER_URL.startswith("redis"), reason="the in-memory broker has no queue"
)
def test_the_queue_depth_is_read_from_the_broker_at_scrape_time(settings: Any) -> None:
    settings.METRICS_TOKEN = TOKEN
    queue = settings.CELERY_TASK_DEFAULT_QUEUE
    broker = redis.Redis.from_url(settings.CELERY_BROKER_URL)
    broker.delete(queue)
    try:
        broker.rpush(queue, "a", "b", "c")
        body = scrape(HTTP_AUTHORIZATION=f"Bearer {TOKEN}").content.decode()
    finally:
        broker.delete(queue)
    assert f'rummy_celery_queue_depth{{queue="{queue}"}} 3.0' in body
