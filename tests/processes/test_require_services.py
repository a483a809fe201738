"""`REQUIRE_SERVICES=1` (tests/conftest.py): the suite stops at once without its services."""

import os
import subprocess
import sys

import pytest
from django.conf import settings


def run_suite(**env: str) -> subprocess.CompletedProcess[str]:
    base = {
        name: value
        for name, value in os.environ.items()
        if name not in ("DATABASE_URL", "REDIS_URL", "REQUIRE_SERVICES")
    }
    return subprocess.run(
        # Any small test file will do: the check runs before a single test.
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/test_compose.py"],
        cwd=settings.BASE_DIR,
        env={**base, **env},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_missing_variables_fail_the_run() -> None:
    result = run_suite(REQUIRE_SERVICES="1")
    assert result.returncode == pytest.ExitCode.USAGE_ERROR
    assert "DATABASE_URL is not set" in result.stderr
    assert "REDIS_URL is not set" in result.stderr
    assert "passed" not in result.stdout


def test_services_that_do_not_answer_fail_the_run() -> None:
    result = run_suite(
        REQUIRE_SERVICES="1",
        # Port 1: nothing listens there.
        DATABASE_URL="postgres://postgres@127.0.0.1:1/rummy",
        REDIS_URL="redis://127.0.0.1:1/0",
    )
    assert result.returncode == pytest.ExitCode.USAGE_ERROR
    assert "DATABASE_URL 127.0.0.1:1 does not answer" in result.stderr


def test_without_the_flag_the_suite_falls_back_to_the_embedded_default() -> None:
    result = run_suite()
    assert result.returncode == pytest.ExitCode.OK, result.stdout + result.stderr
    assert " passed" in result.stdout
