"""The lobby's create-table form offers the creator's clubs, and a club table says so."""

from __future__ import annotations

import pytest
from django.test import Client

from accounts.models import Club, ClubMembership, User
from games.models import Table
from tests.accounts.factories import ClubFactory, UserFactory
from tests.games.test_views import LOBBY, form_data, logged_in

pytestmark = pytest.mark.django_db


def joined(user: User, *clubs: Club) -> User:
    for club in clubs:
        ClubMembership.objects.create(club=club, user=user)
    return user


def test_the_club_choice_lists_only_the_creator_s_clubs(client: Client) -> None:
    hearts, spades = ClubFactory(name="Hearts", slug="hearts"), ClubFactory(slug="spades")
    ClubFactory(name="Diamonds", slug="diamonds")
    ann = joined(UserFactory(), hearts, spades)
    page = logged_in(client, ann).get(LOBBY).content.decode()
    assert '<select name="club" aria-describedby="id_club_helptext" id="id_club">' in page
    assert '<option value="" selected>No club: open to everyone</option>' in page
    assert '<option value="hearts">Hearts</option>' in page
    assert '<option value="spades">' in page
    assert '<option value="diamonds">' not in page


def test_without_a_club_there_is_no_club_choice(client: Client) -> None:
    ClubFactory(slug="hearts")
    page = logged_in(client, UserFactory()).get(LOBBY).content.decode()
    assert 'name="club"' not in page


def test_a_member_creates_a_club_table_and_the_lobby_names_the_club(client: Client) -> None:
    hearts = ClubFactory(name="Hearts", slug="hearts")
    ann = joined(UserFactory(), hearts)
    response = logged_in(client, ann).post(LOBBY, form_data(club="hearts"))
    table = Table.objects.get()
    assert response.status_code == 302 and response["Location"] == f"/tables/{table.pk}/"
    assert table.club == hearts
    page = logged_in(client, UserFactory()).get(LOBBY).content.decode()
    assert "<dd>Hearts (members only)</dd>" in page


def test_no_club_chosen_makes_an_open_table(client: Client) -> None:
    ann = joined(UserFactory(), ClubFactory(slug="hearts"))
    logged_in(client, ann).post(LOBBY, form_data(club=""))
    assert Table.objects.get().club is None


def test_a_club_the_creator_is_not_in_is_refused(client: Client) -> None:
    ann = joined(UserFactory(), ClubFactory(slug="hearts"))
    ClubFactory(slug="spades")
    response = logged_in(client, ann).post(LOBBY, form_data(club="spades"))
    assert response.status_code == 200
    assert "Select a valid choice" in response.content.decode()
    assert not Table.objects.exists()
