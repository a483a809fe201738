"""compose.yaml, read as Docker Compose would: services, commands, health checks, dependencies.

Docker does not run in CI, so the file is checked by parsing it.
"""

import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from django.conf import settings

BASE_DIR = Path(settings.BASE_DIR)


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load((BASE_DIR / "compose.yaml").read_text())
    return loaded


@pytest.fixture(scope="module")
def services(compose: dict[str, Any]) -> dict[str, Any]:
    result: dict[str, Any] = compose["services"]
    return result


def command_text(service: dict[str, Any]) -> str:
    command = service["command"]
    return command if isinstance(command, str) else " ".join(command)


def test_the_five_services(services: dict[str, Any]) -> None:
    assert set(services) == {"postgres", "redis", "web", "worker", "beat"}


@pytest.mark.parametrize(
    ("name", "probe"), [("postgres", "pg_isready"), ("redis", "redis-cli"), ("web", "/healthz")]
)
def test_health_checks(services: dict[str, Any], name: str, probe: str) -> None:
    check = services[name]["healthcheck"]
    assert probe in " ".join(check["test"])
    assert check["interval"] and check["retries"] > 0


@pytest.mark.parametrize(
    ("name", "path"), [("postgres", "/var/lib/postgresql/data"), ("redis", "/data")]
)
def test_data_lives_in_named_volumes(
    compose: dict[str, Any], services: dict[str, Any], name: str, path: str
) -> None:
    (mount,) = services[name]["volumes"]
    volume, target = mount.split(":")
    assert target == path
    assert volume in compose["volumes"]


@pytest.mark.parametrize("name", ["web", "worker", "beat"])
def test_app_services_wait_for_healthy_backends(services: dict[str, Any], name: str) -> None:
    depends = services[name]["depends_on"]
    assert depends["postgres"] == {"condition": "service_healthy"}
    assert depends["redis"] == {"condition": "service_healthy"}


@pytest.mark.parametrize("name", ["worker", "beat"])
def test_worker_and_beat_start_after_migrations(services: dict[str, Any], name: str) -> None:
    assert services[name]["depends_on"]["web"] == {"condition": "service_healthy"}


def test_commands(services: dict[str, Any]) -> None:
    web = command_text(services["web"])
    assert web.index("manage.py migrate") < web.index("daphne")
    assert "config.asgi:application" in web
    assert command_text(services["worker"]).startswith("celery -A config worker")
    assert command_text(services["beat"]).startswith("celery -A config beat")


@pytest.mark.parametrize("name", ["web", "worker", "beat"])
def test_app_services_run_in_full_production_mode(services: dict[str, Any], name: str) -> None:
    env = services[name]["environment"]
    assert env["DJANGO_ENV"] == "production"
    assert env["DATABASE_URL"].startswith("postgres://")
    assert "@postgres:5432/" in env["DATABASE_URL"]
    assert env["REDIS_URL"] == "redis://redis:6379/0"


def test_no_secret_is_committed(services: dict[str, Any]) -> None:
    secrets = [
        services["web"]["environment"]["DJANGO_SECRET_KEY"],
        services["postgres"]["environment"]["POSTGRES_PASSWORD"],
    ]
    # Each must be a required variable (`${NAME:?message}`), never a literal value.
    for value in secrets:
        assert re.fullmatch(r"\$\{[A-Z_]+:\?[^}]+\}", value), value
    assert ":?" in services["web"]["environment"]["DATABASE_URL"]


def test_dockerfile_serves_the_asgi_app() -> None:
    dockerfile = (BASE_DIR / "Dockerfile").read_text()
    assert re.search(r"^FROM python:3\.1[2-9]", dockerfile, re.MULTILINE)
    assert "collectstatic" in dockerfile
    assert "config.asgi:application" in dockerfile
