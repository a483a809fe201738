"""Tables run for an event (games.hosting): opened with the players seated, a player withdrawn
for good by an organizer, a game decided by an organizer (adjudicated, never rated)."""

from __future__ import annotations

from typing import Any

import pytest

from accounts.models import Club, User
from games import finalization
from games.clock_services import table_back
from games.errors import TableError
from games.hosting import table_adjudicate, table_open_for, table_withdraw_player
from games.models import GameResult, Table, TableEvent
from games.selectors import table_mismatch
from ratings.models import RatedGame, RatingChange
from tests.accounts.factories import UserFactory
from tests.games.tables import act, play_simple, players, state_of, to_move

pytestmark = pytest.mark.django_db

DRAW = {"type": "draw", "source": "stock"}


@pytest.fixture
def director() -> User:
    return UserFactory(username="director", is_staff=True)


@pytest.fixture
def trio() -> list[User]:
    return players("ann", "bob", "cid")


@pytest.fixture
def table(trio: list[User]) -> Table:
    return table_open_for(players=trio, ruleset="standard")


def refused(code: str, call: Any, *args: Any, status: int = 400, **kwargs: Any) -> TableError:
    """``call(*args, **kwargs)`` is refused with ``code`` and ``status``."""
    with pytest.raises(TableError) as caught:
        call(*args, **kwargs)
    assert (caught.value.code, caught.value.status) == (code, status)
    return caught.value


def log(table: Table, after: int = 0) -> list[TableEvent]:
    return list(TableEvent.objects.filter(table=table, version__gt=after).order_by("version"))


def not_to_move(table: Table, users: list[User]) -> User:
    mover = to_move(table, users)
    return next(u for u in users if u != mover)


def play_turn(table: Table, user: User) -> None:
    """Draw from the stock and discard the card drawn."""
    act(table, user, DRAW)
    drawn = state_of(table).drawn
    assert drawn is not None
    act(table, user, {"type": "discard", "card": str(drawn)})


# --- table_open_for ----------------------------------------------------------------------------


def test_open_for_seats_the_players_in_order_and_starts(table: Table, trio: list[User]) -> None:
    seats = table.seat_set.order_by("position").values_list("user__username", "position")
    assert list(seats) == [("ann", 0), ("bob", 1), ("cid", 2)]
    table.refresh_from_db()
    assert (table.status, table.seats, table.creator, table.version) == ("playing", 3, trio[0], 1)
    assert table.started_at is not None and table.deadline is not None
    assert state_of(table).names == ("ann", "bob", "cid")
    (start,) = log(table)
    assert (start.kind, start.data["players"]) == ("start", ["ann", "bob", "cid"])


def test_open_for_takes_the_events_settings_and_club_without_membership() -> None:
    club = Club.objects.create(name="Hearts", slug="hearts")  # neither player is a member
    made = table_open_for(
        players=players("ann", "bob"),
        ruleset="no-jokers",
        overrides={"target": 100},
        turn_seconds=30,
        time_bank_seconds=90,
        rated=False,
        club=club,
    )
    made.refresh_from_db()
    assert (made.club, made.rated, made.ruleset.slug) == (club, False, "no-jokers")
    assert (made.rules["target"], made.rules["jokers_per_deck"]) == (100, 0)
    assert (made.turn_seconds, made.time_bank_seconds) == (30, 90)
    assert made.status == "playing"


def test_open_for_refuses_a_player_twice_and_rules_that_cannot_deal() -> None:
    ann, bob = players("ann", "bob")
    refused("bad_request", table_open_for, players=[ann, bob, ann], ruleset="standard")
    huge = {"hand_size_two": 30, "two_decks_from": 9}
    refused("bad_request", table_open_for, players=[ann, bob], ruleset="standard", overrides=huge)
    assert not Table.objects.exists()


# --- table_withdraw_player ---------------------------------------------------------------------


def test_a_withdrawn_player_is_absent_for_good(
    table: Table, trio: list[User], director: User
) -> None:
    leaver = not_to_move(table, trio)
    table_withdraw_player(table_id=table.pk, player=leaver, actor=director, reason="left early")
    table.refresh_from_db()
    assert table.withdrawn == [leaver.username]
    assert state_of(table).players[state_of(table).seat_of(leaver.username)].absent
    (row,) = log(table, after=1)
    assert (row.kind, row.player, row.actor, row.data) == (
        "withdraw",
        leaver.username,
        director,
        {"reason": "left early"},
    )
    assert table_mismatch(table) is None
    refused("forbidden", act, table, leaver, DRAW, status=403)
    refused("forbidden", table_back, table_id=table.pk, user=leaver, status=403)
    version = table.version
    table_withdraw_player(table_id=table.pk, player=leaver, actor=director)  # again: nothing
    table.refresh_from_db()
    assert table.version == version


def test_a_withdrawn_players_turn_is_played_at_once(
    table: Table, trio: list[User], director: User
) -> None:
    mover = to_move(table, trio)
    table_withdraw_player(table_id=table.pk, player=mover, actor=director)
    rows = log(table, after=1)
    assert [r.kind for r in rows] == ["withdraw", "timeout"]
    assert (rows[1].player, rows[1].data) == (mover.username, {"absent": True})
    assert to_move(table, trio) != mover
    assert table_mismatch(table) is None


