"""A finished table's ``ratings`` (docs/tables.md, "Game over: rating changes and rematch"):
null until the ratings hook has rated the game, then each player's global change, and the table
pushed again when the hook writes them."""

from __future__ import annotations

from typing import Any

import pytest

from games import finalization
from games.models import Table
from games.push import state_frame
from games.selectors import table_answer, table_seats
from ratings.game_over import whole
from ratings.glicko import PROVISIONAL_DEVIATION
from ratings.models import Pool, RatedGame, RatingChange
from tests.games.finished import finished_table
from tests.games.tables import players
from tests.ratings.rating_rows import pool_of, put_ratings

pytestmark = pytest.mark.django_db


def ratings_of(table: Table) -> Any:
    table.refresh_from_db()
    return table_answer(table, None)["ratings"]


def test_null_until_the_hook_has_rated_the_game_then_each_players_global_change() -> None:
    ann, bob = players("ann", "bob")
    table = finished_table([ann, bob])
    assert ratings_of(table) is None
    assert finalization.run_hook(table.pk, "ratings")
    got = ratings_of(table)
    changes = RatingChange.objects.filter(table_id=table.pk, pool__kind=Pool.Kind.GLOBAL)
    assert len(changes) == 2
    for change in changes:
        mine = got[change.user.username]
        assert mine["before"] == whole(change.before) and mine["after"] == whole(change.after)
        assert mine["change"] == mine["after"] - mine["before"]
        assert mine["provisional"] is True  # their first game
        assert mine["deviation"] == whole(change.deviation_after) > PROVISIONAL_DEVIATION
    assert got["ann"]["change"] == -got["bob"]["change"] != 0
    # The frames carry the same, to players and spectators alike.
    for reader in ("ann", None):
        assert state_frame(table, table_seats(table), reader)["ratings"] == got


def test_provisional_is_as_of_this_game() -> None:
    ann, bob = players("ann", "bob")
    # ann's deviation is just above the line: one game against a settled player brings it below.
    edge = PROVISIONAL_DEVIATION + 1.0
    put_ratings(pool_of("global"), [(ann, 1600.0, 12, edge), (bob, 1500.0, 40, 100.0)])
    table = finished_table([ann, bob])
    finalization.run_hook(table.pk, "ratings")
    got = ratings_of(table)
    assert got["ann"]["before"] == 1600 and got["bob"]["before"] == 1500
    # This game was ann's last provisional one: she is established after it.
    mine = RatingChange.objects.get(table_id=table.pk, pool__kind="global", user=ann)
    assert mine.deviation_after < PROVISIONAL_DEVIATION < mine.deviation_before
    assert not got["ann"]["provisional"] and not got["bob"]["provisional"]
    newcomer = finished_table([players("cid")[0], bob])
    finalization.run_hook(newcomer.pk, "ratings")
    assert ratings_of(newcomer)["cid"]["provisional"]
    # Later games: the earlier table's answer still says what that game did.
    later = finished_table([ann, bob])
    finalization.run_hook(later.pk, "ratings")
    assert ratings_of(table) == got
    assert ratings_of(later)["ann"]["before"] == got["ann"]["after"]


def test_an_unrated_table_has_none_even_once_the_hooks_ran() -> None:
    table = finished_table(players("ann", "bob"), rated=False)
    finalization.run_hook(table.pk, "ratings")
    assert ratings_of(table) is None


def test_a_game_not_counted_changed_nobody_an_empty_object() -> None:
    table = finished_table(players("ann", "bob"))
    finalization.run_hook(table.pk, "ratings")
    RatedGame.objects.filter(table=table).update(counted=False)
    RatingChange.objects.filter(table_id=table.pk).delete()
    assert ratings_of(table) == {}


def test_the_hook_pushes_each_table_it_rates_after_commit(
    monkeypatch: pytest.MonkeyPatch, django_capture_on_commit_callbacks: Any
) -> None:
    ann, bob = players("ann", "bob")
    first = finished_table([ann, bob])
    second = finished_table([ann, bob])
    pushed: list[tuple[int, Any]] = []
    monkeypatch.setattr(
        "games.push.push_table",
        lambda table, seats=None, since=None: pushed.append((table.pk, ratings_of(table))),
    )
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        # The second game's hook rates the first too (it finished earlier, still waiting).
        finalization.run_hook(second.pk, "ratings")
        assert pushed == []
    for callback in callbacks:
        callback()
    assert [pk for pk, _ in pushed] == [first.pk, second.pk]
    assert all(ratings is not None for _, ratings in pushed)
    pushed.clear()
    with django_capture_on_commit_callbacks(execute=True):
        finalization.run_hook(first.pk, "ratings")  # rated already: nothing written, no push
    assert pushed == []
