"""Why an event service would refuse now: each service's preconditions, written once.

Each ``*_refusal`` returns the ``EventError`` its service would raise (the first of its checks to
fail, in the service's order), or None when the service would accept. The services
(``entries``, ``services``, ``organizer``, ``scorekeeper``) raise what these return, holding the
event's row lock; the event page (``page_context``) calls them without it, to offer exactly the
calls that would be accepted and to say why not in the services' own words. The page's read is
advisory: a moment later the service, under the lock, has the last word.

A call that would change nothing (registering twice, checking in twice, withdrawing once gone,
cancelling a cancelled event) is not refused by its service, and not offered by the page.

The organizers' checks take someone already known to organize the event: the services call
``access.require_admin`` first, and the page shows its tools to ``access.is_event_admin`` alone.
"""

from __future__ import annotations

from django.utils import timezone

from accounts.models import ClubMembership, User
from games.engine.errors import ConfigError
from games.models import Table
from tournaments.access import event_pool, rating_and_games
from tournaments.errors import EventError, forbidden, not_eligible, wrong_status
from tournaments.format_inputs import settings_of
from tournaments.formats import FormatError, get_format
from tournaments.models import Entry, Round, RoundTable, Tournament
from tournaments.standing import is_knocked_out

Status = Tournament.Status
#: An entry still in the event: withdrawing changes it (any other has left already).
STILL_IN = (Entry.Status.REGISTERED, Entry.Status.CHECKED_IN, Entry.Status.PLAYING)
OVER = (Status.FINISHED, Status.CANCELLED)


# --- a player's own calls (tournaments.entries) --------------------------------------------------


def register_refusal(event: Tournament, user: User) -> EventError | None:
    """Why ``user`` may not enter ``event`` now: the registration window, then a
    disqualification from it (an organizer's decision a new registration cannot undo), then
    the entry conditions, then the places left."""
    return (
        window_refusal(event, Status.REGISTRATION)
        or _disqualified_refusal(event, user)
        or conditions_refusal(event, user)
        or _full_refusal(event)
    )


def anyone_register_refusal(event: Tournament) -> EventError | None:
    """What stops anyone at all from registering now: the window, then the places left (a
    visitor who is not logged in is asked to log in to register only without one)."""
    return window_refusal(event, Status.REGISTRATION) or _full_refusal(event)


def _disqualified_refusal(event: Tournament, user: User) -> EventError | None:
    disqualified = Entry.Status.DISQUALIFIED
    if Entry.objects.filter(tournament=event, user=user, status=disqualified).exists():
        return not_eligible("you were disqualified from this event")
    return None


def window_refusal(event: Tournament, status: str) -> EventError | None:
    """Why registration (``status`` ``registration``) or check-in (``check_in``) is not open:
    the event is elsewhere, or the window's times say not yet, or no more."""
    what = "registration" if status == Status.REGISTRATION else "check-in"
    if event.status != status:
        return wrong_status(f"{what} is not open (the event is {event.get_status_display()})")
    opens, closes = (
        (event.registration_opens_at, event.registration_closes_at)
        if status == Status.REGISTRATION
        else (event.check_in_opens_at, event.check_in_closes_at)
    )
    now = timezone.now()
    if opens is not None and now < opens:
        return wrong_status(f"{what} opens at {opens:%Y-%m-%d %H:%M} UTC")
    if closes is not None and now >= closes:
        return wrong_status(f"{what} closed at {closes:%Y-%m-%d %H:%M} UTC")
    return None


def conditions_refusal(event: Tournament, user: User) -> EventError | None:
    """``not_eligible`` naming the first entry condition ``user`` does not meet."""
    if (
        event.members_only
        and not ClubMembership.objects.filter(club=event.club, user=user).exists()
    ):
        return not_eligible(f"only members of {event.club} may enter")
    rating, games = rating_and_games(event_pool(event), user)
    if event.min_rating is not None and rating < event.min_rating:
        return not_eligible(f"entry needs a rating of at least {event.min_rating:.0f}")
    if event.max_rating is not None and rating > event.max_rating:
        return not_eligible(f"entry needs a rating of at most {event.max_rating:.0f}")
    if games < event.min_rated_games:
        return not_eligible(f"entry needs at least {event.min_rated_games} rated games")
    return None


def _full_refusal(event: Tournament) -> EventError | None:
    taken = event.entries.filter(status=Entry.Status.REGISTERED).count()
    if event.max_players is not None and taken >= event.max_players:
        return EventError("event_full", f"all {event.max_players} places are taken", 409)
    return None


