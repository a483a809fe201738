"""compose.yaml, read as Docker Compose would: services, commands, health checks, dependencies.

Docker does not run in CI, so the file is checked by parsing it.
"""

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from celery.app.utils import find_app
from django.conf import settings

from config.celery import app as celery_app

BASE_DIR = Path(settings.BASE_DIR)
APP_SERVICES = ["web", "worker", "beat"]
# What `docker compose` substitutes for `${NAME:?message}` in these tests.
REQUIRED_VALUES = {
    "DJANGO_SECRET_KEY": "x7Qk2L9vR4pT8wZ1mN6bC3fH5jD0sG-aE_yU" * 2,
    "POSTGRES_PASSWORD": "compose-test-password",
}
VARIABLE = re.compile(r"\$\{(?P<name>[A-Z_][A-Z0-9_]*)(?::(?P<op>[-?])(?P<arg>[^}]*))?\}")


def interpolate(value: str) -> str:
    """Substitute `${NAME}`, `${NAME:-default}` and `${NAME:?message}` as Compose does."""

    def substitute(match: re.Match[str]) -> str:
        name, op, arg = match["name"], match["op"], match["arg"]
        if op == "?":
            assert name in REQUIRED_VALUES, f"unexpected required variable {name}"
            return REQUIRED_VALUES[name]
        assert op == "-", f"${{{name}}} has no default: Compose would substitute ''"
        return arg

    return VARIABLE.sub(substitute, value)


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
    ("name", "tool"),
    # Each probe is a program its image has: pg_isready (postgres), redis-cli (redis) and
    # python (python:3.x-slim, which has no curl or wget).
    [("postgres", "pg_isready"), ("redis", "redis-cli"), ("web", "python")],
)
def test_health_checks_use_tools_the_images_have(
    services: dict[str, Any], name: str, tool: str
) -> None:
    check = services[name]["healthcheck"]
    kind, program, *_ = check["test"]
    assert kind == "CMD", "exec form: no shell needed in the image"
    assert program == tool
    assert check["retries"] > 0
    for key in ("interval", "timeout"):
        assert re.fullmatch(r"\d+s", check[key]), check[key]


def test_health_probes_ask_the_right_question(services: dict[str, Any]) -> None:
    assert services["redis"]["healthcheck"]["test"][2:] == ["ping"]
    postgres = services["postgres"]
    assert postgres["healthcheck"]["test"][2:] == [
        "-U",
        postgres["environment"]["POSTGRES_USER"],
        "-d",
        postgres["environment"]["POSTGRES_DB"],
    ]


def test_worker_probe_pings_its_own_worker(services: dict[str, Any]) -> None:
    check = services["worker"]["healthcheck"]
    kind, command = check["test"]
    assert kind == "CMD-SHELL", "the shell expands the container's own $HOSTNAME"
    # Compose turns $$ into $, so the shell sees $HOSTNAME: the worker's default node name.
    assert command.replace("$$", "$").split() == [
        "celery",
        "-A",
        "config",
        "inspect",
        "ping",
        "--destination",
        "celery@$HOSTNAME",
        "--timeout",
        "5",
    ]
    assert int(check["timeout"].rstrip("s")) > 5, "the probe's own timeout must fit inside"


def test_web_probe_is_valid_python_asking_healthz(services: dict[str, Any]) -> None:
    _, program, flag, code = services["web"]["healthcheck"]["test"]
    assert (program, flag) == ("python", "-c")
    compile(code, "healthcheck", "exec")
    assert "http://127.0.0.1:8000/healthz" in code
    assert "curl" not in code and "wget" not in code


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
    assert "exec daphne" in web, "daphne must replace the shell to receive stop signals"
    assert "config.asgi:application" in web
    assert command_text(services["worker"]).startswith("celery -A config worker")
    assert command_text(services["beat"]).startswith("celery -A config beat")


