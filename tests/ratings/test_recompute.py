"""``ratings_recompute`` rebuilds from the finished games exactly what the hook produced."""

from __future__ import annotations

import json
import random
from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from accounts.models import Club, ClubMembership
from games.models import GameResult
from ratings.audit import ratings_check, stored_figures
from ratings.models import Pool, RatedGame, Rating
from ratings.recompute import ratings_recompute
from tests.accounts.factories import UserFactory
from tests.ratings.games import T0, finished_game, rate

pytestmark = pytest.mark.django_db


def play_season(games: int, seed: int = 7) -> None:
    """Random games of 2 to 8 among 12 players, some in a club, some absent or idle, each rated
    by the hook; the hooks run in a shuffled order, as delayed and retried tasks would."""
    rng = random.Random(seed)
    users = [UserFactory() for _ in range(12)]
    club = Club.objects.create(name="Spades", slug="spades")
    for user in users[:8]:
        ClubMembership.objects.create(club=club, user=user)
    tables = []
    for i in range(games):
        in_club = rng.random() < 0.3
        seated = rng.sample(users[:8] if in_club else users, rng.randint(2, 8))
        places = [rng.randint(1, len(seated)) for _ in seated]
        absent = [u.username for u in seated if rng.random() < 0.1]
        idle = [u.username for u in seated if rng.random() < 0.15]
        tables.append(
            finished_game(
                list(zip(seated, places, strict=True)),
                at=T0 + timedelta(minutes=i),
                ruleset=rng.choice(["standard", "no-jokers", "standard"]) if i % 2 else "standard",
                club=club if in_club else None,
                rated=rng.random() < 0.9,
                absent=absent,
                idle=idle,
            )
        )
    rng.shuffle(tables)
    for table in tables:
        rate(table)


def test_recompute_reproduces_the_incremental_ratings_exactly() -> None:
    play_season(60)
    incremental = stored_figures()
    assert len(incremental["changes"]) > 200
    ledger = [t for _, t, _ in incremental["ledger"]]
    finished = RatedGame.objects.order_by("finished_at", "table_id").values_list("table", flat=True)
    assert ledger == list(finished)  # the hooks ran shuffled; the games were rated in order
    summary = ratings_recompute()
    assert stored_figures() == incremental
    assert summary.games == len(incremental["ledger"]) and summary.added_to_ledger == 0
    assert summary.changes == len(incremental["changes"])


def test_recompute_of_one_pool_leaves_the_others_alone() -> None:
    play_season(40, seed=3)
    before = stored_figures()
    club_pool = Pool.objects.get(kind="club")
    Rating.objects.filter(pool=club_pool).update(rating=1.0)  # damage one pool
    other = Rating.objects.exclude(pool=club_pool).first()
    assert other is not None
    ratings_recompute("club:spades")
    assert stored_figures() == before


def test_recompute_fills_the_ledger_with_games_the_hook_never_saw() -> None:
    users = [UserFactory() for _ in range(4)]
    tables = [
        finished_game([(users[i % 4], 1), (users[(i + 1) % 4], 2)], at=T0 + timedelta(hours=i))
        for i in range(6)
    ]
    for table in tables:
        rate(table)
    incremental = stored_figures()
    RatedGame.objects.all().delete()  # changes go with it
    Rating.objects.all().delete()
    summary = ratings_recompute()
    assert summary.added_to_ledger == 6
    rebuilt = stored_figures()
    # New ledger ids, same order (by finish), same numbers.
    strip = lambda rows: [row[1:] for row in rows]  # noqa: E731
    assert strip(rebuilt["changes"]) == strip(incremental["changes"])
    assert rebuilt["ratings"] == incremental["ratings"]
    assert [t for _, t, _ in rebuilt["ledger"]] == [t.pk for t in tables]


def test_the_command_reports_and_refuses_an_unknown_pool() -> None:
    play_season(10, seed=5)
    out = StringIO()
    call_command("ratings_recompute", stdout=out)
    assert "Recomputed" in out.getvalue() and "games/s" in out.getvalue()
    out = StringIO()
    call_command("ratings_recompute", "--pool", "ruleset:standard", "--json", stdout=out)
    figures = json.loads(out.getvalue())
    assert figures["pools"] == ["ruleset:standard"] and figures["games"] > 0
    with pytest.raises(CommandError, match="no pool 'ruleset:nope'"):
        call_command("ratings_recompute", "--pool", "ruleset:nope")
    with pytest.raises(CommandError, match="no pool 'elsewhere'"):
        call_command("ratings_recompute", "--pool", "elsewhere")


def test_check_compares_with_a_rebuild_and_changes_nothing() -> None:
    play_season(20, seed=9)
    assert ratings_check().equal
    out = StringIO()
    call_command("ratings_recompute", "--check", stdout=out)
    assert "equal a rebuild" in out.getvalue()
    damaged = Rating.objects.filter(pool__kind="global").first()
    assert damaged is not None
    Rating.objects.filter(pk=damaged.pk).update(rating=9999.0)
    stored = stored_figures()
    found = ratings_check()
    assert not found.equal and found.differences["ratings"] == 2  # the bad row and the right one
    assert stored_figures() == stored  # rolled back: the damage is still there to see
    with pytest.raises(CommandError, match="differ"):
        call_command("ratings_recompute", "--check", stdout=StringIO())
    ratings_recompute()
    assert ratings_check().equal


def test_recompute_of_one_pool_keeps_an_adjudicated_game_unrated() -> None:
    ann, bob = UserFactory(), UserFactory()
    played = finished_game([(ann, 1), (bob, 2)], at=T0)
    decided = finished_game([(ann, 2), (bob, 1)], at=T0 + timedelta(minutes=5))
    GameResult.objects.filter(table=decided).update(ended="adjudicated")
    rate(played)
    rate(decided)
    assert not RatedGame.objects.get(table=decided).counted
    before = stored_figures()
    ratings_recompute("global")  # one pool: its replay must still know the game was decided
    assert stored_figures() == before
