"""deploy/backup.sh, compose's scheduled backup: a whole dump, then old dumps deleted (and kept
when the dump fails). PostgreSQL only; the restore itself is tests/processes/test_backup.py."""

import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection

pytestmark = [
    pytest.mark.skipif(
        not os.environ.get("DATABASE_URL", "").startswith("postgres"), reason="PostgreSQL only"
    ),
    pytest.mark.skipif(shutil.which("pg_dump") is None, reason="needs pg_dump"),
]

SCRIPT = Path(settings.BASE_DIR) / "deploy" / "backup.sh"
DAY = 24 * 3600


def run_once(folder: Path, **extra: str) -> subprocess.CompletedProcess[str]:
    db = connection.settings_dict
    env = {
        "PATH": os.environ["PATH"],
        "PGHOST": db["HOST"] or "127.0.0.1",
        "PGPORT": str(db["PORT"] or 5432),
        "PGDATABASE": db["NAME"],
        "PGUSER": db["USER"],
        "PGPASSWORD": db["PASSWORD"] or "",
        "BACKUP_DIR": str(folder),
        "BACKUP_KEEP_DAYS": "14",
        **extra,
    }
    return subprocess.run(
        ["sh", str(SCRIPT), "once"], env=env, capture_output=True, text=True, timeout=120
    )


def aged(folder: Path, name: str, days: float) -> Path:
    path = folder / name
    path.write_bytes(b"old dump")
    then = time.time() - days * DAY
    os.utime(path, (then, then))
    return path


@pytest.mark.django_db
def test_a_round_writes_a_whole_dump_and_deletes_only_expired_ones(tmp_path: Path) -> None:
    expired = aged(tmp_path, "rummy-2026-01-01T000000Z.dump", 20)
    recent = aged(tmp_path, "rummy-2026-02-01T000000Z.dump", 1)
    other = aged(tmp_path, "notes.txt", 100)
    result = run_once(tmp_path)
    assert result.returncode == 0, result.stderr
    written = sorted(set(tmp_path.glob("rummy-*.dump")) - {recent})
    assert len(written) == 1
    listing = subprocess.run(
        ["pg_restore", "--list", str(written[0])], capture_output=True, text=True, check=True
    )
    assert "accounts_user" in listing.stdout
    assert not expired.exists()
    assert recent.exists() and other.exists()
    assert not list(tmp_path.glob(".*partial"))


def test_a_failed_dump_keeps_every_old_one(tmp_path: Path) -> None:
    expired = aged(tmp_path, "rummy-2026-01-01T000000Z.dump", 20)
    result = run_once(tmp_path, PGHOST="127.0.0.1", PGPORT="1", PGCONNECT_TIMEOUT="2")
    assert result.returncode == 1
    assert "old dumps kept" in result.stderr
    assert expired.exists()
    assert list(tmp_path.iterdir()) == [expired]
