"""Account forms: sign-up, log-in (the page's and the admin's) and the admin's user forms, each
holding usernames to the one rule of accounts.usernames."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth.forms import (
    AdminUserCreationForm,
    AuthenticationForm,
    UserChangeForm,
    UserCreationForm,
)
from django.core.exceptions import ValidationError

from accounts import login_guard, services
from accounts.models import User


class UsernameRule(forms.ModelForm):
    """Refuses a username that is taken or looks like a taken one (``services.username_check``),
    with the service's reason."""

    def clean_username(self) -> Any:
        clean = getattr(super(), "clean_username", None)
        username = clean() if clean is not None else self.cleaned_data.get("username")
        if username:
            try:
                services.username_check(username, exclude=self.instance.pk)
            except services.UsernameTaken as exc:
                raise ValidationError(exc.message, code="unique") from exc
        return username


class SignUpForm(UsernameRule, UserCreationForm):
    """Django's sign-up form for our user model, asking for an email address too."""

    class Meta(UserCreationForm.Meta):
        model = User
        fields = ("username", "email")


class AdminAddUserForm(UsernameRule, AdminUserCreationForm):
    class Meta(AdminUserCreationForm.Meta):
        model = User
        fields = ("username",)


class AdminChangeUserForm(UsernameRule, UserChangeForm):
    class Meta(UserChangeForm.Meta):
        model = User


class LockoutMessage:
    """A log-in form that says why when the log-in guard refused the attempt (accounts.login_guard),
    instead of "wrong password"; the guard's middleware answer sets 429 and ``Retry-After``."""

    request: Any

    def get_invalid_login_error(self) -> ValidationError:
        wait = login_guard.locked_wait(self.request)
        if wait is not None:
            return ValidationError(login_guard.locked_message(wait), code="locked")
        return super().get_invalid_login_error()  # type: ignore[misc]


class LoginForm(LockoutMessage, AuthenticationForm):
    pass


class AdminLoginForm(LockoutMessage, AdminAuthenticationForm):
    pass
