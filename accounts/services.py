"""Account writes: registration and API tokens."""

from django.contrib.auth import authenticate, password_validation
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.http import HttpRequest
from rest_framework.authtoken.models import Token

from accounts.models import User
from config.errors import ServiceError


class UsernameTaken(ServiceError):
    """The username is already used (compared without regard to case)."""

    def __init__(self) -> None:
        super().__init__("username_taken", "That username is taken.", 409)


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

    :raises UsernameTaken: when the name is in use, even with different case ("Ann" vs "ann"),
        so two players can never look alike on a leaderboard.
    :raises WeakPassword: when the password validators refuse it.
    """
    if User.objects.filter(username__iexact=username).exists():
        raise UsernameTaken()
    user = User(username=username, email=email)
    try:
        password_validation.validate_password(password, user=user)
    except ValidationError as exc:
        raise WeakPassword(list(exc.messages)) from exc
    user.set_password(password)
    try:
        with transaction.atomic():
            user.save()
            token = Token.objects.create(user=user)
    except IntegrityError as exc:  # a concurrent sign-up took the name after our check
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
