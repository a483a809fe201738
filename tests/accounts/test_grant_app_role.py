"""grant_app_role: the application's own database role reads and writes rows, and cannot change
the schema (PostgreSQL only)."""

import os
from collections.abc import Iterator

import psycopg
import pytest
from django.core.management import call_command
from django.db import connection

pytestmark = pytest.mark.skipif(
    not os.environ.get("DATABASE_URL", "").startswith("postgres"), reason="PostgreSQL only"
)

PASSWORD = "p@ss:w/rd+%40"


@pytest.fixture
def role(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A role of this test's own (roles are shared by the whole server), dropped afterwards."""
    name = f"rummy_app_test_{os.getpid()}"
    monkeypatch.setenv("POSTGRES_APP_PASSWORD", PASSWORD)
    yield name
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", [name])
        if cursor.fetchone():
            cursor.execute(f'DROP OWNED BY "{name}"')
            cursor.execute(f'DROP ROLE "{name}"')


def connect_as(role: str) -> psycopg.Connection:
    db = connection.settings_dict
    return psycopg.connect(
        host=db["HOST"] or "127.0.0.1",
        port=db["PORT"] or 5432,
        dbname=db["NAME"],
        user=role,
        password=PASSWORD,
        autocommit=True,
    )


@pytest.mark.django_db(transaction=True)
def test_the_app_role_reads_and_writes_rows_but_not_the_schema(role: str) -> None:
    call_command("grant_app_role", role=role)
    call_command("grant_app_role", role=role)  # run again (every deployment): no error
    with connect_as(role) as app:
        assert app.execute(
            "SELECT rolsuper FROM pg_roles WHERE rolname = current_user"
        ).fetchone() == (False,)
        app.execute(
            "INSERT INTO accounts_user (password, is_superuser, username, first_name, last_name,"
            " email, is_staff, is_active, date_joined, username_key, username_skeleton)"
            " VALUES ('x', false, 'role_probe', '', '', '', false, true, now(), 'role_probe',"
            " 'role_probe')"
        )
        assert app.execute("SELECT count(*) FROM accounts_user").fetchone() == (1,)
        app.execute("DELETE FROM accounts_user WHERE username = 'role_probe'")
        for ddl in (
            "CREATE TABLE probe (id int)",
            "DROP TABLE accounts_user",
            "TRUNCATE accounts_user",
        ):
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                app.execute(ddl)


@pytest.mark.django_db(transaction=True)
def test_tables_made_later_by_the_owner_are_granted_too(role: str) -> None:
    call_command("grant_app_role", role=role)
    with connection.cursor() as cursor:
        cursor.execute("CREATE TABLE later_probe (id serial primary key, note text)")
    try:
        with connect_as(role) as app:
            app.execute("INSERT INTO later_probe (note) VALUES ('from a later migration')")
            assert app.execute("SELECT note FROM later_probe").fetchone() == (
                "from a later migration",
            )
    finally:
        with connection.cursor() as cursor:
            cursor.execute("DROP TABLE later_probe")
