"""Face-to-face results: the entry's checks, the textarea format, the refusals, and the path of
an entered game into the event (its round, the next round, the champion) and the ratings. The
scoring of entered hands is the games app's (tests/games/test_entered.py)."""

from __future__ import annotations

import doctest
from typing import Any

import pytest

from accounts.models import Club, ClubMembership, User
from games import timers
from games.models import GameResult, HandResult, Table
from ratings.audit import ratings_check
from ratings.models import RatedGame, RatingChange
from tests.games.clocks import record_sends
from tests.tournaments.factories import (
    entry_of,
    names_at,
    round_of,
    run_hooks,
    started_event,
    users,
)
from tournaments import scorekeeper
from tournaments.errors import EventError
from tournaments.models import AuditEntry, RoundTable, Tournament
from tournaments.organizer import entry_remove
from tournaments.scorekeeper import check_hands, hands_from_text, scorekeeper_enter


def hand(**points: tuple[int, int]) -> dict[str, dict[str, int]]:
    """``hand(ann=(45, 5))``: each player's (table, hand) points."""
    return {name: {"table": t, "hand": h} for name, (t, h) in points.items()}


# --- The arithmetic ----------------------------------------------------------------------------


def test_the_docstring_examples_hold() -> None:
    assert doctest.testmod(scorekeeper).failed == 0


@pytest.mark.parametrize(
    ("hands", "message"),
    [
        ([], "at least one hand"),
        ("ann 4/5", "at least one hand"),
        ([hand(ann=(1, 2))], "hand 1: give the points of exactly ann, bob"),
        ([hand(ann=(1, 2), bob=(1, 2)), hand(ann=(1, 2), bob=(1, 2), cid=(0, 0))], "hand 2:"),
        ([hand(ann=(1, 2), bob=(-1, 2))], "hand 1, bob: table points must be a whole number"),
        ([hand(ann=(1, 1001), bob=(1, 2))], "hand 1, ann: hand points must be a whole number"),
        ([{"ann": {"table": 1.5, "hand": 0}, "bob": {"table": 1, "hand": 0}}], "whole number"),
        ([{"ann": {"table": True, "hand": 0}, "bob": {"table": 1, "hand": 0}}], "whole number"),
        ([{"ann": {"table": 1}, "bob": {"table": 1, "hand": 0}}], "ann: give table and hand"),
        ([{"ann": 5, "bob": {"table": 1, "hand": 0}}], "ann: give table and hand"),
        ([["ann", "bob"]], "hand 1: give the points"),
    ],
)
def test_check_hands_names_what_is_wrong(hands: Any, message: str) -> None:
    with pytest.raises(EventError, match=message) as refused:
        check_hands(hands, ["bob", "ann"])
    assert (refused.value.code, refused.value.status) == ("bad_request", 400)


def test_check_hands_takes_a_whole_game() -> None:
    check_hands([hand(ann=(0, 0), bob=(1000, 0))] * 3, ["ann", "bob"])


# --- The textarea ------------------------------------------------------------------------------


def test_text_one_hand_a_line() -> None:
    text = "ann 45/5, bob 10/30\n\n  bob 60 / 0 ,ann 0/12  \n"
    assert hands_from_text(text) == [
        hand(ann=(45, 5), bob=(10, 30)),
        hand(bob=(60, 0), ann=(0, 12)),
    ]
    # Usernames may hold the characters Django allows in them (not spaces, commas or slashes).
    assert hands_from_text("j.doe+1@x 3/0, b_b-2 0/3") == [
        {"j.doe+1@x": {"table": 3, "hand": 0}, "b_b-2": {"table": 0, "hand": 3}}
    ]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "at least one hand"),
        ("\n  \n", "at least one hand"),
        ("ann 45/5, bob 10/30\nann 45/5 bob 10/30", "line 2: 'ann 45/5 bob 10/30' is not"),
        ("ann 45/5, bob -10/30", "line 1: 'bob -10/30'"),
        ("ann 45, bob 10/30", "line 1: 'ann 45'"),
        ("ann 4.5/5, bob 10/30", "line 1:"),
        ("ann 45/5,, bob 10/30", "line 1: '' is not"),
        ("\n\nann 1/2, ann 3/4", "line 3: ann is there twice"),
    ],
)
def test_text_errors_name_the_line(text: str, message: str) -> None:
    with pytest.raises(EventError, match=message) as refused:
        hands_from_text(text)
    assert refused.value.code == "bad_request"


