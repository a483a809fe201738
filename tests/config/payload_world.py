"""The data tests/config/test_payload_schema.py calls every API operation against: enough that
each answer is whole (lists not empty, the optional and nullable parts present).

- a rated game ann and bob played, so both have a rating, a history and pools (and its table,
  finished, has rating changes to show and a rematch to offer);
- a table in play (ann and bob) and one still gathering players (eve's, three seats);
- a table whose log holds every kind of row: the start, actions, a hand's end and the next
  deal, an overdue turn the sweep played, a pause and a resume, a player withdrawn and then
  played for as absent, and the organizer's adjudication;
- a running single elimination of four in the club "hearts" (round 1 decided, so there are
  standings and a bracket with a match in play), a face-to-face event, and a Swiss waiting for
  its organizer to start round 1.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from django.utils import timezone

from accounts.models import Club, ClubMembership, User
from games import clock_services, hosting, services
from games.models import Table, TableEvent
from tests.accounts.factories import UserFactory
from tests.games.tables import play_greedy, started_table, state_of
from tests.ratings.rating_rows import play_rated
from tests.tournaments.factories import FOUR, decide_round, staff, started_event, user_named
from tournaments.models import Tournament


@dataclass
class World:
    director: User
    rated: Table
    playing: Table
    waiting: Table
    logged: Table
    elimination: Tournament
    face_to_face: Tournament
    waiting_swiss: Tournament

    @staticmethod
    def user(name: str) -> User:
        return User.objects.get(username=name)


def build_world() -> World:
    director = staff()
    club = Club.objects.create(name="Hearts", slug="hearts")
    for name in [*FOUR, "eve", "fay", "gus", "kai", "lou", "max"]:
        user_named(name)
    ClubMembership.objects.create(club=club, user=World.user("ann"))
    ann, bob = World.user("ann"), World.user("bob")
    rated = play_rated([ann, bob])
    return World(
        director=director,
        rated=rated,
        playing=started_table([ann, bob]),
        waiting=services.table_create(creator=World.user("eve"), ruleset="standard", seats=3),
        logged=logged_table(director),
        elimination=elimination(director, club),
        face_to_face=started_event(director, ["eve", "fay"], online=False, name="At the club"),
        waiting_swiss=started_event(
            director, FOUR, format="swiss", rounds=2, auto_advance=False, name="Slow Swiss"
        ),
    )


def logged_table(director: User) -> Table:
    """A game of three with a log row of every kind (see the module's docstring)."""
    players = [UserFactory(username=name) for name in ("hal", "ian", "jo")]
    table = started_table(players)
    play_greedy(table, players, until=lambda t: state_of(t).hand_number >= 2)
    overdue = timezone.now() - timedelta(seconds=5)
    Table.objects.filter(pk=table.pk).update(deadline=overdue)
    assert clock_services.table_enforce_deadline(table.pk, by="sweep")
    clock_services.table_pause(table_id=table.pk, user=director)
    clock_services.table_resume(table_id=table.pk, user=director)
    hosting.table_withdraw_player(
        table_id=table.pk, player=players[2], actor=director, reason="went home"
    )
    absent = TableEvent.objects.filter(table=table, data__absent=True)
    play_greedy(table, players[:2], until=lambda t: absent.exists())
    places = {"hal": 1, "ian": 2, "jo": 3}
    hosting.table_adjudicate(table_id=table.pk, places=places, actor=director, reason="late")
    table.refresh_from_db()
    return table


def elimination(director: User, club: Club) -> Tournament:
    """Four players in the club's knock-out: round 1 decided, the final in play."""
    event = started_event(director, FOUR, club=club, name="Club knock-out")
    decide_round(event, 1, director)
    event.refresh_from_db()
    return event
