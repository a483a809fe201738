"""`make run` serves with debug off and `make dev` with it on: the Makefile run for real, on a
stand-in virtualenv whose python and daphne only write down how they were called."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from django.conf import settings

BASE_DIR = Path(settings.BASE_DIR)

# Each stand-in appends its name, DJANGO_DEBUG (or "-" when unset) and its arguments.
STAND_IN = '#!/bin/sh\necho "$(basename "$0") ${DJANGO_DEBUG:--} $*" >> "$CALLS"\n'

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")


def calls_of(target: str, tmp_path: Path) -> list[str]:
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    for name in ("python", "daphne"):
        (venv / "bin" / name).write_text(STAND_IN)
        (venv / "bin" / name).chmod(0o755)
    (venv / ".installed").touch()  # newer than pyproject.toml: nothing to install
    calls = tmp_path / "calls"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "MAKE"))}
    result = subprocess.run(
        ["make", "--no-print-directory", "-s", target, f"VENV={venv}", "PORT=8123"],
        cwd=BASE_DIR,
        env={**env, "CALLS": str(calls)},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return calls.read_text().splitlines()


def test_make_run_serves_with_debug_off(tmp_path: Path) -> None:
    calls = calls_of("run", tmp_path)
    assert calls[-1] == "daphne - -b 127.0.0.1 -p 8123 config.asgi:application"
    assert all(" - " in call for call in calls), calls


def test_make_dev_serves_as_make_run_with_debug_on(tmp_path: Path) -> None:
    calls = calls_of("dev", tmp_path)
    assert calls[-1] == "daphne 1 -b 127.0.0.1 -p 8123 config.asgi:application"
    assert [call.split()[0] for call in calls] == ["python", "python", "python", "daphne"]