def not_registered() -> EventError:
    return EventError("not_registered", "you are not registered for this event")


def check_in_refusal(event: Tournament, entry_status: str | None) -> EventError | None:
    """Why the player whose entry has ``entry_status`` (None: no entry) may not check in: they
    are not registered, or check-in is not open."""
    if entry_status != Entry.Status.REGISTERED:
        return not_registered()
    return window_refusal(event, Status.CHECK_IN)


def withdraw_refusal(event: Tournament, entry: Entry | None) -> EventError | None:
    """Why the player with ``entry`` (None: no entry) may not withdraw: they never entered,
    the event is over, or they are knocked out already (nothing left to withdraw from)."""
    if entry is None:
        return not_registered()
    if event.status in OVER:
        return wrong_status("the event is over")
    if is_knocked_out(event, entry):
        return wrong_status("you are knocked out already: there is nothing to withdraw from")
    return None


# --- the event's life (tournaments.services) -----------------------------------------------------


def open_registration_refusal(event: Tournament) -> EventError | None:
    """Registration opens from a draft only."""
    return _moves_from(event, Status.DRAFT)


def open_check_in_refusal(event: Tournament) -> EventError | None:
    """Check-in opens (and registration closes) from registration only."""
    return _moves_from(event, Status.REGISTRATION)


def _moves_from(event: Tournament, status: str) -> EventError | None:
    if event.status != status:
        return wrong_status(f"the event is {event.get_status_display()}")
    return None


def close_window_refusal(event: Tournament) -> EventError | None:
    if event.status not in (Status.REGISTRATION, Status.CHECK_IN):
        return wrong_status("neither registration nor check-in is open")
    return None


def start_refusal(event: Tournament) -> EventError | None:
    """Why ``event`` may not start: it is not in check-in, or its format cannot run with the
    players checked in (those who did not check in are left out at the start)."""
    if event.status != Status.CHECK_IN:
        return wrong_status(f"the event is {event.get_status_display()}, not in check-in")
    players = event.entries.filter(status=Entry.Status.CHECKED_IN).count()
    try:
        get_format(event.format).check(players, settings_of(event))
    except FormatError as exc:
        return EventError("bad_request", str(exc))
    # Checked at creation too; again here for an event whose rule set changed since.
    return deal_refusal(event)


def drawn_table_sizes(event: Tournament) -> range:
    """Every table size ``event`` may open a game at: 2 to its table size, whatever the format.
    The two-player formats draw only tables of 2; the multi-seat ones draw down to ``min_table``
    and, once players leave, below it (``formats.common.seat_sizes``; a heads-up final of
    multi-table elimination); and a table planned before a player left opens with those still
    in (``rounds.start_round``), down to two."""
    return range(2, max(event.table_size, 2) + 1)


def deal_refusal(event: Tournament) -> EventError | None:
    """Why ``event``'s rules (its rule set with its overrides) cannot run it: the engine refuses
    them, or cannot deal to one of the table sizes the event may draw (``drawn_table_sizes``),
    the message naming that size. Refused at creation, so that no round of the event can fail
    to open a table (which stalls the event)."""
    try:
        rules = event.ruleset.to_rules(event.overrides)
        if not 2 <= event.table_size <= 8:
            rules.check_players(event.table_size)  # the engine's own words for a size it refuses
    except ConfigError as exc:
        return EventError("bad_request", str(exc))
    for seats in drawn_table_sizes(event):
        try:
            rules.check_players(seats)
        except ConfigError as exc:
            return EventError(
                "bad_request",
                f"{exc.field}: the rules cannot deal to a table of {seats}, which this event may "
                f"seat (tables of 2 to {event.table_size}): {exc.message}",
            )
    return None


def seeding_refusal(event: Tournament) -> EventError | None:
    """The seeding is set by hand only before the start: the start fixes the seeds."""
    if event.status not in (Status.DRAFT, Status.REGISTRATION, Status.CHECK_IN):
        return wrong_status(
            f"the seeding is fixed once the event has started (it is {event.get_status_display()})"
        )
    return None


def cancel_refusal(event: Tournament) -> EventError | None:
    if event.status == Status.FINISHED:
        return wrong_status("a finished event cannot be cancelled")
    return None


def pause_refusal(event: Tournament) -> EventError | None:
    return _running(event, "paused")


def resume_refusal(event: Tournament) -> EventError | None:
    return _running(event, "resumed")


