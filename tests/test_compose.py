"""compose.yaml, read as Docker Compose would: services, commands, health checks, dependencies.

Docker does not run in CI, so the file is checked by parsing it.
"""

import ipaddress
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest
import yaml
from celery.app.utils import find_app
from django.conf import settings

from config.celery import app as celery_app

BASE_DIR = Path(settings.BASE_DIR)
APP_SERVICES = ["migrate", "web", "worker", "beat"]
# What `docker compose` substitutes for `${NAME:?message}` in these tests. The app's password
# has every character that broke the URL compose used to paste it into.
REQUIRED_VALUES = {
    "DJANGO_SECRET_KEY": "x7Qk2L9vR4pT8wZ1mN6bC3fH5jD0sG-aE_yU" * 2,
    "POSTGRES_PASSWORD": "compose-test-password",
    "POSTGRES_APP_PASSWORD": "app/pass+word@with:all%40",
}
VERSION = tomllib.loads((BASE_DIR / "pyproject.toml").read_text())["project"]["version"]
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


def test_the_services(services: dict[str, Any]) -> None:
    assert set(services) == {
        "caddy",
        "migrate",
        "web",
        "worker",
        "beat",
        "postgres",
        "redis",
        "backup",
    }


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


@pytest.mark.parametrize("name", APP_SERVICES)
def test_app_services_wait_for_healthy_backends(services: dict[str, Any], name: str) -> None:
    depends = services[name]["depends_on"]
    assert depends["postgres"] == {"condition": "service_healthy"}
    assert depends["redis"] == {"condition": "service_healthy"}


@pytest.mark.parametrize("name", ["web", "worker", "beat"])
def test_app_services_start_after_migrations(services: dict[str, Any], name: str) -> None:
    assert services[name]["depends_on"]["migrate"] == {
        "condition": "service_completed_successfully"
    }


def test_commands(services: dict[str, Any]) -> None:
    # Exec form: daphne is the container's process and hears its SIGTERM (config/restart.py).
    # Verbosity 0: daphne writes no plain-text access log among the JSON lines; Caddy logs
    # each request as JSON.
    assert services["web"]["command"] == [
        "daphne",
        "--verbosity",
        "0",
        "-b",
        "0.0.0.0",
        "-p",
        "8000",
        "config.asgi:application",
    ]
    assert command_text(services["worker"]).startswith("celery -A config worker")
    assert command_text(services["beat"]).startswith("celery -A config beat")


def test_no_server_believes_forwarded_headers_by_itself(services: dict[str, Any]) -> None:
    """daphne's --proxy-headers takes X-Forwarded-For from any peer: a client's own header
    picked the address the throttles counted. The app decides instead (config/forwarded.py)."""
    assert "--proxy-headers" not in command_text(services["web"])
    dockerfile = (BASE_DIR / "Dockerfile").read_text()
    (cmd,) = re.findall(r"^CMD .*$", dockerfile, re.MULTILINE)
    assert "daphne" in cmd and "--proxy-headers" not in cmd
    assert "--proxy-headers" not in (BASE_DIR / "Makefile").read_text()


def test_migrations_run_once_in_their_own_service(services: dict[str, Any]) -> None:
    migrating = [name for name in services if "migrate" in command_text_or_empty(services[name])]
    assert migrating == ["migrate"]
    migrate = services["migrate"]
    steps = command_text(migrate)
    assert (
        steps.index("manage.py migrate --noinput")
        < steps.index("manage.py grant_app_role")
        < steps.index("manage.py load_initial_data")
    )
    assert "&&" in steps, "a failed step must fail the service, so nothing starts"
    assert migrate["restart"] == "no", "a one-shot: compose waits for it to complete"
    assert "migrate" not in migrate["depends_on"]


def test_web_scales_behind_the_proxy(services: dict[str, Any]) -> None:
    """`docker compose up --scale web=3`: no fixed port or name to clash, and only Caddy is
    published."""
    published = [name for name, service in services.items() if "ports" in service]
    assert published == ["caddy"]
    assert "container_name" not in services["web"]
    ports = [interpolate(port) for port in services["caddy"]["ports"]]
    assert ports == ["80:80", "443:443", "443:443/udp"]


