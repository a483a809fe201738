"""Which settings each environment selects, each case read in a fresh interpreter."""

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings

BASE_DIR = Path(settings.BASE_DIR)

# Variables that steer settings; each case starts from none of them.
STEERING = ("DATABASE_URL", "REDIS_URL", "REQUIRE_SERVICES", "TRUSTED_PROXIES")
STEERING_PREFIXES = ("DJANGO_", "CELERY_", "POSTGRES_", "DATABASE_URL_", "REDIS_URL_")

PRINT_SETTINGS = """
import json
from django.conf import settings as s
db = s.DATABASES["default"]
print(json.dumps({
    "mode": s.SERVICE_MODE,
    "engine": db["ENGINE"],
    "conn_max_age": db.get("CONN_MAX_AGE"),
    "health_checks": db.get("CONN_HEALTH_CHECKS"),
    "options": db.get("OPTIONS", {}),
    "db_user": db.get("USER"),
    "db_password": db.get("PASSWORD"),
    "db_host": db.get("HOST"),
    "layer": s.CHANNEL_LAYERS["default"]["BACKEND"],
    "layer_config": s.CHANNEL_LAYERS["default"].get("CONFIG"),
    "broker": s.CELERY_BROKER_URL,
    "embedded_worker": s.CELERY_WORKER_EMBEDDED,
    "debug": s.DEBUG,
    "secret_key": s.SECRET_KEY,
}))
"""


def clean_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {
        name: value
        for name, value in os.environ.items()
        if name not in STEERING and not name.startswith(STEERING_PREFIXES)
    }
    env["DJANGO_SECRET_KEY_FILE"] = str(tmp_path / "secret_key")
    env["DJANGO_SETTINGS_MODULE"] = "config.settings"
    env.update(extra)
    return env


