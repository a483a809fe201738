import pytest
from django.contrib.auth import get_user_model
from django.db import IntegrityError

from accounts.models import ClubMembership, User
from tests.accounts.factories import ClubFactory, ClubMembershipFactory, UserFactory

pytestmark = pytest.mark.django_db


def test_custom_user_model_is_active() -> None:
    assert get_user_model() is User


def test_membership_defaults_to_member_role() -> None:
    membership = ClubMembershipFactory()
    assert membership.role == ClubMembership.Role.MEMBER
    assert list(membership.club.members.all()) == [membership.user]
    assert list(membership.user.clubs.all()) == [membership.club]


def test_a_user_joins_a_club_once() -> None:
    club, user = ClubFactory(), UserFactory()
    ClubMembershipFactory(club=club, user=user, role=ClubMembership.Role.ADMIN)
    with pytest.raises(IntegrityError):
        ClubMembershipFactory(club=club, user=user)


def test_club_admins_are_found_by_role() -> None:
    club = ClubFactory()
    admin = ClubMembershipFactory(club=club, role=ClubMembership.Role.ADMIN).user
    ClubMembershipFactory(club=club)
    admins = club.members.filter(club_memberships__role=ClubMembership.Role.ADMIN)
    assert list(admins) == [admin]
