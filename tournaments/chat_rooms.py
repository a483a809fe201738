"""An event's chat room, ``event:<id>``: whoever may see the event reads it (a visitor too),
any signed-in user who may see it writes, and its organizers moderate it (delete, turn off)."""

from __future__ import annotations

from accounts.models import User
from chat.access import RoomAccess, register_rooms
from tournaments.access import is_event_admin
from tournaments.errors import EventError
from tournaments.models import Tournament
from tournaments.selectors import event_get


def event_room_key(event_id: int) -> str:
    return f"event:{event_id}"


def event_room_access(key: str, user: User | None) -> RoomAccess | None:
    """The access to ``event:<id>`` of ``user`` (None: a visitor); None if no such room, or the
    event is one this reader may not see (a draft)."""
    _, _, event_id = key.partition(":")
    if not event_id.isdigit():
        return None
    slug = Tournament.objects.filter(pk=int(event_id)).values_list("slug", flat=True).first()
    try:
        event = event_get(slug, user) if slug is not None else None
    except EventError:
        return None
    if event is None:
        return None
    return RoomAccess(
        read=True,
        write=user is not None,
        moderate=user is not None and is_event_admin(user, event),
        write_refusal="log in to talk here",
    )


def register_event_room() -> None:
    register_rooms("event", event_room_access)
