"""Create the first admin account once, printing its generated password once.

The password is shown on the terminal and stored nowhere but as a hash, so nothing secret lands in
the repository or in a file; run again, the command sees the account and does nothing.
"""

import secrets
from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandParser


class Command(BaseCommand):
    help = "Create a superuser with a generated password, unless one exists already."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--username", default="admin")
        parser.add_argument("--email", default="admin@localhost")

    def handle(self, *args: Any, username: str, email: str, **options: Any) -> None:
        users = get_user_model().objects
        if users.filter(is_superuser=True).exists():
            self.stdout.write("An admin account exists already; nothing to do.")
            return
        password = secrets.token_urlsafe(12)
        users.create_superuser(username=username, email=email, password=password)
        self.stdout.write(
            self.style.SUCCESS(
                f"Admin account created. Log in at /admin/ as {username!r} with password "
                f"{password!r}. It is shown only this once: keep it, or change it there."
            )
        )
