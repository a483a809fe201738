"""``GET /api/leaderboard/`` and ``GET /api/players/{username}/`` as PROTOCOL.md gives them, plus
the documented additions, and ranks from the buckets equal to a plain count."""

from __future__ import annotations

import random
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from accounts.models import Club, ClubMembership, User
from ratings import selectors
from ratings.compute import Change, Standing, bucket, bucket_deltas
from ratings.models import Pool, Rating
from ratings.selectors import Board, board_page, board_position, board_rank, pool_choice
from ratings.services import add_to_buckets
from tests.accounts.factories import UserFactory
from tests.ratings.games import LOSE, T0, WIN, finished_game, rate
from tests.ratings.rating_rows import SETTLED_DEVIATION, typical_deviation

pytestmark = pytest.mark.django_db


@pytest.fixture
def api() -> Client:
    return Client()


def season() -> dict[str, User]:
    """ann beats everyone, dan loses to everyone; cid only plays once."""
    users = {name: UserFactory(username=name) for name in ("ann", "bob", "cid", "dan")}
    ann, bob, cid, dan = users.values()
    rate(finished_game([(ann, 1), (bob, 2), (dan, 3)], at=T0))
    rate(finished_game([(ann, 1), (bob, 2), (cid, 3), (dan, 4)], at=T0 + timedelta(hours=1)))
    rate(finished_game([(bob, 1), (dan, 2)], at=T0 + timedelta(hours=2), ruleset="no-jokers"))
    return users


def test_the_leaderboard_is_as_the_protocol_gives_it(api: Client) -> None:
    season()
    answer = api.get("/api/leaderboard/").json()
    assert answer["count"] == 4
    rows = answer["results"]
    assert [r["username"] for r in rows] == ["ann", "bob", "cid", "dan"]
    assert [r["rank"] for r in rows] == [1, 2, 3, 4]
    assert [r["games"] for r in rows] == [2, 3, 1, 3]
    assert all(set(r) >= {"rank", "username", "rating", "games"} for r in rows)
    assert rows[0]["rating"] > rows[1]["rating"] > rows[2]["rating"] > rows[3]["rating"]
    assert rows[0]["rating"] == Rating.objects.get(user__username="ann", pool__kind="global").rating


def test_limit_offset_and_the_ruleset_pool(api: Client) -> None:
    season()
    page = api.get("/api/leaderboard/?limit=2&offset=1").json()
    assert [(r["rank"], r["username"]) for r in page["results"]] == [(2, "bob"), (3, "cid")]
    assert page["count"] == 4
    board = api.get("/api/leaderboard/?ruleset=no-jokers").json()
    assert [(r["username"], r["games"]) for r in board["results"]] == [("bob", 1), ("dan", 1)]
    assert board["results"][0]["rating"] == WIN and board["pool"] == "ruleset:no-jokers"


def test_a_pool_nobody_played_in_is_empty(api: Client) -> None:
    Club.objects.create(name="Clubs", slug="clubs")
    for query in ("", "?ruleset=five-ten-fifteen", "?club=clubs"):
        assert api.get(f"/api/leaderboard/{query}").json()["results"] == []


def test_club_boards(api: Client) -> None:
    club = Club.objects.create(name="Clubs", slug="clubs")
    ann, bob = UserFactory(username="ann"), UserFactory(username="bob")
    for user in (ann, bob):
        ClubMembership.objects.create(club=club, user=user)
    rate(finished_game([(bob, 1), (ann, 2)], club=club))
    rows = api.get("/api/leaderboard/?club=clubs").json()["results"]
    assert [(r["username"], r["rating"]) for r in rows] == [("bob", WIN), ("ann", LOSE)]


@pytest.mark.parametrize(
    ("query", "status", "code"),
    [
        ("?ruleset=nope", 404, "not_found"),
        ("?club=nope", 404, "not_found"),
        ("?ruleset=standard&club=x", 400, "bad_request"),
        ("?limit=0", 400, "bad_request"),
        ("?limit=abc", 400, "bad_request"),
        ("?limit=501", 400, "bad_request"),
        ("?offset=-1", 400, "bad_request"),
        ("?period=year", 400, "bad_request"),
        ("?provisional=maybe", 400, "bad_request"),
        ("?around=nobody", 404, "not_found"),
    ],
)
def test_bad_queries_get_clear_errors(api: Client, query: str, status: int, code: str) -> None:
    season()
    answer = api.get(f"/api/leaderboard/{query}")
    assert answer.status_code == status
    assert answer.json()["error"] == code and answer.json()["message"]


def test_around_a_player_gives_their_page(api: Client) -> None:
    season()
    page = api.get("/api/leaderboard/?limit=2&around=dan").json()
    assert page["offset"] == 2
    assert [r["username"] for r in page["results"]] == ["cid", "dan"]


def test_provisional_and_min_games_filters(api: Client) -> None:
    users = season()
    bob = Rating.objects.get(user=users["bob"], pool__kind="global")
    # As if he had played 22 more and his deviation had settled.
    Rating.objects.filter(pk=bob.pk).update(games=25, deviation=SETTLED_DEVIATION)
    add_to_buckets({(bob.pool_id, bucket(bob.rating)): [0, 1]})
    rows = api.get("/api/leaderboard/?provisional=false").json()
    assert [r["username"] for r in rows["results"]] == ["bob"]
    assert rows["results"][0]["rank"] == 1 and rows["count"] == 1
    rows = api.get("/api/leaderboard/?min_games=3").json()["results"]
    assert [r["username"] for r in rows] == ["bob", "dan"]
    assert [r["rank"] for r in rows] == [1, 2]