# --- Entering a game ---------------------------------------------------------------------------


def club_night(director: User, club: Club, names: list[str], **fields: Any) -> Tournament:
    """A running face-to-face event of the club (target 50)."""
    fields.setdefault("online", False)
    return started_event(director, names, club=club, **fields)


def enter(event: Tournament, table: RoundTable, hands: list[Any], actor: User) -> Table:
    return scorekeeper_enter(event_id=event.pk, round_table_id=table.pk, hands=hands, actor=actor)


def win_for(first: str, second: str) -> list[dict[str, dict[str, int]]]:
    """Two hands that take ``first`` to 60 (the target is 50) and ``second`` to -35."""
    return [
        {first: {"table": 45, "hand": 5}, second: {"table": 10, "hand": 30}},
        {first: {"table": 20, "hand": 0}, second: {"table": 0, "hand": 15}},
    ]


def refused(call: Any, code: str, status: int, match: str | None = None) -> EventError:
    with pytest.raises(EventError, match=match) as caught:
        call()
    assert (caught.value.code, caught.value.status) == (code, status)
    return caught.value


def test_an_entered_game_is_a_finished_table_of_the_event(director: User, club: Club) -> None:
    event = club_night(director, club, ["ann", "bob"])
    table = round_of(event).tables.get()
    assert table.table_id is None  # face to face: no online table was opened
    hands = [hand(ann=(45, 5), bob=(10, 30)), hand(ann=(0, 12), bob=(30, 0))]
    game = enter(event, table, hands, director)
    seats = list(game.seat_set.order_by("position").values_list("user__username", flat=True))
    assert seats == names_at(table)
    assert (game.status, game.rated, game.club, game.seats) == ("finished", True, club, 2)
    assert (game.state, game.version, game.rules["target"]) == (None, 0, 50)
    assert game.ruleset == event.ruleset and game.turn_seconds == event.turn_seconds
    assert game.started_at is not None and game.finished_at is not None
    rows = HandResult.objects.filter(table=game).order_by("hand", "player")
    assert [(r.hand, r.player, r.melded, r.in_hand, r.net, r.went_out) for r in rows] == [
        (1, "ann", 45, 5, 40, False),
        (1, "bob", 10, 30, -20, False),
        (2, "ann", 0, 12, -12, False),
        (2, "bob", 30, 0, 30, True),
    ]
    result = game.result
    ann, bob = (User.objects.get(username=n) for n in ("ann", "bob"))
    assert (result.winner, result.ended, result.finished_at) == ("ann", "entered", game.finished_at)
    assert result.placements == [
        {"player": "ann", "user": ann.pk, "place": 1, "score": 28, "absent": False, "acted": True},
        {"player": "bob", "user": bob.pk, "place": 2, "score": 10, "absent": False, "acted": True},
    ]
    assert result.hands[1] == {
        "number": 2,
        "went_out": "bob",
        "scores": {
            "ann": {"melded": 0, "in_hand": 12, "net": -12},
            "bob": {"melded": 30, "in_hand": 0, "net": 30},
        },
    }
    table.refresh_from_db()
    assert table.table == game and table.places is None  # recorded by the hook, after commit
    audit = AuditEntry.objects.get(tournament=event, action="enter_result")
    assert audit.actor == director
    assert audit.details == {
        "table": table.pk,
        "game": game.pk,
        "hands": 2,
        "places": {"ann": 1, "bob": 2},
    }


