"""Club tables (only the club's members sit; ratings count them in the club's pool) and what a
finished game's placements say for the ratings: who was absent, who ever acted."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from accounts.models import Club, ClubMembership, User
from games import services
from games.clock_services import table_enforce_deadline
from games.errors import TableError
from games.models import GameResult, RuleSet
from tests.games.clocks import FakeTime, fresh
from tests.games.tables import contested_seed, play_greedy, players, started_table

pytestmark = pytest.mark.django_db


@pytest.fixture
def club() -> Club:
    return Club.objects.create(name="Hearts", slug="hearts")


def member(club: Club, *names: str) -> list[User]:
    users = players(*names)
    for user in users:
        ClubMembership.objects.create(club=club, user=user)
    return users


def test_members_open_and_join_a_club_table(club: Club) -> None:
    ann, bob = member(club, "ann", "bob")
    table = services.table_create(creator=ann, ruleset="standard", seats=2, club="hearts")
    assert table.club == club
    services.table_join(table_id=table.pk, user=bob)
    assert fresh(table).status == "playing"


def test_outsiders_may_neither_open_nor_join_one(club: Club) -> None:
    (ann,) = member(club, "ann")
    (eve,) = players("eve")
    with pytest.raises(TableError) as refused:
        services.table_create(creator=eve, ruleset="standard", seats=2, club=club)
    assert (refused.value.code, refused.value.status) == ("forbidden", 403)
    table = services.table_create(creator=ann, ruleset="standard", seats=2, club=club)
    with pytest.raises(TableError) as refused:
        services.table_join(table_id=table.pk, user=eve)
    assert (refused.value.code, refused.value.status) == ("forbidden", 403)
    assert table.seat_set.count() == 1


@pytest.mark.parametrize(("club", "message"), [("nope", "no club 'nope'"), (7, "slug")])
def test_an_unknown_club_is_a_bad_request(club: object, message: str) -> None:
    (ann,) = players("ann")
    with pytest.raises(TableError, match=message) as refused:
        services.table_create(creator=ann, ruleset="standard", seats=2, club=club)  # type: ignore[arg-type]
    assert refused.value.code == "bad_request"


def test_the_api_takes_and_shows_the_club(club: Club) -> None:
    ann, bob = member(club, "ann", "bob")
    (eve,) = players("eve")
    api = APIClient()
    api.force_authenticate(ann)
    made = api.post("/api/tables/", {"seats": 2, "club": "hearts"}, format="json")
    assert made.status_code == 201 and made.json()["club"] == "hearts"
    plain = api.post("/api/tables/", {"seats": 2}, format="json").json()
    assert plain["club"] is None
    api.force_authenticate(eve)
    refused = api.post(f"/api/tables/{made.json()['id']}/join/")
    assert refused.status_code == 403 and refused.json()["error"] == "forbidden"
    api.force_authenticate(bob)
    assert api.post(f"/api/tables/{made.json()['id']}/join/").status_code == 200


def test_placements_say_everyone_acted_in_a_played_game() -> None:
    users = players("ann", "bob", "cid")
    rules = RuleSet.objects.get(slug="standard").to_rules({"target": 1})
    seed = contested_seed(rules, ["ann", "bob", "cid"], movers=3)
    table = started_table(users, overrides={"target": 1}, seed=seed)
    play_greedy(table, users, until=lambda t: t.status != "playing")
    rows = GameResult.objects.get(table=table).placements
    assert [(r["absent"], r["acted"]) for r in rows] == [(False, True)] * 3


def test_placements_mark_absent_players_and_those_who_never_acted(now: FakeTime) -> None:
    table = started_table(players("ann", "bob"), overrides={"max_timeouts": 1})
    for _ in range(2):
        now.at(fresh(table).deadline)
        assert table_enforce_deadline(table.pk) is True
    rows = GameResult.objects.get(table=fresh(table)).placements
    assert {r["player"]: (r["absent"], r["acted"]) for r in rows} == {
        "ann": (True, False),
        "bob": (True, False),
    }