def test_caddy_is_pinned_and_proxies_to_every_web_replica(services: dict[str, Any]) -> None:
    caddy = services["caddy"]
    assert re.fullmatch(r"caddy:2\.\d+\.\d+", caddy["image"]), "a pinned version"
    mounts = dict(volume.split(":", 1) for volume in caddy["volumes"])
    assert mounts["./deploy/Caddyfile"] == "/etc/caddy/Caddyfile:ro"
    caddyfile = (BASE_DIR / "deploy" / "Caddyfile").read_text()
    code = "\n".join(line.split("#")[0] for line in caddyfile.splitlines())
    assert "{$SITE_DOMAIN:localhost} {" in code
    assert re.search(r"dynamic a \{\s*name web\s*port 8000\b", code), "every replica, by DNS"
    assert "{$CADDY_TLS:}" in code, "tls internal (a local CA) for testing"
    assert set(caddy["environment"]) == {"SITE_DOMAIN", "CADDY_TLS"}


def test_metrics_are_scraped_inside_and_never_served_outside(services: dict[str, Any]) -> None:
    """The edge answers /metrics 404 before any web server sees it; the worker serves its own on
    a port published nowhere, its processes' figures gathered in a directory that starts empty."""
    caddyfile = (BASE_DIR / "deploy" / "Caddyfile").read_text()
    code = [line.split("#")[0].strip() for line in caddyfile.splitlines()]
    site = code.index("{$SITE_DOMAIN:localhost} {")
    assert "respond /metrics* 404" in code[site:]
    log = code.index("log {", site)
    assert code[log + 1 : log + 3] == ["output stdout", "format json"], "JSON access lines"
    worker = services["worker"]
    environment = worker["environment"]
    assert environment["METRICS_PORT"] == "9100" and "ports" not in worker
    assert environment["PROMETHEUS_MULTIPROC_DIR"] in worker["tmpfs"]
    web = services["web"]["environment"]
    assert web.keys() <= environment.keys(), "the app's whole environment, and these"


def test_forwarded_headers_are_trusted_from_the_edge_network_alone(
    compose: dict[str, Any], services: dict[str, Any]
) -> None:
    on_edge = sorted(name for name, s in services.items() if "edge" in s.get("networks", []))
    assert on_edge == ["caddy", "web"]
    (pool,) = compose["networks"]["edge"]["ipam"]["config"]
    subnet = ipaddress.ip_network(interpolate(pool["subnet"]))
    trusted = interpolate(services["web"]["environment"]["TRUSTED_PROXIES"])
    assert [ipaddress.ip_network(trusted)] == [subnet]
    assert "default" in services["web"]["networks"], "web still reaches the database"


def test_the_app_connects_as_its_own_role_and_migrate_as_the_owner(
    services: dict[str, Any],
) -> None:
    owner = services["postgres"]["environment"]["POSTGRES_USER"]
    for name in ("web", "worker", "beat"):
        env = services[name]["environment"]
        assert env["POSTGRES_USER"] == "rummy_app" != owner
        assert env["POSTGRES_PASSWORD"] == "${POSTGRES_APP_PASSWORD:?set POSTGRES_APP_PASSWORD}"
    migrate = services["migrate"]["environment"]
    assert migrate["POSTGRES_USER"] == owner
    assert migrate["POSTGRES_PASSWORD"] == services["postgres"]["environment"]["POSTGRES_PASSWORD"]
    assert "POSTGRES_APP_PASSWORD" in migrate, "grant_app_role sets it"


def test_backups_run_on_a_schedule_with_retention(services: dict[str, Any]) -> None:
    backup = services["backup"]
    assert backup["image"] == services["postgres"]["image"], "pg_dump of the server's version"
    assert backup["entrypoint"] == ["sh", "/usr/local/bin/rummy-backup"]
    mounts = dict(volume.split(":", 1) for volume in backup["volumes"])
    assert mounts["./deploy/backup.sh"] == "/usr/local/bin/rummy-backup:ro"
    assert (BASE_DIR / "deploy" / "backup.sh").is_file()
    env = backup["environment"]
    assert int(interpolate(env["BACKUP_INTERVAL_SECONDS"])) > 0
    assert int(interpolate(env["BACKUP_KEEP_DAYS"])) > 0
    assert env["PGUSER"] == services["postgres"]["environment"]["POSTGRES_USER"]
    assert backup["depends_on"]["postgres"] == {"condition": "service_healthy"}


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


