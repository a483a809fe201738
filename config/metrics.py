"""The service's own Prometheus metrics, and what a scrape reads.

Requests (count, latency, status by view) come from django-prometheus's middleware; these are
the game's:

- ``rummy_table_action_seconds`` (histogram, by ``outcome``: applied, repeated, refused, error):
  how long applying one player's action took, lock and commit included. Its ``_count`` is the
  actions: ``rate(rummy_table_action_seconds_count[1m])`` is actions per second.
- ``rummy_open_sockets`` (gauge, by ``consumer``): WebSockets accepted and not yet closed.
- ``rummy_turn_timer_lateness_seconds`` (histogram, by ``by``: timer or sweep): how long after
  its deadline a turn was played by the clock.
- ``rummy_celery_queue_depth`` (gauge, by ``queue``): tasks waiting in the broker for a worker,
  read from Redis at scrape time (none on the in-memory broker).

Each process counts its own. With ``PROMETHEUS_MULTIPROC_DIR`` set (a directory of this host
or container, emptied before the processes start) the processes write their values there and a
scrape of any of them reads all: set it for several server processes in one container and for
a prefork Celery worker, whose tasks run in child processes (docs/scaling.md).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator

import redis
from django.conf import settings
from prometheus_client import REGISTRY, CollectorRegistry, Gauge, Histogram
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.multiprocess import MultiProcessCollector
from prometheus_client.registry import Collector

logger = logging.getLogger(__name__)

MULTIPROCESS = bool(os.environ.get("PROMETHEUS_MULTIPROC_DIR"))

# An action takes a few milliseconds (docs/scaling.md); the top buckets catch lock waits.
ACTION_BUCKETS = (0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)
# A timer fires within milliseconds of its deadline; the sweep catches lost ones seconds late.
LATENESS_BUCKETS = (0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)

TABLE_ACTION_SECONDS = Histogram(
    "rummy_table_action_seconds",
    "Seconds to apply one player's action to a table, by outcome.",
    ["outcome"],
    buckets=ACTION_BUCKETS,
)
OPEN_SOCKETS = Gauge(
    "rummy_open_sockets",
    "WebSockets open, by consumer.",
    ["consumer"],
    # Summed over the processes alive; a dead process's sockets are gone with it.
    multiprocess_mode="livesum",
)
TURN_TIMER_LATENESS = Histogram(
    "rummy_turn_timer_lateness_seconds",
    "Seconds between a turn's deadline and the clock playing it, by what played it.",
    ["by"],
    buckets=LATENESS_BUCKETS,
)

# Kombu's Redis transport keeps a queue as a list of that name, and messages sent with a
# priority in lists of the name plus this separator and the priority step.
PRIORITY_SEPARATOR = "\x06\x16"
PRIORITY_STEPS = (3, 6, 9)


class QueueDepth(Collector):
    """The broker's backlog, read when scraped: the length of the default queue's lists."""

    def describe(self) -> Iterator[GaugeMetricFamily]:
        """The metric's name for the registry, without reading Redis (as ``collect`` would)."""
        yield _family()

    def collect(self) -> Iterator[GaugeMetricFamily]:
        url = settings.CELERY_BROKER_URL
        if not url.startswith(("redis://", "rediss://")):
            return
        queue = settings.CELERY_TASK_DEFAULT_QUEUE
        names = [queue, *(f"{queue}{PRIORITY_SEPARATOR}{step}" for step in PRIORITY_STEPS)]
        try:
            client = redis.Redis.from_url(url, socket_connect_timeout=1, socket_timeout=1)
            with client:
                depth = sum(int(client.llen(name)) for name in names)
        except redis.RedisError as exc:
            # A scrape still answers; the gap in the series shows the broker was out of reach.
            logger.warning("queue depth not read: %s", type(exc).__name__)
            return
        family = _family()
        family.add_metric([queue], depth)
        yield family


def _family() -> GaugeMetricFamily:
    return GaugeMetricFamily(
        "rummy_celery_queue_depth", "Celery tasks waiting for a worker.", labels=["queue"]
    )


QUEUE_DEPTH = QueueDepth()
if not MULTIPROCESS:
    REGISTRY.register(QUEUE_DEPTH)


def scrape_registry() -> CollectorRegistry:
    """What a scrape reads: this process's metrics, or every process's in multiprocess mode."""
    if not MULTIPROCESS:
        return REGISTRY
    registry = CollectorRegistry()
    MultiProcessCollector(registry)
    registry.register(QUEUE_DEPTH)
    return registry
