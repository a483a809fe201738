"""An event's life: created, registration opened, check-in opened, started, cancelled.

Each step holds the event's row lock (``tournaments.locks``, which gives the app's lock order)
and raises the refusal of its check in ``tournaments.refusals``, which the event page asks too.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.text import slugify

from accounts.models import Club, User
from config.errors import refuse
from games.models import RuleSet
from tournaments.access import event_pool, rating_and_games, require_admin
from tournaments.audit import audit
from tournaments.errors import EventError
from tournaments.format_inputs import settings_of
from tournaments.formats import (
    Entrant,
    FormatError,
    get_format,
    seed_at_random,
    seed_by_hand,
    seed_by_rating,
)
from tournaments.limits import (
    DESCRIPTION_MAX,
    NAME_MAX,
    PLAYERS_MAX,
    RATED_GAMES_MAX,
    RATING_BOUND,
    REASON_MAX,
    TURN_SECONDS_MAX,
    in_range,
    within,
)
from tournaments.locks import lock_event
from tournaments.models import AuditEntry, Entry, Tournament
from tournaments.notices import notify_check_in_open
from tournaments.refusals import (
    cancel_refusal,
    close_window_refusal,
    deal_refusal,
    open_check_in_refusal,
    open_registration_refusal,
    start_refusal,
)
from tournaments.rounds import plan_next_round

Status = Tournament.Status
Action = AuditEntry.Action
Refusal = Callable[[Tournament], EventError | None]
OPTION_NAMES = (
    "third_place",
    "grand_final_reset",
    "double_round",
    "advance",
    "min_table",
    "placement_points",
)


def event_create(*, created_by: User, name: str, format: str, **fields: Any) -> Tournament:
    """A new event in ``draft``, its fields checked: the format exists and fits the table size,
    the rule set deals to that many, the clock is in bounds. ``ruleset`` is a rule set or slug,
    ``club`` a club or slug; other fields as on ``Tournament``.

    :raises EventError: ``bad_request`` naming the field at fault.
    """
    fields["ruleset"] = _ruleset(fields.get("ruleset", "standard"))
    if isinstance(fields.get("club"), str):
        fields["club"] = _club(fields["club"])
    event = Tournament(name=name, format=format, created_by=created_by, **fields)
    chosen = event.slug
    event.slug = chosen or _free_slug(name)
    check_event(event)
    _insert(event, retry=not chosen)
    audit(event, created_by, Action.CREATE, {"format": format})
    return event


#: Inserts tried when events of one name are created at once: each clash takes the next free
#: slug, so N creators at once need N tries; beyond this many the caller is told to try again.
SLUG_TRIES = 10


def _insert(event: Tournament, *, retry: bool) -> None:
    """Save the new ``event``. Its free slug was read before the insert, so another event
    created meanwhile may have taken it: then (``retry``) the insert, in a savepoint, is tried
    again with the next free one. A slug the caller chose that is taken is ``bad_request``.

    :raises EventError: ``bad_request`` (a chosen slug taken), ``slug_busy`` (409, retryable).
    """
    for _ in range(SLUG_TRIES):
        try:
            with transaction.atomic():
                event.save()
            return
        except IntegrityError:
            if not Tournament.objects.filter(slug=event.slug).exists():
                raise  # another constraint: not a clash of slugs
            if not retry:
                raise EventError("bad_request", f"slug: {event.slug!r} is taken") from None
            event.slug = _free_slug(event.name)
    raise EventError("slug_busy", "many events of this name are being created: try again", 409)


def check_event(event: Tournament) -> None:
    """:raises EventError: ``bad_request`` for a setting the event cannot run with: among them
    rules that cannot deal to a table size the event may draw (``refusals.deal_refusal``)."""
    try:
        fmt = get_format(event.format)
    except FormatError as exc:
        raise EventError("bad_request", str(exc)) from None
    refuse(deal_refusal(event))
    unknown = set(event.options) - set(OPTION_NAMES)
    if unknown:
        raise EventError("bad_request", f"options: unknown {', '.join(sorted(unknown))}")
    _check_format_fits(fmt, event)
    if not 1 <= event.turn_seconds <= TURN_SECONDS_MAX:
        raise EventError("bad_request", f"turn_seconds: must be 1 to {TURN_SECONDS_MAX}")
    if event.time_bank_seconds > TURN_SECONDS_MAX:
        raise EventError("bad_request", f"time_bank_seconds: must be at most {TURN_SECONDS_MAX}")
    if event.members_only and event.club_id is None:
        raise EventError("bad_request", "members_only: an event for members needs a club")
    within(event.name, "name", NAME_MAX)
    within(event.description, "description", DESCRIPTION_MAX)
    in_range(event.max_players, "max_players", 1, PLAYERS_MAX)
    in_range(event.min_rated_games, "min_rated_games", 0, RATED_GAMES_MAX)
    in_range(event.min_rating, "min_rating", -RATING_BOUND, RATING_BOUND)
    in_range(event.max_rating, "max_rating", -RATING_BOUND, RATING_BOUND)


#: Field sizes tried when an event is created: its format must run with at least one of them
#: (the real field is only known at the start, which checks it again).
TRIAL_FIELDS = (2, 3, 4, 6, 8, 12, 16, 24, 32, 64)


def _check_format_fits(fmt: Any, event: Tournament) -> None:
    """The format can run at this table size with some field (single elimination cannot at
    tables of three, whatever the field)."""
    error: Exception | None = None
    for field in TRIAL_FIELDS:
        try:
            fmt.check(field, settings_of(event))
            return
        except (FormatError, TypeError, ValueError) as exc:  # a bad option's value too
            error = exc
    raise EventError("bad_request", f"options: {error}")


def _ruleset(value: RuleSet | str) -> RuleSet:
    if isinstance(value, RuleSet):
        return value
    found = RuleSet.objects.filter(slug=value).first()
    if found is None:
        raise EventError("bad_request", f"ruleset: no rule set {value!r}")
    return found


def _club(slug: str) -> Club:
    found = Club.objects.filter(slug=slug).first()
    if found is None:
        raise EventError("bad_request", f"club: no club {slug!r}")
    return found


#: Slugs the event pages' own paths use (``/events/new/``): no event may take one.
RESERVED_SLUGS = {"new"}


def _free_slug(name: str) -> str:
    base = slugify(name)[:100] or "event"
    slug, n = base, 1
    while slug in RESERVED_SLUGS or Tournament.objects.filter(slug=slug).exists():
        n += 1
        slug = f"{base}-{n}"
    return slug


def _move(
    event_id: int,
    actor: User | None,
    refusal: Refusal,
    to: str,
    then: Callable[[Tournament], None] | None = None,
) -> Tournament:
    """Move the event on to ``to`` unless ``refusal`` says why not (already there: a no-op);
    ``actor`` None is the event's own schedule (``tournaments.tasks``). ``then`` runs after the
    move, in its transaction (not after a no-op)."""
    with transaction.atomic():
        event = lock_event(event_id)
        if actor is not None:
            require_admin(actor, event)
        if event.status == to:
            return event
        refuse(refusal(event))
        event.status = to
        fields = ["status"]
        if event.published_at is None:
            event.published_at = timezone.now()
            fields.append("published_at")
        event.save(update_fields=fields)
        audit(event, actor, Action(to), {})
        if then is not None:
            then(event)
        return event


def event_open_registration(*, event_id: int, actor: User | None) -> Tournament:
    """``draft`` to ``registration``. :raises EventError: ``forbidden``, ``wrong_status``."""
    return _move(event_id, actor, open_registration_refusal, Status.REGISTRATION)


def event_open_check_in(*, event_id: int, actor: User | None) -> Tournament:
    """``registration`` to ``check_in`` (registration closes); every entrant is told (one
    notice each, ``tournaments.notices``). :raises EventError:"""
    return _move(event_id, actor, open_check_in_refusal, Status.CHECK_IN, notify_check_in_open)


def event_close_window(*, event_id: int, actor: User) -> Tournament:
    """Close registration or check-in now, whichever is open, without moving the event on."""
    with transaction.atomic():
        event = lock_event(event_id)
        require_admin(actor, event)
        refuse(close_window_refusal(event))
        now = timezone.now()
        if event.status == Status.REGISTRATION:
            event.registration_closes_at = now
        else:
            event.check_in_closes_at = now
        event.save(update_fields=["registration_closes_at", "check_in_closes_at"])
        audit(event, actor, Action.CLOSE_WINDOW, {"status": event.status})
        return event


def event_cancel(*, event_id: int, actor: User | None, reason: str = "") -> Tournament:
    """Call the event off (before it finishes), logged with the reason; tables already playing
    play on, but their results no longer move the event. Cancelling twice is a no-op.

    :raises EventError: ``forbidden``, ``wrong_status`` (finished), ``bad_request`` (a reason
        past ``REASON_MAX``).
    """
    reason = within(reason, "reason", REASON_MAX)
    with transaction.atomic():
        event = lock_event(event_id)
        if actor is not None:
            require_admin(actor, event)
        if event.status == Status.CANCELLED:
            return event
        refuse(cancel_refusal(event))
        event.status = Status.CANCELLED
        event.finished_at = timezone.now()
        event.save(update_fields=["status", "finished_at"])
        audit(event, actor, Action.CANCELLED, {"reason": reason})
    return event


def event_start(*, event_id: int, actor: User | None) -> Tournament:
    """Drop whoever did not check in, seed the rest, and start round 1 (``actor`` None: the
    event's own schedule, at its start time).

    :raises EventError: ``forbidden``, ``wrong_status`` (not in check-in), ``bad_request`` when
        the format cannot run with the players checked in.
    """
    with transaction.atomic():
        event = lock_event(event_id)
        if actor is not None:
            require_admin(actor, event)
        refuse(start_refusal(event))
        event.entries.filter(status=Entry.Status.REGISTERED).update(
            status=Entry.Status.NO_SHOW, left_at=timezone.now()
        )
        entries = list(event.entries.filter(status=Entry.Status.CHECKED_IN))
        _seed(event, entries)
        event.status = Status.RUNNING
        event.started_at = timezone.now()
        event.save(update_fields=["status", "started_at", "random_seed"])
        audit(event, actor, Action.START, {"players": len(entries), "seeding": event.seeding})
        plan_next_round(event)
    return event


def _seed(event: Tournament, entries: list[Entry]) -> None:
    choice = event_pool(event)
    ratings = {e.pk: rating_and_games(choice, e.user)[0] for e in entries}
    players = [(e.pk, ratings[e.pk]) for e in entries]
    seeded: list[Entrant]
    if event.seeding == Tournament.Seeding.RANDOM:
        event.random_seed = event.random_seed or secrets.token_hex(16)
        seeded = seed_at_random(players, event.random_seed)
    elif event.seeding == Tournament.Seeding.HAND:
        big = len(entries) + 1
        order = sorted(entries, key=lambda e: (e.hand_seed or big, -ratings[e.pk], e.pk))
        seeded = seed_by_hand([e.pk for e in order], ratings)
    else:
        seeded = seed_by_rating(players)
    by_id = {e.pk: e for e in entries}
    for entrant in seeded:
        entry = by_id[entrant.id]
        entry.seed, entry.rating, entry.status = entrant.seed, entrant.rating, Entry.Status.PLAYING
    Entry.objects.bulk_update(entries, ["seed", "rating", "status"])