def test_this_months_board_lists_who_played_this_month(api: Client) -> None:
    ann, bob, cid = (UserFactory(username=n) for n in ("ann", "bob", "cid"))
    now = timezone.now()
    long_ago = now - timedelta(days=70)
    rate(finished_game([(ann, 1), (cid, 2)], at=long_ago))
    rate(finished_game([(bob, 1), (cid, 2)], at=now - timedelta(seconds=5)))
    rows = api.get("/api/leaderboard/?period=month").json()["results"]
    assert [(r["username"], r["games"]) for r in rows] == [("bob", 1), ("cid", 1)]
    assert api.get("/api/leaderboard/?period=month").json()["count"] == 2


def test_a_player_as_the_protocol_gives_it(api: Client) -> None:
    season()
    answer = api.get("/api/players/dan/").json()
    assert answer["username"] == "dan" and answer["games"] == 3
    history = answer["history"]
    assert [h["before"] for h in history[1:]] == [h["after"] for h in history[:-1]]
    assert history[0]["before"] == 1500.0 and history[-1]["after"] == answer["rating"]
    assert [h["at"] for h in history] == sorted(h["at"] for h in history)
    assert all(set(h) >= {"game", "at", "before", "after"} for h in history)
    assert answer["rank"] == 4
    assert {p["pool"] for p in answer["pools"]} == {
        "global",
        "ruleset:standard",
        "ruleset:no-jokers",
    }
    one_pool = api.get("/api/players/dan/?ruleset=no-jokers").json()
    assert one_pool["games"] == 1 and len(one_pool["history"]) == 1


def test_a_player_without_games_and_an_unknown_one(api: Client) -> None:
    UserFactory(username="new")
    answer = api.get("/api/players/new/").json()
    assert (answer["rating"], answer["games"], answer["history"], answer["rank"]) == (
        1500.0,
        0,
        [],
        None,
    )
    missing = api.get("/api/players/ghost/")
    assert missing.status_code == 404 and missing.json()["error"] == "not_found"


def test_a_player_named_in_another_case_or_width_is_the_same_player(api: Client) -> None:
    """Names are compared one way everywhere (issue 20): the canonical key, as log-ins do."""
    season()
    exact = api.get("/api/players/dan/").json()
    for spelling in ("DAN", "\uff24an"):  # upper case; a fullwidth D
        assert api.get(f"/api/players/{spelling}/").json() == exact
    page = api.get("/api/leaderboard/?limit=2&around=\uff24AN").json()
    assert [r["username"] for r in page["results"]] == ["cid", "dan"]
    # A look-alike is another name (a Cyrillic a): nobody is called that.
    assert api.get("/api/players/d\u0430n/").status_code == 404


def test_history_limit(api: Client) -> None:
    season()
    answer = api.get("/api/players/bob/?history=1").json()
    assert len(answer["history"]) == 1 and answer["history"][0]["after"] == answer["rating"]
    assert api.get("/api/players/bob/?history=x").status_code == 400


def load_ratings(pool: Pool, ratings: list[tuple[float, int]]) -> list[User]:
    users = [UserFactory() for _ in ratings]
    for user, (rating, games) in zip(users, ratings, strict=True):
        Rating.objects.create(
            pool=pool,
            user=user,
            rating=rating,
            games=games,
            peak=rating,
            deviation=typical_deviation(games),
        )
    add_to_buckets(
        bucket_deltas(
            Change(
                pool.pk, u.pk, None, Standing(r, g, deviation=typical_deviation(g)), 0.0, 0, 0, 0.0
            )
            for u, (r, g) in zip(users, ratings, strict=True)
        )
    )
    return users


def test_ranks_from_the_buckets_equal_a_plain_count() -> None:
    rng = random.Random(11)
    pool = Pool.objects.get(kind="global")
    values = [round(rng.gauss(1500, 200), rng.choice([0, 1, 3])) for _ in range(300)]
    values += [1500.0, 1500.0, 1499.999, 1500.5, 1501.0]  # ties and bucket edges
    ratings = [(float(v), rng.choice([1, 5, 19, 20, 40])) for v in values]
    load_ratings(pool, ratings)
    for provisional in (True, False):
        board = Board(pool_choice(), provisional=provisional)
        shown = [r for r, g in ratings if provisional or g >= 20]
        for rating, _ in rng.sample(ratings, 60) + ratings[-5:]:
            assert board_rank(board, rating) == 1 + sum(r > rating for r in shown)
        rows = board_page(board, 0, 400)
        assert len(rows) == len(shown)
        for row in rows:
            assert row.rank == 1 + sum(r > row.rating for r in shown)
        for i, row in enumerate(rows):
            position, again = board_position(board, row.username) or (None, None)
            assert position == i and again == row


def test_deep_pages_found_through_the_buckets_equal_plain_offsets(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    rng = random.Random(5)
    pool = Pool.objects.get(kind="global")
    ratings = [
        (float(round(rng.gauss(1500, 150), rng.choice([0, 2]))), rng.choice([3, 25]))
        for _ in range(200)
    ]
    load_ratings(pool, ratings)
    for provisional in (True, False):
        board = Board(pool_choice(), provisional=provisional)
        plain = [(r.username, r.rank) for r in board_page(board, 0, 500)]
        monkeypatch.setattr(selectors, "SEEK_FROM", 0)
        for offset in [*range(0, len(plain) + 5, 7), len(plain) - 1]:
            page = [(r.username, r.rank) for r in board_page(board, offset, 9)]
            assert page == plain[offset : offset + 9]
        monkeypatch.undo()