def _running(event: Tournament, done: str) -> EventError | None:
    if event.status != Status.RUNNING:
        return wrong_status(f"only a running event can be {done}")
    return None


# --- the organizers' tools (tournaments.organizer, tournaments.scorekeeper) ----------------------


def competing_refusal(user: User, event: Tournament, what: str) -> EventError | None:
    """An organizer still playing in a running event does not ``what`` (withdraw a rival,
    re-seat a round): another organizer, or staff, does. Before the start, and once they are
    out of it, they organize as anyone else."""
    if event.status != Status.RUNNING:
        return None
    entry = Entry.objects.filter(tournament=event, user=user).first()
    if entry is not None and entry.active:
        return forbidden(f"you play in this event: another organizer {what}")
    return None


def neutral_refusal(user: User, table: RoundTable) -> EventError | None:
    """An organizer who plays at ``table`` does not decide its result: another one does (or
    staff). The rule is the stricter one: the event's admins may play in it, so nothing else
    stops a player from deciding their own game in their favour."""
    if Entry.objects.filter(pk__in=table.players, user=user).exists():
        return forbidden("you play at this table: another organizer decides it")
    return None


def remove_refusal(event: Tournament, actor: User, *, own: bool) -> EventError | None:
    """Why ``actor`` may not withdraw or disqualify a player (``own``: their own entry) now:
    one still playing in the running event removes nobody but themselves; nobody once it is
    over."""
    if not own:
        competing = competing_refusal(actor, event, "withdraws or disqualifies a player")
        if competing is not None:
            return competing
    if event.status in OVER:
        return wrong_status("the event is over")
    return None


def has_live_game(table: RoundTable) -> bool:
    return table.table is not None and table.table.status == Table.Status.PLAYING


def adjudicate_refusal(table: RoundTable, actor: User) -> EventError | None:
    """Why ``actor`` may not decide ``table``'s result now: they play at it; its result is in;
    it has a game that is over (entered face to face, or ended in play: that game decides it,
    once its finalization hook records it); or, without a game, its round is not running. A
    game in play is adjudicated by the table service (``games.hosting.table_adjudicate``).

    Read under the game's lock and the event's (``organizer.round_table_adjudicate``), this is
    what keeps one verdict per table: whatever decided it first, the second is refused here."""
    neutral = neutral_refusal(actor, table)
    if neutral is not None or has_live_game(table):
        return neutral
    if table.done:
        return wrong_status(f"the result of {table} is in already")
    if table.table_id is not None:
        return wrong_status(
            f"{table} has its game (table {table.table_id}), which is over: its result is that"
        )
    if table.round.status != Round.Status.RUNNING:
        return wrong_status(f"{table} is not in a running round")
    return None


def result_entry_refusal(event: Tournament, table: RoundTable, actor: User) -> EventError | None:
    """Why ``actor`` may not enter the game ``table`` played face to face: its round is not
    running, its result is in or it has a game of its own, ``actor`` played at it, or fewer
    than two of its players are still in the event (then it is adjudicated)."""
    if event.status != Status.RUNNING or table.round.status != Round.Status.RUNNING:
        return wrong_status(f"{table} is not in a running round")
    if table.done:
        return wrong_status(f"the result of {table} is in already")
    if table.table_id is not None:
        return wrong_status(f"{table} has its game (table {table.table_id}); its result is that")
    neutral = neutral_refusal(actor, table)
    if neutral is not None:
        return neutral
    still_in = Entry.objects.filter(pk__in=table.players, status=Entry.Status.PLAYING).count()
    if still_in < 2:
        return wrong_status(f"fewer than two players of {table} are still in: adjudicate it")
    return None


def reseat_refusal(event: Tournament, round_: Round, actor: User) -> EventError | None:
    """Why ``actor`` may not re-seat ``round_``: they still play in the event, the round has
    started, or the format is a bracket, whose draw fixes who meets whom."""
    competing = competing_refusal(actor, event, "re-seats a round")
    if competing is not None:
        return competing
    if round_.status != Round.Status.PENDING:
        return wrong_status("only a round that has not started can be re-seated")
    if hasattr(get_format(event.format), "bracket"):
        # The draw fixes who meets whom: a bracket refuses results of other pairings.
        return EventError("bad_request", "a bracket's matches follow the draw: not re-seated")
    return None


def round_start_refusal(event: Tournament, round_: Round) -> EventError | None:
    if round_.status != Round.Status.PENDING or event.status != Status.RUNNING:
        return wrong_status("this round is not waiting to start")
    return None
