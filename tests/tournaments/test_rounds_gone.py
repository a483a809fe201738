"""Players who leave a running event: the formats pair and seat them no more (``gone``), so their
opponents play; a round planned before they left still decides their table at once."""

from __future__ import annotations

import pytest

from accounts.models import User
from tests.tournaments.factories import (
    FOUR,
    decide,
    entry_of,
    names_at,
    round_of,
    started_event,
    user_named,
)
from tournaments.bracket_view import event_bracket
from tournaments.entries import entry_withdraw
from tournaments.models import Entry, Tournament
from tournaments.organizer import entry_remove, round_start

pytestmark = pytest.mark.django_db

SIX = ["ann", "bob", "cid", "dan", "eve", "fay"]


def leave_after_their_table(event: Tournament, actor: User, number: int = 1) -> Entry:
    """Decide the round's first table with its first seat winning; that player then withdraws,
    and the round's other tables are decided (alphabetical order winning)."""
    first, *others = round_of(event, number).tables.all()
    winner = names_at(first)[0]
    decide(first, actor, [winner])
    entry_withdraw(event_id=event.pk, user=user_named(winner))
    for table in others:
        decide(table, actor, sorted(names_at(table)))
    return entry_of(event, winner)


def test_a_swiss_of_six_pairs_the_five_still_in_with_a_bye(director: User) -> None:
    event = started_event(director, SIX, format="swiss")
    gone = leave_after_their_table(event, director)
    second = round_of(event, 2)
    assert second.status == "running"
    tables = list(second.tables.all())
    assert [len(t.players) for t in tables] == [2, 2]
    assert all(t.table is not None and t.places is None for t in tables)  # no forfeit table
    assert gone.pk not in {p for t in tables for p in t.players} | set(second.byes)
    # The bye: the lowest-ranked player still in, the worst seed of those who lost round 1.
    winners = [t.players[t.places.index(1)] for t in round_of(event).tables.all()]
    losers = Entry.objects.filter(tournament=event, status="playing").exclude(pk__in=winners)
    assert second.byes == list(losers.order_by("-seed").values_list("pk", flat=True)[:1])
    event.refresh_from_db()
    row = next(r for r in event.standings if r["entry"] == gone.pk)
    assert (row["points"], row["eliminated"]) == (1.0, True)  # their win still counts


def test_a_player_who_leaves_once_the_round_is_planned_loses_that_table_at_once(
    director: User,
) -> None:
    # The fallback: the round was planned with them, so their table is decided when it starts.
    event = started_event(director, FOUR, format="swiss", rounds=2, auto_advance=False)
    round_start(event_id=event.pk, round_id=round_of(event).pk, actor=director)
    for table in round_of(event).tables.all():
        decide(table, director, sorted(names_at(table)))
    waiting = round_of(event, 2)
    ann = entry_of(event, "ann")
    assert any(ann.pk in t.players for t in waiting.tables.all())
    entry_remove(event_id=event.pk, entry_id=ann.pk, actor=director, disqualify=True, reason="rude")
    round_start(event_id=event.pk, round_id=waiting.pk, actor=director)
    hers = next(t for t in waiting.tables.all() if ann.pk in t.players)
    assert hers.table is None and hers.places == [2 if p == ann.pk else 1 for p in hers.players]


def test_a_knockout_final_against_a_player_who_left_is_a_walkover(director: User) -> None:
    event = started_event(director, FOUR)  # single elimination: two semi-finals, then the final
    gone = leave_after_their_table(event, director)
    other_semi = round_of(event).tables.all()[1]
    event.refresh_from_db()
    assert event.status == "finished" and event.round_set.count() == 1  # no final table
    assert event.champion is not None
    assert event.champion.username == sorted(names_at(other_semi))[0]  # won the other semi
    bracket = event_bracket(event)
    assert bracket is not None
    final = bracket["sides"][0]["columns"][-1]["matches"][0]
    assert (final["state"], final["table"], final["winner"]) == (
        "walkover",
        None,
        event.champion.username,
    )
    row = next(r for r in event.standings if r["entry"] == gone.pk)
    assert row["eliminated"] and event.standings[0]["username"] == event.champion.username
