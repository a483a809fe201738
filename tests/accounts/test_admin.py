"""The Django admin manages users, clubs and memberships."""

import pytest
from django.test import Client

from accounts.models import Club, ClubMembership
from tests.accounts.factories import ClubMembershipFactory, UserFactory

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    "url",
    [
        "/admin/accounts/user/",
        "/admin/accounts/club/",
        "/admin/accounts/club/add/",
        "/admin/accounts/clubmembership/",
    ],
)
def test_admin_pages_render(admin_client: Client, url: str) -> None:
    ClubMembershipFactory()
    assert admin_client.get(url).status_code == 200


def test_admin_creates_club_with_an_admin_member(admin_client: Client) -> None:
    member = UserFactory()
    response = admin_client.post(
        "/admin/accounts/club/add/",
        {
            "name": "Thursday Club",
            "slug": "thursday",
            "memberships-TOTAL_FORMS": "1",
            "memberships-INITIAL_FORMS": "0",
            "memberships-0-user": str(member.pk),
            "memberships-0-role": "admin",
        },
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    club = Club.objects.get(slug="thursday")
    assert ClubMembership.objects.get(club=club).role == "admin"


def test_admin_login_page_is_served() -> None:
    assert Client().get("/admin/login/").status_code == 200
