"""An event's life through the services: create, register (with its conditions), check in,
start (no-shows dropped, seeds), rounds opened as live tables, results through the finalization
hook, the next round, the end."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from accounts.models import Club, ClubMembership, User
from games.models import Table
from ratings.models import Pool, Rating
from tests.accounts.factories import UserFactory
from tests.tournaments.factories import FOUR, decide, make_event, names_at
from tournaments.entries import entry_register, entry_withdraw
from tournaments.errors import EventError
from tournaments.models import Entry, Round, Tournament
from tournaments.organizer import entry_remove
from tournaments.services import (
    event_cancel,
    event_create,
    event_open_registration,
    event_start,
)

pytestmark = pytest.mark.django_db


def test_create_checks_its_settings(director: User) -> None:
    made = make_event(director)
    assert (made.status, made.slug, made.format) == ("draft", "club-night", "single_elimination")
    assert make_event(director).slug == "club-night-2"
    named_new = event_create(created_by=director, name="New", format="swiss")
    assert named_new.slug == "new-2"  # /events/new/ is the creation form
    bad = [
        {"format": "knockout"},
        {"table_size": 9},
        {"ruleset": "nope"},
        {"turn_seconds": 0},
        {"options": {"colour": "red"}},
        {"members_only": True},
    ]
    for fields in bad:
        with pytest.raises(EventError) as refused:
            make_event(director, **fields)
        assert refused.value.code == "bad_request", fields


def test_registration_follows_the_status_and_the_window(director: User) -> None:
    made = make_event(director)
    ann = UserFactory(username="ann")
    with pytest.raises(EventError, match="not open") as refused:
        entry_register(event_id=made.pk, user=ann)
    assert refused.value.status == 409
    event_open_registration(event_id=made.pk, actor=director)
    Tournament.objects.filter(pk=made.pk).update(
        registration_closes_at=timezone.now() - timedelta(minutes=1)
    )
    with pytest.raises(EventError, match="closed"):
        entry_register(event_id=made.pk, user=ann)
    Tournament.objects.filter(pk=made.pk).update(registration_closes_at=None)
    first = entry_register(event_id=made.pk, user=ann)
    assert entry_register(event_id=made.pk, user=ann) == first  # twice is once
    entry_withdraw(event_id=made.pk, user=ann)
    assert entry_register(event_id=made.pk, user=ann).status == "registered"


def test_a_disqualified_player_may_not_register_again(director: User) -> None:
    made = make_event(director)
    event_open_registration(event_id=made.pk, actor=director)
    ann = UserFactory(username="ann")
    entry = entry_register(event_id=made.pk, user=ann)
    entry_remove(event_id=made.pk, entry_id=entry.pk, actor=director, disqualify=True, reason="x")
    with pytest.raises(EventError, match="disqualified") as refused:
        entry_register(event_id=made.pk, user=ann)
    assert (refused.value.code, refused.value.status) == ("not_eligible", 403)
    entry.refresh_from_db()
    assert entry.status == Entry.Status.DISQUALIFIED


def test_entry_conditions(director: User) -> None:
    club = Club.objects.create(name="Hearts", slug="hearts")
    made = make_event(director, club=club, members_only=True, min_rated_games=0, max_players=1)
    event_open_registration(event_id=made.pk, actor=director)
    ann, bob, eve = (UserFactory(username=n) for n in ("ann", "bob", "eve"))
    ClubMembership.objects.create(club=club, user=ann)
    ClubMembership.objects.create(club=club, user=bob)
    with pytest.raises(EventError, match="members of Hearts") as refused:
        entry_register(event_id=made.pk, user=eve)
    assert refused.value.code == "not_eligible"
    entry_register(event_id=made.pk, user=ann)
    with pytest.raises(EventError) as full:
        entry_register(event_id=made.pk, user=bob)
    assert full.value.code == "event_full"
    gated = make_event(director, min_rating=1600.0, min_rated_games=3)
    event_open_registration(event_id=gated.pk, actor=director)
    with pytest.raises(EventError, match="at least 1600"):
        entry_register(event_id=gated.pk, user=ann)
    pool = Pool.objects.get_or_create(kind="ruleset", ruleset=gated.ruleset)[0]
    Rating.objects.create(pool=pool, user=ann, rating=1650.0, games=2, peak=1650.0)
    with pytest.raises(EventError, match="at least 3 rated games"):
        entry_register(event_id=gated.pk, user=ann)


def test_only_organizers_move_the_event(director: User) -> None:
    made = make_event(director)
    ann = UserFactory(username="ann")
    with pytest.raises(EventError) as refused:
        event_open_registration(event_id=made.pk, actor=ann)
    assert (refused.value.code, refused.value.status) == ("forbidden", 403)
    with pytest.raises(EventError) as refused:
        event_start(event_id=made.pk, actor=director)
    assert refused.value.code == "wrong_status"


def test_start_drops_no_shows_and_seeds_by_rating(director: User) -> None:
    made = make_event(director, status="check_in", players=FOUR)
    late = UserFactory(username="late")
    Entry.objects.create(tournament=made, user=late)  # registered, never checked in
    pool = Pool.objects.get_or_create(kind="ruleset", ruleset=made.ruleset)[0]
    for name, rating in (("dan", 1700.0), ("cid", 1600.0)):
        Rating.objects.create(pool=pool, user=User.objects.get(username=name), rating=rating)
    event_start(event_id=made.pk, actor=director)
    made.refresh_from_db()
    assert made.status == "running"
    seeds = dict(made.entries.values_list("user__username", "seed"))
    assert seeds["late"] is None and made.entries.get(user=late).status == "no_show"
    assert (seeds["dan"], seeds["cid"]) == (1, 2)
    first = made.round_set.get(number=1)
    assert first.status == "running"
    tables = list(first.tables.all())
    # ann and bob both have the starting 1500: ann registered first, so she is seed 3.
    assert [sorted(names_at(t)) for t in tables] == [["bob", "dan"], ["ann", "cid"]]  # 1-4, 2-3
    assert all(t.table.status == Table.Status.PLAYING for t in tables)


def test_results_advance_rounds_to_a_champion(director: User) -> None:
    made = make_event(director, status="check_in", players=FOUR)
    event_start(event_id=made.pk, actor=director)
    for number in (1, 2):
        for table in Round.objects.get(tournament=made, number=number).tables.all():
            decide(table, director, sorted(names_at(table)))  # alphabetical order wins
    made.refresh_from_db()
    assert made.status == "finished" and made.champion.username == "ann"
    assert made.standings[0]["username"] == "ann"
    assert [r.status for r in made.round_set.all()] == ["finished", "finished"]


def test_a_result_recorded_twice_counts_once(director: User) -> None:
    made = make_event(director, status="check_in", players=["ann", "bob"])
    event_start(event_id=made.pk, actor=director)
    table = Round.objects.get(tournament=made, number=1).tables.get()
    decide(table, director, ["bob", "ann"])
    from tournaments.rounds import event_finalize

    event_finalize(table.table.result)  # delivered again
    made.refresh_from_db()
    assert made.status == "finished" and made.champion.username == "bob"
    assert made.round_set.count() == 1


def test_a_player_who_withdraws_plays_on_absent_and_sits_out_later_rounds(
    director: User, django_capture_on_commit_callbacks: Any
) -> None:
    made = make_event(director, status="check_in", players=FOUR, format="swiss", rounds=3)
    event_start(event_id=made.pk, actor=director)
    for table in Round.objects.get(tournament=made, number=1).tables.all():
        decide(table, director, sorted(names_at(table)))
    second = Round.objects.get(tournament=made, number=2)
    table = second.tables.first()
    assert table is not None and table.table is not None
    leaving = User.objects.get(username=names_at(table)[0])
    with django_capture_on_commit_callbacks(execute=True):
        entry_withdraw(event_id=made.pk, user=leaving)
    live = Table.objects.get(pk=table.table_id)
    assert leaving.username in live.withdrawn  # absent for good at the table playing now
    assert made.entries.get(user=leaving).status == "withdrawn"
    for other in second.tables.all():
        if other.table is not None and other.table.status == "playing":
            decide(other, director, sorted(names_at(other)))
    table.refresh_from_db()
    places = dict(zip(table.players, table.places, strict=True))
    assert places[made.entries.get(user=leaving).pk] == 2  # absent: last at a table of two
    third = Round.objects.get(tournament=made, number=3)
    quitter = made.entries.get(user=leaving).pk
    sat_out = (
        next(t for t in third.tables.all() if quitter in t.players)
        if any(quitter in t.players for t in third.tables.all())
        else None
    )
    if sat_out is not None:  # planned against someone: decided at once, unplayed
        assert sat_out.table is None and sat_out.places is not None


def test_cancel(director: User) -> None:
    made = make_event(director)
    assert event_cancel(event_id=made.pk, actor=director).status == "cancelled"
    with pytest.raises(EventError):
        event_open_registration(event_id=made.pk, actor=director)
