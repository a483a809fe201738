"""Users and clubs.

The user model is our own from the first migration: swapping it later is one of the few changes
Django cannot migrate, and profiles and ratings will hang off it.
"""

from __future__ import annotations

from typing import Any, ClassVar

from django.conf import settings
from django.contrib.auth.models import AbstractUser, UserManager
from django.db import models
from rest_framework.authtoken.models import Token

from accounts.usernames import canonical, skeleton


class Users(UserManager["User"]):
    def get_by_natural_key(self, username: str | None) -> User:
        """The account a log-in names (every door asks here, through ``authenticate``): the one
        stored under the name exactly as typed, else the one whose canonical key it has
        (accounts.usernames), so ``Ann`` and a fullwidth ``ANN`` are ``ann``. The exact match
        first keeps an account that the key migration found clashing with an older one (its key
        left empty) reachable by its own spelling."""
        found = self.named(username or "")
        if found is None:
            raise self.model.DoesNotExist(f"no user {username!r}")
        return found

    def named(self, name: str) -> User | None:
        """The account a name typed by anyone means (a log-in, a player's page, a mute, a
        leaderboard search), or None: compared one way everywhere, as ``get_by_natural_key``."""
        exact = self.filter(username=name).first()
        return exact or self.filter(username_key=canonical(name)).first()


class User(AbstractUser):
    """A player, organizer or club admin; every account can play."""

    # accounts.usernames: the key names are compared by (unique), and what the name looks like
    # (registration refuses a look-alike of a taken name). Both follow ``username`` on save.
    # Null only for an account the key migration found clashing with an older one (0002); unique
    # holds among the rest.
    username_key = models.CharField(  # noqa: DJ001
        max_length=600, unique=True, null=True, editable=False
    )
    username_skeleton = models.CharField(max_length=600, db_index=True, editable=False)

    objects: ClassVar[Users] = Users()

    def save(self, *args: Any, **kwargs: Any) -> None:
        """Save; when an existing account's password was changed (``set_password`` since it was
        read: the password page, the admin, a reset, ``changepassword``), its API tokens are
        revoked too, as Django's sessions are: whoever held the old password must not keep the
        account through a token."""
        # ``set_password`` keeps the new raw password in ``_password`` until the save.
        changed = self.pk is not None and getattr(self, "_password", None) is not None
        self.username_key = self._key()
        self.username_skeleton = skeleton(self.username)
        update_fields = kwargs.get("update_fields")
        if update_fields is not None and "username" in update_fields:
            kwargs["update_fields"] = {*update_fields, "username_key", "username_skeleton"}
        super().save(*args, **kwargs)
        if changed:
            Token.objects.filter(user_id=self.pk).delete()

    def _key(self) -> str | None:
        key = canonical(self.username)
        if self.username_key is None and self.pk is not None:
            # A clash the key migration left (0002): the older account holds the key, and this
            # one keeps none until it is renamed to a free name.
            taken = User.objects.filter(username_key=key).exclude(pk=self.pk).exists()
            return None if taken else key
        return key


class Club(models.Model):
    """A club that runs events and records face-to-face games for its members."""

    name = models.CharField(max_length=100, unique=True)
    slug = models.SlugField(max_length=100, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)
    members = models.ManyToManyField(
        settings.AUTH_USER_MODEL, through="ClubMembership", related_name="clubs"
    )

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class ClubMembership(models.Model):
    """A user's place in a club; admins manage the club's events and members."""

    class Role(models.TextChoices):
        MEMBER = "member", "Member"
        ADMIN = "admin", "Admin"

    club = models.ForeignKey(Club, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="club_memberships"
    )
    role = models.CharField(max_length=10, choices=Role.choices, default=Role.MEMBER)
    joined_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["club", "user"], name="unique_club_membership"),
        ]
        ordering = ["club", "user"]

    def __str__(self) -> str:
        return f"{self.user} in {self.club} ({self.role})"
