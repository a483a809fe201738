"""A game played face to face, entered afterwards (``games.entered``): the finished table, its
hands' rows, its result, and the refusals. The event's side (who may enter, which round table)
is tournaments/scorekeeper.py's, tested in tests/tournaments/test_scorekeeper.py."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from accounts.models import User
from games import timers
from games.engine.state import Score
from games.entered import EnteredHand, table_record_entered
from games.errors import TableError
from games.models import GameResult, HandResult, RuleSet, Seat, Table
from tests.accounts.factories import ClubFactory, UserFactory
from tests.games.clocks import Sends

pytestmark = pytest.mark.django_db


def hand(**points: tuple[int, int]) -> EnteredHand:
    """``hand(ann=(45, 5))``: each player's (melded, in hand) points."""
    return {name: Score(melded, in_hand) for name, (melded, in_hand) in points.items()}


def players(*names: str) -> list[User]:
    return [UserFactory(username=name) for name in names]


def record(seated: list[User], hands: list[Mapping[str, Score]], **options: object) -> Table:
    fields: dict[str, object] = {
        "ruleset": RuleSet.objects.get(slug="standard"),
        "overrides": {},
        "rated": True,
        "club": None,
        **options,
    }
    return table_record_entered(players=seated, hands=hands, **fields)  # type: ignore[arg-type]


def test_the_game_is_a_finished_table_with_its_seats_and_no_log() -> None:
    seated = players("ann", "bob")
    club = ClubFactory()
    table = record(seated, [hand(ann=(45, 5), bob=(10, 30))], club=club, rated=False)
    assert (table.status, table.state, table.version, table.club, table.rated) == (
        Table.Status.FINISHED,
        None,
        0,
        club,
        False,
    )
    assert table.finished_at is not None and table.started_at == table.finished_at
    seats = Seat.objects.filter(table=table).order_by("position")
    assert [(s.user.username, s.position) for s in seats] == [("ann", 0), ("bob", 1)]
    assert table.creator.username == "ann"


def test_each_hand_scores_melded_less_in_hand_and_the_totals_run_on() -> None:
    table = record(
        players("ann", "bob"), [hand(ann=(45, 5), bob=(10, 30)), hand(ann=(0, 62), bob=(85, 0))]
    )
    rows = HandResult.objects.filter(table=table).order_by("hand", "player")
    assert [(r.hand, r.player, r.melded, r.in_hand, r.net) for r in rows] == [
        (1, "ann", 45, 5, 40),
        (1, "bob", 10, 30, -20),
        (2, "ann", 0, 62, -62),
        (2, "bob", 85, 0, 85),
    ]
    result = GameResult.objects.get(table=table)
    assert [(p["player"], p["score"]) for p in result.placements] == [("bob", 65), ("ann", -22)]


@pytest.mark.parametrize(
    ("entered", "out"),
    [
        (hand(ann=(40, 0), bob=(10, 30)), "ann"),
        (hand(ann=(40, 0), bob=(10, 0)), None),  # two empty hands: the entry does not say
        (hand(ann=(40, 3), bob=(10, 30)), None),  # nobody went out (the stock ran out)
    ],
)
def test_went_out_is_the_one_player_with_an_empty_hand(
    entered: EnteredHand, out: str | None
) -> None:
    table = record(players("ann", "bob"), [entered])
    rows = HandResult.objects.filter(table=table, went_out=True)
    assert [r.player for r in rows] == ([out] if out else [])
    assert GameResult.objects.get(table=table).hands[0]["went_out"] == out


def test_the_result_places_by_total_ties_sharing_and_says_how_it_ended() -> None:
    ann, bob, cid = players("ann", "bob", "cid")
    short = record([ann, bob, cid], [hand(ann=(30, 0), bob=(40, 10), cid=(5, 0))])
    result = GameResult.objects.get(table=short)
    assert (result.ended, result.winner) == (GameResult.Ended.ENTERED, "")
    assert result.placements == [
        {"player": "ann", "user": ann.pk, "place": 1, "score": 30, "absent": False, "acted": True},
        {"player": "bob", "user": bob.pk, "place": 1, "score": 30, "absent": False, "acted": True},
        {"player": "cid", "user": cid.pk, "place": 3, "score": 5, "absent": False, "acted": True},
    ]
    full = record(
        players("dan", "eve"), [hand(dan=(120, 0), eve=(0, 10))], overrides={"target": 100}
    )
    result = GameResult.objects.get(table=full)
    assert (result.ended, result.winner) == (GameResult.Ended.TARGET, "dan")


def test_its_finalization_hooks_are_sent_after_commit(
    sent: Sends, django_capture_on_commit_callbacks: Any
) -> None:
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        table = record(players("ann", "bob"), [hand(ann=(45, 5), bob=(10, 30))])
        assert sent.named(timers.FINALIZE_GAME) == []  # not before the commit
    assert len(callbacks) == 1
    assert [s.args for s in sent.named(timers.FINALIZE_GAME)] == [(table.pk,)]


@pytest.mark.parametrize(
    ("hands", "overrides", "message"),
    [
        ([], {}, "enter at least one hand"),
        ([hand(ann=(1, 2))], {}, "hand 1: score exactly ann, bob"),
        ([hand(ann=(1, 2), bob=(1, 2)), hand(ann=(1, 2), cid=(0, 0))], {}, "hand 2:"),
        ([hand(ann=(1, 2), bob=(1, 2))], {"target": 0}, "target"),
    ],
)
def test_what_does_not_make_a_game_is_refused_and_nothing_is_written(
    hands: list[EnteredHand], overrides: dict[str, int], message: str
) -> None:
    with pytest.raises(TableError, match=message) as refused:
        record(players("ann", "bob"), hands, overrides=overrides)
    assert (refused.value.code, refused.value.status) == ("bad_request", 400)
    assert not Table.objects.exists() and not GameResult.objects.exists()