def test_the_image_is_tagged_with_the_version(services: dict[str, Any]) -> None:
    assert services["web"]["image"] == f"rummy500:${{RUMMY_VERSION:-{VERSION}}}"


def test_every_app_variable_is_read_by_the_settings(services: dict[str, Any]) -> None:
    """A misspelt name in compose.yaml would be silently ignored by Django."""
    sources = [
        *(BASE_DIR / "config" / "settings").glob("*.py"),
        BASE_DIR / "config" / "envfiles.py",
        BASE_DIR / "accounts" / "management" / "commands" / "grant_app_role.py",
    ]
    settings_source = "\n".join(path.read_text() for path in sources)
    for name in {**services["web"]["environment"], **services["migrate"]["environment"]}:
        assert f'"{name}"' in settings_source, f"{name} is not read by config/settings"


def test_compose_environment_passes_check_deploy(services: dict[str, Any]) -> None:
    """The web service's environment, as Compose fills it in, gives deployable settings."""
    environment = {
        name: interpolate(str(value)) for name, value in services["web"]["environment"].items()
    }
    base = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith(("DJANGO_", "CELERY_", "POSTGRES_"))
        and name not in ("DATABASE_URL", "REDIS_URL", "TRUSTED_PROXIES")
    }
    code = (
        "import django, json; django.setup(); from django.conf import settings as s; "
        "from django.core.management import call_command; "
        "call_command('check', deploy=True, fail_level='WARNING'); "
        "print(json.dumps([s.DEBUG, s.DATABASES['default']['ENGINE'], "
        "s.DATABASES['default']['HOST'], s.DATABASES['default']['USER'], "
        "s.DATABASES['default']['PASSWORD'], s.CELERY_BROKER_URL, s.CELERY_WORKER_EMBEDDED]))"
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
        "rummy_app",
        REQUIRED_VALUES["POSTGRES_APP_PASSWORD"],
        "redis://redis:6379/0",
        False,
    ]


@pytest.mark.parametrize("name", APP_SERVICES)
def test_app_services_run_in_full_production_mode(services: dict[str, Any], name: str) -> None:
    env = services[name]["environment"]
    assert env["DJANGO_ENV"] == "production"
    # By parts, never a URL with a password pasted in (config/envfiles.py quotes them).
    assert "DATABASE_URL" not in env
    assert (env["POSTGRES_HOST"], env["POSTGRES_DB"]) == ("postgres", "rummy")
    assert env["REDIS_URL"] == "redis://redis:6379/0"


def test_no_secret_is_committed(services: dict[str, Any]) -> None:
    secrets = [
        services["web"]["environment"]["DJANGO_SECRET_KEY"],
        services["web"]["environment"]["POSTGRES_PASSWORD"],
        services["migrate"]["environment"]["POSTGRES_PASSWORD"],
        services["migrate"]["environment"]["POSTGRES_APP_PASSWORD"],
        services["postgres"]["environment"]["POSTGRES_PASSWORD"],
        services["backup"]["environment"]["PGPASSWORD"],
    ]
    # Each must be a required variable (`${NAME:?message}`), never a literal value.
    for value in secrets:
        assert re.fullmatch(r"\$\{[A-Z_]+:\?[^}]+\}", value), value


def test_dockerfile_serves_the_asgi_app() -> None:
    dockerfile = (BASE_DIR / "Dockerfile").read_text()
    assert re.search(r"^FROM python:3\.1[2-9]", dockerfile, re.MULTILINE)
    assert "config.asgi:application" in dockerfile
    assert '"--verbosity", "0"' in dockerfile, "no plain-text access log"
    # Exactly the locked versions, each file checked by its hash; nothing resolved at build time.
    (install,) = [line for line in dockerfile.splitlines() if "pip install" in line]
    assert "--require-hashes" in install and "--no-deps" in install
    assert install.endswith("-r requirements.lock")
    assert "COPY requirements.lock" in dockerfile


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
    assert {".env", ".secret_key", ".venv", ".git", "db.sqlite3", "backups"} <= set(ignored)