def test_a_total_at_the_target_ends_as_target_and_ties_share_a_place(
    director: User, club: Club
) -> None:
    event = club_night(director, club, ["ann", "bob", "cid", "dan"])
    first, second = round_of(event).tables.all()
    a, b = names_at(first)
    assert enter(event, first, win_for(b, a), director).result.ended == "target"
    c, d = names_at(second)
    tied = [{c: {"table": 30, "hand": 0}, d: {"table": 40, "hand": 10}}]
    result = enter(event, second, tied, director).result
    assert result.ended == "entered" and result.winner == ""
    assert [(p["player"], p["place"], p["score"]) for p in result.placements] == [
        (c, 1, 30),
        (d, 1, 30),
    ]


def test_the_hooks_record_it_advance_the_event_and_rate_it(director: User, club: Club) -> None:
    event = club_night(director, club, ["ann", "bob", "cid", "dan"])
    for table in round_of(event, 1).tables.all():
        names = sorted(names_at(table))
        game = enter(event, table, win_for(names[0], names[1]), director)
        run_hooks(game.pk)
        table.refresh_from_db()
        assert table.places == [1 if n == names[0] else 2 for n in names_at(table)]
        assert table.points == [60 if n == names[0] else -35 for n in names_at(table)]
        # global, the standard preset's and the club's pools, two players each
        assert RatingChange.objects.filter(table=game).count() == 6
        assert RatedGame.objects.get(table=game).counted
    final = round_of(event, 2)
    assert final.status == "running"
    table = final.tables.get()
    assert table.table_id is None
    assert sorted(names_at(table)) == ["ann", "bob"]
    run_hooks(enter(event, table, win_for("bob", "ann"), director).pk)
    event.refresh_from_db()
    assert event.status == "finished" and event.champion.username == "bob"
    assert event.standings[0]["username"] == "bob"
    # The ratings of entered games are rebuilt from their results like any other's.
    assert ratings_check().equal


def test_after_commit_it_is_finalized_like_any_game(
    director: User,
    club: Club,
    monkeypatch: pytest.MonkeyPatch,
    django_capture_on_commit_callbacks: Any,
) -> None:
    sends = record_sends(monkeypatch)
    monkeypatch.setattr("tournaments.push.group_send", lambda group, message: None)
    event = club_night(director, club, ["ann", "bob"])
    table = round_of(event).tables.get()
    with django_capture_on_commit_callbacks(execute=True):
        game = enter(event, table, win_for("ann", "bob"), director)
    assert [s.args for s in sends.named(timers.FINALIZE_GAME)] == [(game.pk,)]


def test_an_unrated_event_advances_but_rates_nothing(director: User, club: Club) -> None:
    event = club_night(director, club, ["ann", "bob"], rated=False)
    game = enter(event, round_of(event).tables.get(), win_for("bob", "ann"), director)
    assert game.rated is False
    run_hooks(game.pk)
    assert not RatedGame.objects.filter(table=game).exists()
    assert not RatingChange.objects.filter(table=game).exists()
    event.refresh_from_db()
    assert event.status == "finished" and event.champion.username == "bob"


def test_a_player_who_left_is_recorded_absent_and_last(director: User, club: Club) -> None:
    event = club_night(
        director, club, ["ann", "bob", "cid"], format="swiss_tables", table_size=3, rounds=1
    )
    table = round_of(event).tables.get()
    bob = entry_of(event, "bob")
    entry_remove(event_id=event.pk, entry_id=bob.pk, actor=director, disqualify=True, reason="rude")
    three = [hand(ann=(40, 0), bob=(5, 5), cid=(10, 20))]
    refused(lambda: enter(event, table, three, director), "bad_request", 400, "exactly ann, cid")
    game = enter(event, table, [hand(ann=(40, 0), cid=(10, 20))], director)
    assert game.seats == 2
    run_hooks(game.pk)
    table.refresh_from_db()
    places = dict(zip(names_at(table), table.places, strict=True))
    assert places == {"ann": 1, "cid": 2, "bob": 3}