def run_python(code: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=BASE_DIR,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def settings_for(tmp_path: Path, **extra: str) -> dict[str, Any]:
    result = run_python(PRINT_SETTINGS, clean_env(tmp_path, **extra))
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_embedded_default_when_nothing_is_set(tmp_path: Path) -> None:
    got = settings_for(tmp_path)
    assert got["mode"] == "embedded"
    assert got["engine"] == "django.db.backends.sqlite3"
    assert got["layer"] == "channels.layers.InMemoryChannelLayer"
    assert got["broker"] == "memory://"
    assert got["embedded_worker"] is True
    assert got["debug"] is False, "make run must not serve debug pages"


@pytest.mark.parametrize(("value", "debug"), [("1", True), ("true", True), ("0", False)])
def test_debug_is_on_only_when_asked_for(tmp_path: Path, value: str, debug: bool) -> None:
    assert settings_for(tmp_path, DJANGO_DEBUG=value)["debug"] is debug


# What `make run` serves with nothing set, read in its own interpreter: static files and the
# site's pages for a browser at http://127.0.0.1:8000/, with debug off.
SERVE = """
import json, django
django.setup()
from django.conf import settings
from django.test import Client
client = Client(HTTP_HOST="127.0.0.1:8000")
missing = client.get("/no-such-page/")
print(json.dumps({
    "debug": settings.DEBUG,
    "static": client.get("/static/css/site.css").status_code,
    "missing": missing.status_code,
    "styled": "Page not found" in missing.content.decode(),
    "api": client.get("/api/nope").json(),
}))
"""


def test_make_run_serves_static_files_and_its_own_pages_without_debug(tmp_path: Path) -> None:
    env = clean_env(tmp_path, SQLITE_PATH=str(tmp_path / "db.sqlite3"))
    result = run_python(SERVE, env)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == {
        "debug": False,
        "static": 200,
        "missing": 404,
        "styled": True,
        "api": {"error": "not_found", "message": "No such API resource."},
    }


def test_embedded_secret_key_is_generated_once_and_kept(tmp_path: Path) -> None:
    first = settings_for(tmp_path)["secret_key"]
    key_file = tmp_path / "secret_key"
    assert key_file.read_text().strip() == first
    assert len(first) >= 50
    assert key_file.stat().st_mode & 0o077 == 0, "the key file must be private"
    assert settings_for(tmp_path)["secret_key"] == first


def test_secret_key_from_environment_wins(tmp_path: Path) -> None:
    got = settings_for(tmp_path, DJANGO_SECRET_KEY="k" * 60)
    assert got["secret_key"] == "k" * 60
    assert not (tmp_path / "secret_key").exists()


def test_full_mode_when_services_are_set(tmp_path: Path) -> None:
    got = settings_for(
        tmp_path,
        DATABASE_URL="postgres://rummy:pw@db.example:5432/rummy",
        REDIS_URL="redis://cache.example:6379/0",
    )
    assert got["mode"] == "full"
    assert got["engine"] == "django.db.backends.postgresql"
    # Pooled (persistent connections are off: Django refuses both at once), bounded.
    assert got["conn_max_age"] == 0
    assert got["health_checks"] is True
    assert got["options"]["connect_timeout"] == 5
    assert got["options"]["pool"] == {
        "min_size": 2,
        "max_size": 10,
        "timeout": 2.0,
        "max_idle": 60.0,
        "reconnect_timeout": 1.0,
    }
    assert got["layer"] == "config.layers.RedisPubSubLayer"
    assert got["layer_config"] == {"hosts": ["redis://cache.example:6379/0"], "prefix": "asgi"}
    assert got["broker"] == "redis://cache.example:6379/0"
    assert got["embedded_worker"] is False


def test_the_pool_is_sized_from_the_environment_or_turned_off(tmp_path: Path) -> None:
    url = "postgres://rummy:pw@db.example:5432/rummy"
    sized = settings_for(tmp_path, DATABASE_URL=url, DB_POOL_MIN_SIZE="1", DB_POOL_MAX_SIZE="4")
    assert (sized["options"]["pool"]["min_size"], sized["options"]["pool"]["max_size"]) == (1, 4)
    off = settings_for(tmp_path, DATABASE_URL=url, DB_POOL="false")
    assert "pool" not in off["options"]
    assert off["conn_max_age"] == 60


SENTRY_STATE = """
import json
import django
django.setup()
import sentry_sdk
client = sentry_sdk.get_client()
pii = client.options.get("send_default_pii")
print(json.dumps([client.is_active(), sorted(client.integrations), pii]))
"""


def test_sentry_reports_from_every_process_only_when_a_dsn_is_set(tmp_path: Path) -> None:
    """Settings start Sentry (so the web servers and the worker, which both load them, report),
    with the Django and Celery integrations and no personal data; without a DSN, nothing."""
    dsn = "https://public@sentry.example/1"
    on = run_python(SENTRY_STATE, clean_env(tmp_path, SENTRY_DSN=dsn))
    assert on.returncode == 0, on.stderr
    active, integrations, pii = json.loads(on.stdout)
    assert active and {"django", "celery"} <= set(integrations) and pii is False
    off = run_python(SENTRY_STATE, clean_env(tmp_path, SENTRY_DSN=""))
    assert off.returncode == 0, off.stderr
    assert json.loads(off.stdout)[0] is False


def test_production_logs_json_lines_and_development_text(tmp_path: Path) -> None:
    code = "from django.conf import settings as s; print(s.LOG_FORMAT)"
    production = clean_env(
        tmp_path, DJANGO_ENV="production", DJANGO_SECRET_KEY="k" * 60, DJANGO_ALLOWED_HOSTS="a"
    )
    assert run_python(code, production).stdout.split() == ["json"]
    assert run_python(code, clean_env(tmp_path)).stdout.split() == ["text"]
    assert run_python(code, {**production, "LOG_FORMAT": "text"}).stdout.split() == ["text"]


def test_production_logs_to_stdout_and_development_to_stderr(tmp_path: Path) -> None:
    """The issue's "JSON lines on stdout" for the service; a command's own output on a
    developer's machine stays clean of log lines."""
    code = "import django, logging; django.setup(); logging.getLogger('x').warning('here')"
    production = clean_env(
        tmp_path, DJANGO_ENV="production", DJANGO_SECRET_KEY="k" * 60, DJANGO_ALLOWED_HOSTS="a"
    )
    served = run_python(code, production)
    assert json.loads(served.stdout.splitlines()[-1])["message"] == "here"
    assert "here" not in served.stderr
    developed = run_python(code, clean_env(tmp_path))
    assert "here" in developed.stderr and "here" not in developed.stdout
    piped = run_python(code, {**production, "LOG_STREAM": "stderr"})
    assert "here" in piped.stderr and "here" not in piped.stdout


def test_database_and_redis_switch_independently(tmp_path: Path) -> None:
    got = settings_for(tmp_path, REDIS_URL="redis://cache.example:6379/0")
    assert got["engine"] == "django.db.backends.sqlite3"
    assert got["layer"] == "config.layers.RedisPubSubLayer"
    assert got["embedded_worker"] is False


def test_database_from_parts_with_a_password_in_a_file(tmp_path: Path) -> None:
    """compose's way (issue 20, item 11): no URL to paste the password into."""
    secret = tmp_path / "db_password"
    secret.write_text("p@ss:w/rd+%40\n")
    got = settings_for(
        tmp_path,
        POSTGRES_HOST="postgres",
        POSTGRES_USER="rummy_app",
        POSTGRES_PASSWORD_FILE=str(secret),
    )
    assert got["mode"] == "full"
    assert got["engine"] == "django.db.backends.postgresql"
    assert (got["db_host"], got["db_user"], got["db_password"]) == (
        "postgres",
        "rummy_app",
        "p@ss:w/rd+%40",
    )


def test_production_reads_its_secret_key_from_a_file(tmp_path: Path) -> None:
    key = tmp_path / "django_key"
    key.write_text("f" * 60 + "\n")
    got = settings_for(
        tmp_path,
        DJANGO_ENV="production",
        DJANGO_ALLOWED_HOSTS="example.com",
        DJANGO_SECRET_KEY_FILE=str(key),
    )
    assert got["secret_key"] == "f" * 60


def test_production_needs_a_secret_key(tmp_path: Path) -> None:
    env = clean_env(tmp_path, DJANGO_ENV="production", DJANGO_ALLOWED_HOSTS="example.com")
    result = run_python(PRINT_SETTINGS, env)
    assert result.returncode != 0
    assert "DJANGO_SECRET_KEY" in result.stderr
    assert not (tmp_path / "secret_key").exists(), "production must never write a key file"


def test_production_is_selected_by_django_env(tmp_path: Path) -> None:
    got = settings_for(
        tmp_path,
        DJANGO_ENV="production",
        DJANGO_SECRET_KEY="p" * 60,
        DJANGO_ALLOWED_HOSTS="example.com",
    )
    assert got["debug"] is False
    assert got["secret_key"] == "p" * 60


def test_production_never_debugs_and_hardens_cookies(tmp_path: Path) -> None:
    code = (
        "import json; from django.conf import settings as s; print(json.dumps([s.DEBUG, "
        "s.SESSION_COOKIE_SECURE, s.SESSION_COOKIE_HTTPONLY, s.SESSION_COOKIE_SAMESITE, "
        "s.CSRF_COOKIE_SECURE, s.SECURE_SSL_REDIRECT, s.SECURE_HSTS_SECONDS > 0, "
        "len(s.AUTH_PASSWORD_VALIDATORS)]))"
    )
    env = clean_env(
        tmp_path,
        DJANGO_ENV="production",
        DJANGO_DEBUG="true",  # ignored: production never debugs
        DJANGO_SECRET_KEY="p" * 60,
        DJANGO_ALLOWED_HOSTS="example.com",
    )
    result = run_python(code, env)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == [False, True, True, "Lax", True, True, True, 4]


def test_production_passes_check_deploy(tmp_path: Path) -> None:
    env = clean_env(
        tmp_path,
        DJANGO_SETTINGS_MODULE="config.settings.production",
        # A long random-looking key, as check --deploy wants (W009).
        DJANGO_SECRET_KEY="x7Qk2L9vR4pT8wZ1mN6bC3fH5jD0sG-aE_yU" * 2,
        DJANGO_ALLOWED_HOSTS="rummy.example.com",
    )
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=BASE_DIR,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues" in result.stdout


def test_parallel_first_starts_agree_on_one_key(tmp_path: Path) -> None:
    """Two processes started together (server and a manage.py command) must share a key."""
    code = "from django.conf import settings; print(settings.SECRET_KEY)"
    processes = [
        subprocess.Popen(
            [sys.executable, "-c", code],
            cwd=BASE_DIR,
            env=clean_env(tmp_path),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(6)
    ]
    keys = {process.communicate(timeout=60)[0].strip() for process in processes}
    assert len(keys) == 1 and "" not in keys, keys
    assert (tmp_path / "secret_key").read_text().strip() in keys
    assert [p.name for p in tmp_path.iterdir()] == ["secret_key"], "temporary files left behind"


def test_secret_key_file_is_private_whatever_the_umask(tmp_path: Path) -> None:
    code = "import os; os.umask(0); from django.conf import settings; settings.SECRET_KEY"
    result = run_python(code, clean_env(tmp_path))
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "secret_key").stat().st_mode & 0o777 == 0o600


def test_empty_secret_key_file_is_refused(tmp_path: Path) -> None:
    (tmp_path / "secret_key").write_text("\n")
    result = run_python(PRINT_SETTINGS, clean_env(tmp_path))
    assert result.returncode != 0
    assert "is empty; delete it" in result.stderr
