"""`GET /healthz` in both states: everything answering, and dependencies down."""

from collections.abc import Iterator

import pytest
from django.db import OperationalError, connection
from django.test import Client

from config.celery import app as celery_app

pytestmark = pytest.mark.django_db

# Nothing listens on port 1, so a connection there is refused at once.
DEAD_REDIS = "redis://127.0.0.1:1/0"


@pytest.fixture
def dead_broker() -> Iterator[None]:
    previous = celery_app.conf.broker_url
    celery_app.conf.broker_url = DEAD_REDIS
    yield
    celery_app.conf.broker_url = previous


@pytest.fixture
def dead_channel_layer(settings: pytest.FixtureRequest) -> None:
    settings.CHANNEL_LAYERS = {  # type: ignore[attr-defined]
        "default": {
            "BACKEND": "channels_redis.pubsub.RedisPubSubChannelLayer",
            "CONFIG": {"hosts": [DEAD_REDIS]},
        }
    }


def test_all_dependencies_answer() -> None:
    response = Client().get("/healthz")
    assert response.status_code == 200
    assert response.json() == {
        "status": "ok",
        "checks": {"database": {"ok": True}, "channel_layer": {"ok": True}, "broker": {"ok": True}},
    }
    assert "no-cache" in response["Cache-Control"]


@pytest.mark.usefixtures("dead_broker", "dead_channel_layer")
def test_unreachable_broker_and_layer_give_503() -> None:
    response = Client().get("/healthz")
    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "unavailable"
    assert body["checks"]["database"] == {"ok": True}
    assert body["checks"]["channel_layer"]["ok"] is False
    assert body["checks"]["broker"] == {"ok": False, "error": "OperationalError"}


@pytest.mark.usefixtures("dead_broker")
def test_one_dependency_down_is_enough_for_503() -> None:
    response = Client().get("/healthz")
    assert response.status_code == 503
    assert response.json()["checks"]["channel_layer"] == {"ok": True}


def test_unreachable_database_gives_503(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse() -> None:
        raise OperationalError("connection refused")

    monkeypatch.setattr(connection, "cursor", refuse)
    response = Client().get("/healthz")
    assert response.status_code == 503
    assert response.json()["checks"]["database"] == {"ok": False, "error": "OperationalError"}


def test_errors_never_reveal_connection_strings() -> None:
    previous = celery_app.conf.broker_url
    celery_app.conf.broker_url = "redis://:s3cret-pass@127.0.0.1:1/0"
    try:
        body = Client().get("/healthz").content.decode()
    finally:
        celery_app.conf.broker_url = previous
    assert "s3cret-pass" not in body


def test_health_accepts_get_only() -> None:
    assert Client().post("/healthz").status_code == 405
