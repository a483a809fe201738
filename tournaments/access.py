"""Who organizes an event, and the rating pool it is seeded and gated by."""

from __future__ import annotations

from accounts.models import ClubMembership, User
from games.clock_services import table_managers
from games.models import Table
from ratings.elo import START
from ratings.selectors import PoolChoice, pool_choice, rating_in
from tournaments.errors import forbidden
from tournaments.models import Entry, RoundTable, Tournament


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


def require_admin(user: User, tournament: Tournament) -> None:
    """:raises EventError: ``forbidden`` (403) for anyone but the event's organizers."""
    if not is_event_admin(user, tournament):
        raise forbidden("only the event's organizers may do that")


def require_neutral(user: User, table: RoundTable) -> None:
    """An organizer who plays at ``table`` does not decide its result: another one does (or
    staff). The rule is the stricter one: the event's admins may play in it, so nothing else
    stops a player from adjudicating their own game in their favour.

    :raises EventError: ``forbidden`` (403).
    """
    if Entry.objects.filter(pk__in=table.players, user=user).exists():
        raise forbidden("you play at this table: another organizer decides it")


def require_not_competing(user: User, tournament: Tournament, what: str) -> None:
    """An organizer still playing in a running event does not ``what`` (withdraw a rival,
    re-seat a round): another organizer, or staff, does. Before the start, and once they are
    out of it, they organize as anyone else.

    :raises EventError: ``forbidden`` (403).
    """
    if tournament.status != Tournament.Status.RUNNING:
        return
    entry = Entry.objects.filter(tournament=tournament, user=user).first()
    if entry is not None and entry.active:
        raise forbidden(f"you play in this event: another organizer {what}")


def manages_table(user: User, table: Table) -> bool:
    """The event's organizers manage its tables (pause, resume) as staff do."""
    linked = getattr(table, "tournament_table", None)
    if linked is None:
        return False
    return is_event_admin(user, linked.round.tournament)


def register_table_managers() -> None:
    if manages_table not in table_managers:
        table_managers.append(manages_table)


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
