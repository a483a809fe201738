"""Who organizes an event, and the rating pool it is seeded and gated by."""

from __future__ import annotations

from accounts.models import ClubMembership, User
from games.clock_services import table_managers
from games.game_over import register_event_check
from games.models import Table
from ratings.elo import START
from ratings.selectors import PoolChoice, pool_choice, rating_in
from tournaments.errors import forbidden
from tournaments.models import Tournament


def is_event_admin(user: User, tournament: Tournament) -> bool:
    """Staff, the event's own admins, and the admins of the club running it."""
    if not user.is_authenticated:
        return False
    if user.is_staff or tournament.admins.filter(pk=user.pk).exists():
        return True
    return tournament.club_id is not None and (
        ClubMembership.objects.filter(
            club_id=tournament.club_id, user=user, role=ClubMembership.Role.ADMIN
        ).exists()
    )


def event_organizers(tournament: Tournament) -> list[User]:
    """Whom the event tells of what needs an organizer: its own admins, its club's admins, and
    its creator while one of the organizers (staff at large are not told of every event)."""
    ids = set(tournament.admins.values_list("pk", flat=True))
    if tournament.club_id is not None:
        admins = ClubMembership.objects.filter(
            club_id=tournament.club_id, role=ClubMembership.Role.ADMIN
        )
        ids |= set(admins.values_list("user_id", flat=True))
    if is_event_admin(tournament.created_by, tournament):
        ids.add(tournament.created_by_id)
    return list(User.objects.filter(pk__in=ids, is_active=True).order_by("pk"))


def require_admin(user: User, tournament: Tournament) -> None:
    """:raises EventError: ``forbidden`` (403) for anyone but the event's organizers."""
    if not is_event_admin(user, tournament):
        raise forbidden("only the event's organizers may do that")


def manages_table(user: User, table: Table) -> bool:
    """The event's organizers manage its tables (pause, resume) as staff do."""
    linked = getattr(table, "tournament_table", None)
    if linked is None:
        return False
    return is_event_admin(user, linked.round.tournament)


def is_event_table(table: Table) -> bool:
    """A table one of an event's rounds opened: no rematch there, the event goes on."""
    return getattr(table, "tournament_table", None) is not None


def register_table_managers() -> None:
    """The event's organizers manage its tables, and games learns which tables are events'."""
    if manages_table not in table_managers:
        table_managers.append(manages_table)
    register_event_check(is_event_table)


def event_pool(tournament: Tournament) -> PoolChoice:
    """The pool an event seeds by and gates entry on: its club's, else its rule preset's, else
    the global pool."""
    if tournament.club is not None:
        return pool_choice(club=tournament.club.slug)
    if tournament.ruleset.is_preset:
        return pool_choice(ruleset=tournament.ruleset.slug)
    return pool_choice()


def rating_and_games(choice: PoolChoice, user: User) -> tuple[float, int]:
    rating = rating_in(choice, user)
    return (rating.rating, rating.games) if rating else (START, 0)
