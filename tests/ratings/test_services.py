"""The ratings' finalization hook, with the database: who is rated, in which pools, once, in
order, and the buckets that answer ranks kept exact."""

from __future__ import annotations

from datetime import timedelta

import pytest

from accounts.models import Club, ClubMembership
from games import finalization
from games.engine.rules import Rules
from games.models import GameResult, RuleSet
from ratings.glicko import Skill, before_game, effective_k, rate_table
from ratings.models import Pool, RatedGame, Rating, RatingChange
from ratings.services import rating_finalize
from tests.accounts.factories import UserFactory
from tests.games.tables import (
    contested_seed,
    greedy_hand_movers,
    play_greedy,
    players,
    started_table,
)
from tests.ratings.games import LOSE, T0, WIN, assert_buckets_match, finished_game, rate, ratings_of

pytestmark = pytest.mark.django_db


def standard_to_1() -> Rules:
    return RuleSet.objects.get(slug="standard").to_rules({"target": 1})


def global_pool() -> Pool:
    return Pool.objects.get(kind="global")


def test_the_ratings_hook_is_registered() -> None:
    assert "ratings" in finalization.hook_names()


def test_a_played_game_is_rated_in_the_global_and_preset_pools() -> None:
    users = players("ann", "bob", "cid")
    seed = contested_seed(standard_to_1(), ["ann", "bob", "cid"])
    table = started_table(users, overrides={"target": 1}, seed=seed)
    play_greedy(table, users, until=lambda t: t.status != "playing")
    result = GameResult.objects.get(table=table)
    assert all(p["acted"] and not p["absent"] for p in result.placements)
    assert rate(table) is True
    places = {p["player"]: p["place"] for p in result.placements}
    # Three newcomers (1500, deviation 350) finishing 1st, 2nd, 3rd, as the pure math has it.
    expected = rate_table([Skill()] * 3, [1, 2, 3])
    for pool in (global_pool(), Pool.objects.get(kind="ruleset", ruleset__slug="standard")):
        rows = RatingChange.objects.filter(pool=pool, table=table)
        assert {r.user.username: r.place for r in rows} == places
        for r in rows:
            after = expected[r.place - 1]
            assert (r.before, r.deviation_before, r.table_size) == (1500.0, 350.0, 3)
            assert (r.after, r.deviation_after) == (after.rating, after.deviation)
            assert r.k == effective_k(after.deviation, 3)
        ratings = ratings_of(pool.pk)
        assert sorted(ratings.values()) == sorted(s.rating for s in expected)
        assert_buckets_match(pool.pk)


def test_the_hook_rates_a_game_once() -> None:
    ann, bob = players("ann", "bob")
    table = finished_game([(ann, 1), (bob, 2)], at=T0)
    assert rate(table) is True
    assert rate(table) is False
    rating_finalize(table.result)  # even called directly a second time
    assert RatedGame.objects.filter(table=table).count() == 1
    assert RatingChange.objects.filter(table=table).count() == 4  # two players, two pools
    assert ratings_of(global_pool().pk) == {"ann": WIN, "bob": LOSE}


def test_an_unrated_table_changes_no_rating() -> None:
    ann, bob = players("ann", "bob")
    table = finished_game([(ann, 1), (bob, 2)], rated=False)
    rate(table)
    assert not RatedGame.objects.exists() and not Rating.objects.exists()


def test_a_game_fewer_than_two_players_acted_in_is_not_rated() -> None:
    ann, bob, cid = players("ann", "bob", "cid")
    table = finished_game([(ann, 1), (bob, 2), (cid, 3)], idle=["bob", "cid"])
    rate(table)
    ledger = RatedGame.objects.get(table=table)
    assert ledger.counted is False
    assert not Rating.objects.exists() and not RatingChange.objects.exists()


def test_a_played_game_the_first_mover_won_at_once_is_not_rated() -> None:
    users = players("ann", "bob", "cid")
    seed = "s892"  # ann, first to move, melds her whole hand and goes out on her first turn
    assert greedy_hand_movers(standard_to_1(), ["ann", "bob", "cid"], seed) == {"ann"}
    table = started_table(users, overrides={"target": 1}, seed=seed)
    play_greedy(table, users, until=lambda t: t.status != "playing")
    result = GameResult.objects.get(table=table)
    assert [p["acted"] for p in result.placements] == [True, False, False]
    assert rate(table) is True
    assert RatedGame.objects.get(table=table).counted is False
    assert not Rating.objects.exists() and not RatingChange.objects.exists()


def test_absent_players_are_rated_last_whatever_they_scored() -> None:
    ann, bob, cid, dan = players("ann", "bob", "cid", "dan")
    table = finished_game([(ann, 1), (bob, 2), (cid, 3), (dan, 4)], absent=["ann", "cid"])
    rate(table)
    places = dict(
        RatingChange.objects.filter(pool=global_pool()).values_list("user__username", "place")
    )
    assert places == {"bob": 1, "dan": 2, "ann": 3, "cid": 3}
    ratings = ratings_of(global_pool().pk)
    assert ratings["ann"] == ratings["cid"] < ratings["dan"] < ratings["bob"]


