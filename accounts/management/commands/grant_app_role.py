"""Create (or update) the database role the application connects as, with no more than it needs.

Run by compose's ``migrate`` service after ``migrate``, connected as the role that owns the
tables (the database's superuser there). The application role may log in, read and write rows
and use sequences in the ``public`` schema, today's tables and those later migrations create
(default privileges of the role running this); it owns nothing and may not create, alter or
drop tables, so a bug or an injection in the running app cannot change the schema or drop data
wholesale. Run again, it changes nothing but the password, which it always sets (rotation: change
the secret, run ``migrate`` again, restart the app).

The password comes from ``POSTGRES_APP_PASSWORD`` or the file ``POSTGRES_APP_PASSWORD_FILE``
names (config/envfiles.py). PostgreSQL only.
"""

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import connection, transaction

from config.envfiles import env_or_file

ROWS = "SELECT, INSERT, UPDATE, DELETE"
SEQUENCES = "USAGE, SELECT, UPDATE"


def grant_statements(role: str, database: str) -> list[str]:
    """The grants, in order, with ``role`` and ``database`` already quoted."""
    return [
        f"GRANT CONNECT ON DATABASE {database} TO {role}",
        f"GRANT USAGE ON SCHEMA public TO {role}",
        f"GRANT {ROWS} ON ALL TABLES IN SCHEMA public TO {role}",
        f"GRANT {SEQUENCES} ON ALL SEQUENCES IN SCHEMA public TO {role}",
        f"ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT {ROWS} ON TABLES TO {role}",
        f"ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT {SEQUENCES} ON SEQUENCES TO {role}",
    ]


class Command(BaseCommand):
    help = "Create or update the application's own database role (rows only, no schema changes)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--role", default="rummy_app")

    def handle(self, *args: Any, role: str, **options: Any) -> None:
        if connection.vendor != "postgresql":
            raise CommandError("grant_app_role is for PostgreSQL")
        password = env_or_file("POSTGRES_APP_PASSWORD", default="")
        if not password:
            raise CommandError("set POSTGRES_APP_PASSWORD (or POSTGRES_APP_PASSWORD_FILE)")
        quote = connection.ops.quote_name
        name = quote(role)
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", [role])
            verb = "ALTER" if cursor.fetchone() else "CREATE"
            cursor.execute(
                f"{verb} ROLE {name} WITH LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE "
                "NOREPLICATION NOBYPASSRLS PASSWORD %s",
                [password],
            )
            for statement in grant_statements(name, quote(connection.settings_dict["NAME"])):
                cursor.execute(statement)
        self.stdout.write(f"{verb.lower()}d role {role}: rows and sequences in schema public")