def test_withdrawing_all_but_one_plays_on_and_the_last_ends_it(
    table: Table, trio: list[User], director: User
) -> None:
    stayer = trio[2]
    for leaver in trio[:2]:
        table_withdraw_player(table_id=table.pk, player=leaver, actor=director)
    table.refresh_from_db()
    assert table.status == "playing" and to_move(table, trio) == stayer
    play_turn(table, stayer)  # the others' turns follow at once: it is the stayer's again
    assert to_move(table, trio) == stayer and table.status == "playing"
    assert table_mismatch(table) is None
    table_withdraw_player(table_id=table.pk, player=stayer, actor=director)
    table.refresh_from_db()
    result = GameResult.objects.get(table=table)
    assert (table.status, result.ended) == ("finished", "abandoned")
    assert all(p["absent"] for p in result.placements)
    assert table_mismatch(table) is None
    version = table.version
    table_withdraw_player(table_id=table.pk, player=stayer, actor=director)  # over: unchanged
    table.refresh_from_db()
    assert table.version == version


def test_withdraw_refuses_someone_not_seated(table: Table, director: User) -> None:
    (eve,) = players("eve")
    refused("not_seated", table_withdraw_player, table_id=table.pk, player=eve, actor=director)
    gone = table.pk + 99
    refused(
        "not_found", table_withdraw_player, table_id=gone, player=eve, actor=director, status=404
    )


# --- table_adjudicate --------------------------------------------------------------------------


def test_adjudication_ends_the_game_with_the_places_given(
    table: Table, trio: list[User], director: User
) -> None:
    places = {"ann": 2, "bob": 1, "cid": 3}
    table_adjudicate(table_id=table.pk, places=places, actor=director, reason=" stuck ")
    table.refresh_from_db()
    assert (table.status, table.deadline) == ("finished", None)
    result = table.result
    assert (result.ended, result.winner) == ("adjudicated", "bob")
    assert [(p["player"], p["place"], p["user"]) for p in result.placements] == [
        ("bob", 1, trio[1].pk),
        ("ann", 2, trio[0].pk),
        ("cid", 3, trio[2].pk),
    ]
    row = log(table)[-1]
    assert (row.kind, row.actor, row.version) == ("adjudicate", director, table.version)
    assert row.data == {"placements": places, "reason": "stuck"}
    assert table_mismatch(table) is None


def test_a_tie_at_the_top_names_no_winner(table: Table, director: User) -> None:
    places = {"ann": 1, "bob": 1, "cid": 3}
    table_adjudicate(table_id=table.pk, places=places, actor=director, reason="time")
    assert GameResult.objects.get(table=table).winner == ""


def test_an_adjudicated_game_is_not_rated(table: Table, trio: list[User], director: User) -> None:
    # Everyone has moved, so only the adjudication keeps it from being rated.
    play_simple(table, trio, until=lambda t: t.version >= 7)
    places = {"ann": 1, "bob": 2, "cid": 3}
    table_adjudicate(table_id=table.pk, places=places, actor=director, reason="dispute")
    assert all(p["acted"] for p in GameResult.objects.get(table=table).placements)
    assert finalization.run_hook(table.pk, "ratings") is True
    assert RatedGame.objects.get(table=table).counted is False
    assert not RatingChange.objects.filter(table=table).exists()


@pytest.mark.parametrize(
    ("places", "reason"),
    [
        ({"ann": 1, "bob": 2, "cid": 3}, ""),
        ({"ann": 1, "bob": 2, "cid": 3}, "   "),
        ({"ann": 1, "bob": 2}, "stuck"),
        ({"ann": 1, "bob": 2, "cid": 3, "dan": 4}, "stuck"),
        ({"ann": 1, "bob": 2, "cid": 4}, "stuck"),
        ({"ann": 0, "bob": 2, "cid": 3}, "stuck"),
        ({"ann": "1", "bob": 2, "cid": 3}, "stuck"),
    ],
)
def test_adjudication_refuses_a_missing_reason_or_wrong_places(
    table: Table, director: User, places: dict[str, Any], reason: str
) -> None:
    decide = {"places": places, "actor": director, "reason": reason}
    refused("bad_request", table_adjudicate, table_id=table.pk, **decide)
    table.refresh_from_db()
    assert table.status == "playing" and not GameResult.objects.exists()


def test_only_a_game_in_play_is_adjudicated(table: Table, director: User) -> None:
    places = {"ann": 1, "bob": 2, "cid": 3}
    table_adjudicate(table_id=table.pk, places=places, actor=director, reason="stuck")
    decide = {"places": places, "actor": director, "reason": "stuck"}
    refused("wrong_phase", table_adjudicate, table_id=table.pk, **decide)
    refused("not_found", table_adjudicate, table_id=table.pk + 99, **decide, status=404)


def test_a_turn_that_changes_while_paused_starts_when_play_resumes(
    table: Table, trio: list[User], director: User, now: Any
) -> None:
    from games.clock_services import table_pause, table_resume

    mover = to_move(table, trio)
    table_pause(table_id=table.pk, user=director)
    paused = Table.objects.get(pk=table.pk)
    now.advance(seconds=300)  # five minutes into the pause the player to move is withdrawn
    table_withdraw_player(table_id=table.pk, player=mover, actor=director)
    during = Table.objects.get(pk=table.pk)
    assert during.turn_started_at == paused.paused_at  # the new turn's clock has not run
    now.advance(seconds=600)
    table_resume(table_id=table.pk, user=director)
    after = Table.objects.get(pk=table.pk)
    assert after.turn_started_at == now.now  # a full turn from the moment play resumes
    assert after.deadline is not None
    assert after.deadline - after.turn_started_at == during.deadline - during.turn_started_at