def test_a_club_table_counts_in_the_club_pool() -> None:
    club = Club.objects.create(name="Hearts", slug="hearts")
    ann, bob = players("ann", "bob")
    for user in (ann, bob):
        ClubMembership.objects.create(club=club, user=user)
    rate(finished_game([(ann, 1), (bob, 2)], club=club))
    pool = Pool.objects.get(kind="club", club=club)
    assert ratings_of(pool.pk) == {"ann": WIN, "bob": LOSE}
    assert Pool.objects.count() == 3


def test_a_custom_rule_set_counts_in_the_global_pool_only() -> None:
    preset = RuleSet.objects.get(slug="standard")
    RuleSet.objects.create(
        **{
            f.name: getattr(preset, f.name)
            for f in RuleSet._meta.concrete_fields
            if f.name not in ("id", "slug", "name", "is_preset", "created_at", "updated_at")
        },
        slug="house",
        name="House",
        is_preset=False,
    )
    ann, bob = players("ann", "bob")
    rate(finished_game([(ann, 2), (bob, 1)], ruleset="house"))
    assert list(Pool.objects.values_list("kind", flat=True)) == ["global"]
    assert ratings_of(global_pool().pk) == {"ann": LOSE, "bob": WIN}


def test_games_are_rated_in_the_order_they_finished() -> None:
    ann, bob = players("ann", "bob")
    first = finished_game([(ann, 1), (bob, 2)], at=T0)
    second = finished_game([(ann, 2), (bob, 1)], at=T0 + timedelta(minutes=5))
    # The later game's hook runs first (its earlier twin's task was delayed): the earlier game
    # is rated before it, and its own hook later finds nothing to do.
    rate(second)
    ledger = list(RatedGame.objects.order_by("id").values_list("table_id", flat=True))
    assert ledger == [first.pk, second.pk]
    assert rate(first) is True  # the hook ran (its FinalizerRun is written) ...
    assert RatingChange.objects.filter(table=first).count() == 4  # ... and rated nothing again
    after_first = RatingChange.objects.get(table=second, user=ann, pool=global_pool())
    # The second game started from the first's result.
    assert (
        after_first.before
        == RatingChange.objects.get(table=first, user=ann, pool=global_pool()).after
    )
    assert after_first.before > 1500.0


def test_the_deviation_shrinks_until_settled_and_the_buckets_follow() -> None:
    ann, bob = players("ann", "bob")
    settled_at = None
    for i in range(21):
        places = [(ann, 1), (bob, 2)] if i % 2 == 0 else [(ann, 2), (bob, 1)]
        rate(finished_game(places, at=T0 + timedelta(minutes=i)))
        rating = Rating.objects.get(user=ann, pool=global_pool())
        if settled_at is None and not rating.provisional:
            settled_at = i + 1
            assert_buckets_match(global_pool().pk)  # she moved to the established count
    changes = list(RatingChange.objects.filter(user=ann, pool=global_pool()).order_by("game_id"))
    deviations = [c.deviation_after for c in changes]
    assert deviations == sorted(deviations, reverse=True)  # each game knows her better
    assert all(c.deviation_before > c.deviation_after for c in changes)
    # K falls with the deviation: the first game moves a rating most.
    assert [c.k for c in changes] == sorted((c.k for c in changes), reverse=True)
    assert settled_at is not None and 5 <= settled_at <= 20
    assert rating.games == 21 and not rating.provisional
    assert rating.peak == max(c.after for c in changes)
    assert_buckets_match(global_pool().pk)


def test_time_away_widens_the_deviation_brought_to_the_next_game() -> None:
    ann, bob = players("ann", "bob")
    for i in range(12):
        places = [(ann, 1), (bob, 2)] if i % 2 == 0 else [(ann, 2), (bob, 1)]
        rate(finished_game(places, at=T0 + timedelta(minutes=i)))
    left = Rating.objects.get(user=ann, pool=global_pool()).deviation
    back = finished_game([(ann, 1), (bob, 2)], at=T0 + timedelta(days=200))
    rate(back)
    change = RatingChange.objects.get(table=back, user=ann, pool=global_pool())
    away = (timedelta(days=200) - timedelta(minutes=11)).total_seconds() / 86400.0
    assert change.deviation_before == before_game(left, away)
    assert change.deviation_before > 1.4 * left
    # Back after a long time away, the game moves her further than her last game before it.
    last = RatingChange.objects.filter(user=ann, pool=global_pool()).order_by("-game_id")[1]
    assert abs(change.after - change.before) > abs(last.after - last.before)


def test_many_players_many_games_keep_the_buckets_exact() -> None:
    users = [UserFactory() for _ in range(9)]
    for i in range(30):
        seated = [users[(i + j * 2) % 9] for j in range(2 + i % 5)]
        order = [(u, 1 + (j * 7 + i) % len(seated)) for j, u in enumerate(seated)]
        rate(finished_game(order, at=T0 + timedelta(minutes=i)))
    for pool in Pool.objects.all():
        assert_buckets_match(pool.pk)