def test_only_the_event_organizers_enter_results(director: User, club: Club) -> None:
    event = club_night(director, club, ["ann", "bob"])
    table = round_of(event).tables.get()
    ann = User.objects.get(username="ann")
    (rival,) = users("rival")
    other = Club.objects.create(name="Spades", slug="spades")
    ClubMembership.objects.create(club=other, user=rival, role="admin")
    for outsider in (ann, rival):
        refused(lambda u=outsider: enter(event, table, win_for("ann", "bob"), u), "forbidden", 403)
    (keeper,) = users("keeper")
    ClubMembership.objects.create(club=club, user=keeper, role="admin")
    assert enter(event, table, win_for("ann", "bob"), keeper).result.winner == "ann"


def test_an_organizer_who_plays_does_not_enter_their_own_table(director: User, club: Club) -> None:
    """The rule of adjudication: a club's admin may play at its club night, but another
    organizer enters the game they played."""
    event = club_night(director, club, ["ann", "bob", "cid", "dan"])
    ann = User.objects.get(username="ann")
    ClubMembership.objects.create(club=club, user=ann, role="admin")
    tables = list(round_of(event).tables.all())
    mine = next(t for t in tables if "ann" in names_at(t))
    other = next(t for t in tables if t is not mine)
    tables_before = Table.objects.count()
    mine_won = win_for(*names_at(mine))
    refused(lambda: enter(event, mine, mine_won, ann), "forbidden", 403, "you play at this table")
    assert Table.objects.count() == tables_before
    assert not AuditEntry.objects.filter(tournament=event, action="enter_result").exists()
    assert enter(event, other, win_for(*names_at(other)), ann).result is not None
    assert enter(event, mine, mine_won, director).result.winner == names_at(mine)[0]


def test_refusals(director: User, club: Club) -> None:
    event = club_night(director, club, ["ann", "bob"])
    table = round_of(event).tables.get()
    elsewhere = club_night(director, club, ["cid", "dan"], name="Other night")
    theirs = round_of(elsewhere).tables.get()
    good = win_for("ann", "bob")
    refused(lambda: enter(event, theirs, good, director), "not_found", 404)
    missing = RoundTable(pk=table.pk + 1000)
    refused(lambda: enter(event, missing, good, director), "not_found", 404)
    tables_before = Table.objects.count()
    refused(lambda: enter(event, table, [hand(ann=(1, 1))], director), "bad_request", 400)
    refused(lambda: enter(event, table, [], director), "bad_request", 400)
    assert Table.objects.count() == tables_before and not HandResult.objects.exists()
    enter(event, table, good, director)
    refused(lambda: enter(event, table, good, director), "wrong_status", 409, "has its game")
    assert GameResult.objects.count() == 1


def test_no_entry_for_a_live_game_a_waiting_round_or_a_lone_player(
    director: User, club: Club
) -> None:
    online = started_event(director, ["ann", "bob"], name="Online night")
    table = round_of(online).tables.get()
    assert table.table is not None and table.table.status == "playing"
    match = "has its game"
    refused(
        lambda: enter(online, table, win_for("ann", "bob"), director), "wrong_status", 409, match
    )
    waiting = club_night(director, club, ["cid", "dan"], auto_advance=False)
    pending = round_of(waiting).tables.get()
    good = win_for("cid", "dan")
    match = "not in a running round"
    refused(lambda: enter(waiting, pending, good, director), "wrong_status", 409, match)
    lone = club_night(director, club, ["eve", "fay"], name="Small night")
    last = round_of(lone).tables.get()
    fay = entry_of(lone, "fay")
    entry_remove(event_id=lone.pk, entry_id=fay.pk, actor=director, disqualify=False, reason="")
    refused(lambda: enter(lone, last, win_for("eve", "fay"), director), "wrong_status", 409)
