"""config.envfiles: secrets from NAME_FILE, and the database URL built from its parts."""

from pathlib import Path

import environ
import pytest
from django.core.exceptions import ImproperlyConfigured

from config.envfiles import env_or_file, postgres_url

# Each character that ends or re-reads a URL's password when pasted in raw.
PASSWORDS = ["a/b", "a+b", "a@b", "a:b", "a%2Fb", "p@ss:w/rd+%40=?#&~ é"]


def test_a_file_gives_the_value_without_its_trailing_newline(tmp_path: Path) -> None:
    secret = tmp_path / "secret"
    secret.write_text("s3cret value\n")
    assert env_or_file("KEY", environ={"KEY_FILE": str(secret)}) == "s3cret value"


def test_a_value_without_a_file_is_read_as_it_is() -> None:
    assert env_or_file("KEY", environ={"KEY": " spaced "}) == " spaced "


def test_the_value_wins_over_the_file(tmp_path: Path) -> None:
    secret = tmp_path / "secret"
    secret.write_text("from the file")
    assert env_or_file("KEY", environ={"KEY": "x", "KEY_FILE": str(secret)}) == "x"


def test_a_missing_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ImproperlyConfigured, match="KEY_FILE"):
        env_or_file("KEY", environ={"KEY_FILE": str(tmp_path / "absent")})


def test_nothing_set_is_the_default_or_refused() -> None:
    assert env_or_file("KEY", "fallback", environ={}) == "fallback"
    with pytest.raises(ImproperlyConfigured, match="set KEY"):
        env_or_file("KEY", environ={})


@pytest.mark.parametrize("password", PASSWORDS)
def test_any_password_survives_the_url(password: str) -> None:
    url = postgres_url({"POSTGRES_HOST": "postgres", "POSTGRES_PASSWORD": password})
    config = environ.Env.db_url_config(url)
    assert config["PASSWORD"] == password
    assert (config["HOST"], config["PORT"], config["NAME"], config["USER"]) == (
        "postgres",
        5432,
        "rummy",
        "rummy",
    )


def test_the_parts_come_from_the_environment_and_the_password_from_a_file(tmp_path: Path) -> None:
    secret = tmp_path / "db_password"
    secret.write_text("a/b+c@d:e%f\n")
    url = postgres_url(
        {
            "POSTGRES_HOST": "db.internal",
            "POSTGRES_PORT": "6432",
            "POSTGRES_DB": "club",
            "POSTGRES_USER": "rummy_app",
            "POSTGRES_PASSWORD_FILE": str(secret),
        }
    )
    config = environ.Env.db_url_config(url)
    assert config["PASSWORD"] == "a/b+c@d:e%f"
    assert (config["HOST"], config["PORT"], config["NAME"], config["USER"]) == (
        "db.internal",
        6432,
        "club",
        "rummy_app",
    )


def test_no_host_no_url() -> None:
    assert postgres_url({"POSTGRES_PASSWORD": "x"}) == ""
