"""Manual seeding: before the start, the organizers see the order the start would seed the
players in, and may set it by hand.

``seeding_preview`` is that order (the start's own rule, ``services._seed``: by hand seed, then
rating; by rating; a random seeding is drawn at the start, so it lists by registration).
``event_seed_order`` sets the order: every player still entered gets a hand seed (1 is the top
seed) and the event seeds by hand. It holds the event's lock, as the start does, so an order
set a moment before the start is the one the start reads, and one a moment after is refused.
"""

from __future__ import annotations

from django.db import transaction

from accounts.models import User
from config.errors import refuse
from ratings.selectors import ratings_in
from tournaments.access import event_pool, require_admin
from tournaments.audit import audit
from tournaments.errors import EventError
from tournaments.locks import lock_event
from tournaments.models import AuditEntry, Entry, Tournament
from tournaments.payloads import SeedRowOutput
from tournaments.refusals import seeding_refusal

Seeding = Tournament.Seeding
#: The entries a seeding orders: those who may still play when the event starts.
ENTERED = (Entry.Status.REGISTERED, Entry.Status.CHECKED_IN)


def _entered(event: Tournament) -> list[Entry]:
    return list(event.entries.filter(status__in=ENTERED).select_related("user").order_by("pk"))


def seeding_preview(event: Tournament) -> list[SeedRowOutput]:
    """The players still entered in the order the start would seed them (a random seeding: in
    the order they registered, the draw being made at the start), each with their current
    rating in the event's pool. Those not checked in when it starts are left out then."""
    entries = _entered(event)
    ratings = ratings_in(event_pool(event), [e.user_id for e in entries])
    if event.seeding == Seeding.HAND:
        big = len(entries) + 1
        entries.sort(key=lambda e: (e.hand_seed or big, -ratings[e.user_id], e.pk))
    elif event.seeding == Seeding.RATING:
        entries.sort(key=lambda e: (-ratings[e.user_id], e.pk))
    else:
        entries.sort(key=lambda e: (e.registered_at, e.pk))
    return [
        {
            "position": n,
            "entry": e.pk,
            "username": e.user.username,
            "status": e.status,
            "rating": round(ratings[e.user_id]),
        }
        for n, e in enumerate(entries, start=1)
    ]


def event_seed_order(*, event_id: int, actor: User, order: list[int]) -> Tournament:
    """Seed the event by hand in ``order`` (entry ids, the top seed first): it must list every
    player still entered (registered or checked in), once each. Audited.

    :raises EventError: ``forbidden`` (not an organizer), ``wrong_status`` (409) once the event
        has started, ``bad_request`` with nobody entered or for an order that is not exactly
        the players entered.
    """
    with transaction.atomic():
        event = lock_event(event_id)
        require_admin(actor, event)
        refuse(seeding_refusal(event))
        entries = {e.pk: e for e in _entered(event)}
        if not entries:
            raise EventError("bad_request", "nobody has entered yet: there is nothing to seed")
        if len(order) != len(set(order)) or set(order) != set(entries):
            raise EventError(
                "bad_request",
                "order: list every player still entered exactly once, by entry id "
                f"({len(entries)} players)",
            )
        for n, pk in enumerate(order, start=1):
            entries[pk].hand_seed = n
        Entry.objects.bulk_update(entries.values(), ["hand_seed"])
        event.seeding = Seeding.HAND
        event.save(update_fields=["seeding"])
        names = ", ".join(entries[pk].user.username for pk in order)
        audit(event, actor, AuditEntry.Action.SEED, {"order": names})
    return event


def order_moved(order: list[int], entry_id: int, step: int) -> list[int]:
    """``order`` with ``entry_id`` moved ``step`` places (-1: up, towards the top seed), kept
    within the list; an id not in it leaves the order as it is.

    >>> order_moved([4, 7, 9], 9, -1), order_moved([4, 7, 9], 4, -1), order_moved([4, 7], 4, 1)
    ([4, 9, 7], [4, 7, 9], [7, 4])
    """
    if entry_id not in order:
        return list(order)
    moved = [pk for pk in order if pk != entry_id]
    at = min(max(order.index(entry_id) + step, 0), len(moved))
    moved.insert(at, entry_id)
    return moved