def test_only_web_migrates_and_only_once(services: dict[str, Any]) -> None:
    """One web container migrates; worker and beat start once it is healthy (migrated)."""
    migrating = [name for name in services if "migrate" in command_text_or_empty(services[name])]
    assert migrating == ["web"]
    assert "deploy" not in services["web"], "replicas of web would race to migrate"


def command_text_or_empty(service: dict[str, Any]) -> str:
    return command_text(service) if "command" in service else ""


def test_celery_app_named_in_commands_is_the_project_app(services: dict[str, Any]) -> None:
    for name in ("worker", "beat"):
        command = services[name]["command"]
        assert command[:2] == ["celery", "-A"]
        assert find_app(command[2]) is celery_app


@pytest.mark.parametrize("name", APP_SERVICES)
def test_app_services_build_the_project_image(services: dict[str, Any], name: str) -> None:
    assert services[name]["build"] == "."
    assert services[name]["image"] == services["web"]["image"]


def test_every_app_variable_is_read_by_the_settings(services: dict[str, Any]) -> None:
    """A misspelt name in compose.yaml would be silently ignored by Django."""
    settings_source = "\n".join(
        path.read_text() for path in (BASE_DIR / "config" / "settings").glob("*.py")
    )
    for name in services["web"]["environment"]:
        assert f'"{name}"' in settings_source, f"{name} is not read by config/settings"


def test_compose_environment_passes_check_deploy(services: dict[str, Any]) -> None:
    """The web service's environment, as Compose fills it in, gives deployable settings."""
    environment = {
        name: interpolate(str(value)) for name, value in services["web"]["environment"].items()
    }
    assert environment["DATABASE_URL"] == (
        f"postgres://rummy:{REQUIRED_VALUES['POSTGRES_PASSWORD']}@postgres:5432/rummy"
    )
    base = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith(("DJANGO_", "CELERY_")) and name not in ("DATABASE_URL", "REDIS_URL")
    }
    code = (
        "import django, json; django.setup(); from django.conf import settings as s; "
        "from django.core.management import call_command; "
        "call_command('check', deploy=True, fail_level='WARNING'); "
        "print(json.dumps([s.DEBUG, s.DATABASES['default']['ENGINE'], "
        "s.DATABASES['default']['HOST'], s.CELERY_BROKER_URL, s.CELERY_WORKER_EMBEDDED]))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=BASE_DIR,
        env={**base, **environment, "DJANGO_SETTINGS_MODULE": "config.settings"},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    last = result.stdout.strip().splitlines()[-1]
    assert yaml.safe_load(last) == [
        False,
        "django.db.backends.postgresql",
        "postgres",
        "redis://redis:6379/0",
        False,
    ]


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
    assert "config.asgi:application" in dockerfile
    # The project's runtime dependencies come from pyproject.toml, not a second list.
    assert '["project"]["dependencies"]' in dockerfile
    assert "pip install" in dockerfile


def test_dockerfile_runs_as_a_non_root_user() -> None:
    users = re.findall(r"^USER\s+(\S+)", (BASE_DIR / "Dockerfile").read_text(), re.MULTILINE)
    assert users and users[-1] not in ("root", "0")


def test_dockerfile_collects_static_files_with_a_throwaway_key() -> None:
    dockerfile = (BASE_DIR / "Dockerfile").read_text()
    (run,) = [step for step in dockerfile.split("\nRUN ") if "collectstatic" in step]
    # The key is set for that one command only, never as an ENV or ARG kept in the image.
    assert "DJANGO_ENV=production" in run and "DJANGO_SECRET_KEY=" in run
    assert not re.search(r"^(ENV|ARG)\b[^\n]*SECRET", dockerfile, re.MULTILINE)
    assert "POSTGRES_PASSWORD" not in dockerfile


def test_local_secrets_stay_out_of_the_image() -> None:
    ignored = (BASE_DIR / ".dockerignore").read_text().split()
    assert {".env", ".secret_key", ".venv", ".git", "db.sqlite3"} <= set(ignored)
