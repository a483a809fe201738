"""Account writes: registration and API tokens."""

from collections.abc import Iterator
from contextlib import contextmanager

from django.contrib.auth import authenticate, password_validation
from django.core.exceptions import ValidationError
from django.db import IntegrityError, connection, transaction
from django.db.models import Q
from django.http import HttpRequest
from rest_framework.authtoken.models import Token

from accounts.models import User
from accounts.usernames import canonical, skeleton
from config.errors import ServiceError


class UsernameTaken(ServiceError):
    """The username is already used, or one that looks like it (accounts.usernames)."""

    TAKEN = "That username is taken."
    LOOKALIKE = "That username looks like one that is taken; choose another."

    def __init__(self, message: str = TAKEN) -> None:
        super().__init__("username_taken", message, 409)


def username_check(username: str, *, exclude: int | None = None) -> None:
    """Refuse a name for a new account (or for renaming account ``exclude``): one with the canonical
    key of a taken name (``ADMIN``, a fullwidth ``admin``, beside ``admin``), or with its skeleton
    (``admin`` with a Cyrillic ``a``, ``bob1`` beside ``bobl``), so no two players can look alike on
    a leaderboard. The key is unique in the database too; the skeleton is checked here only.

    :raises UsernameTaken: with the reason in its message.
    """
    key = canonical(username)
    found = User.objects.filter(Q(username_key=key) | Q(username_skeleton=skeleton(username)))
    if exclude is not None:
        found = found.exclude(pk=exclude)
    keys = list(found.values_list("username_key", flat=True)[:5])
    if key in keys:
        raise UsernameTaken()
    if keys:
        raise UsernameTaken(UsernameTaken.LOOKALIKE)


@contextmanager
def name_claimed(username: str) -> Iterator[None]:
    """A transaction in which ``username`` is free to take: the name's look (its skeleton) is
    locked until the transaction ends, then ``username_check`` runs again. Two look-alike
    sign-ups at the same instant then take turns, and the second sees the first; the skeleton
    is not unique in the database (accounts that were look-alikes before the check existed keep
    their names), so the lock is what holds it. SQLite runs one writer at a time already.

    :raises UsernameTaken: as ``username_check``.
    """
    with transaction.atomic():
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", [skeleton(username)])
        username_check(username)
        yield


class WeakPassword(ServiceError):
    """The password fails the configured validators; ``messages`` says why, also as the
    ``fields`` of the answer (as a validation error names its fields)."""

    def __init__(self, messages: list[str]) -> None:
        super().__init__("weak_password", " ".join(messages), fields={"password": messages})
        self.messages = messages


class InvalidCredentials(ServiceError):
    """No active user has this username and password (the message does not say which)."""

    def __init__(self) -> None:
        super().__init__("invalid_credentials", "Unknown username or wrong password.", 401)


def user_register(*, username: str, password: str, email: str = "") -> tuple[User, Token]:
    """Create a user and its API token.

    The name is stored in NFKC, as Django's own forms store it (a fullwidth ``n`` is ``n``).

    :raises UsernameTaken: when the name or one that looks like it is in use (``username_check``).
    :raises WeakPassword: when the password validators refuse it.
    """
    username = User.normalize_username(username)
    username_check(username)
    user = User(username=username, email=email)
    try:
        password_validation.validate_password(password, user=user)
    except ValidationError as exc:
        raise WeakPassword(list(exc.messages)) from exc
    user.set_password(password)
    try:
        with name_claimed(username):
            user.save()
            token = Token.objects.create(user=user)
    except IntegrityError as exc:  # a concurrent sign-up took the name's key after our check
        raise UsernameTaken() from exc
    return user, token


def token_revoke(user: User) -> None:
    """Revoke ``user``'s API token: requests with it are refused from now on, and the next
    ``POST /api/auth/token/`` makes a new one."""
    Token.objects.filter(user=user).delete()


def token_for_credentials(*, request: HttpRequest | None, username: str, password: str) -> Token:
    """Return the user's API token, creating it on first use.

    :raises InvalidCredentials: for an unknown user, a wrong password or an inactive account,
        without saying which (that would tell an attacker which usernames exist).
    """
    user = authenticate(request, username=username, password=password)
    if user is None:
        raise InvalidCredentials()
    token, _ = Token.objects.get_or_create(user=user)
    return token
