"""Users and clubs.

The user model is our own from the first migration: swapping it later is one of the few changes
Django cannot migrate, and profiles and ratings will hang off it.
"""

from typing import Any

from django.conf import settings
from django.contrib.auth.models import AbstractUser
from django.db import models
from rest_framework.authtoken.models import Token


class User(AbstractUser):
    """A player, organizer or club admin; every account can play."""

    def save(self, *args: Any, **kwargs: Any) -> None:
        """Save; when an existing account's password was changed (``set_password`` since it was
        read: the password page, the admin, a reset, ``changepassword``), its API tokens are
        revoked too, as Django's sessions are: whoever held the old password must not keep the
        account through a token."""
        # ``set_password`` keeps the new raw password in ``_password`` until the save.
        changed = self.pk is not None and getattr(self, "_password", None) is not None
        super().save(*args, **kwargs)
        if changed:
            Token.objects.filter(user_id=self.pk).delete()


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
