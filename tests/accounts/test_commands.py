"""`create_admin` and `load_initial_data`, the setup steps of `make run`."""

import json
import re
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.apps import apps
from django.core.management import call_command

from accounts.management.commands.load_initial_data import initial_fixtures
from accounts.models import Club, User

pytestmark = pytest.mark.django_db


def run(*args: str) -> str:
    out = StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


def printed_password(output: str) -> str:
    match = re.search(r"with password '([^']+)'", output)
    assert match, output
    return match.group(1)


def test_create_admin_prints_password_once() -> None:
    password = printed_password(run("create_admin"))
    admin = User.objects.get(username="admin")
    assert admin.is_superuser and admin.is_staff
    assert admin.check_password(password)

    second = run("create_admin")
    assert "exists already" in second
    assert password not in second
    assert User.objects.filter(is_superuser=True).count() == 1


def test_create_admin_passwords_differ_between_installs() -> None:
    first = printed_password(run("create_admin"))
    User.objects.all().delete()
    assert printed_password(run("create_admin")) != first


@pytest.fixture
def app_with_fixture(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, settings: Any) -> Path:
    """Give the accounts app a fixtures/initial_clubs.json, as an app ships its presets."""
    fixtures = tmp_path / "fixtures"
    fixtures.mkdir()
    club = {"name": "House", "slug": "house", "created_at": "2026-01-01T00:00:00Z"}
    (fixtures / "initial_clubs.json").write_text(
        json.dumps([{"model": "accounts.club", "pk": 1, "fields": club}])
    )
    (fixtures / "other.json").write_text("[]")
    monkeypatch.setattr(apps.get_app_config("accounts"), "path", str(tmp_path))
    settings.BASE_DIR = tmp_path.parent
    return fixtures


def test_load_initial_data_finds_only_initial_fixtures(app_with_fixture: Path) -> None:
    assert initial_fixtures() == [app_with_fixture / "initial_clubs.json"]


def test_load_initial_data_is_idempotent(app_with_fixture: Path) -> None:
    assert "1 fixture file(s) loaded" in run("load_initial_data")
    run("load_initial_data")
    assert list(Club.objects.values_list("slug", flat=True)) == ["house"]
