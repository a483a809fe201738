"""Who may read, write and moderate a room: decided by the app that owns what its key names.

The chat app knows no tables nor events. An app registers a policy for its prefix (the key's
part before the first ``:``) in its ``AppConfig.ready``: ``games`` for ``table:…``,
``tournaments`` for ``event:…``. Every entry point (REST, the table socket, the event socket)
asks here, so a rule lives once.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from accounts.models import User
from chat.errors import not_found


@dataclass(frozen=True, slots=True)
class RoomAccess:
    """What one reader (None: an anonymous visitor) may do in one room, and why not."""

    read: bool
    write: bool
    moderate: bool = False  # delete messages, turn the room off and on
    read_refusal: str = "you may not read this room"
    write_refusal: str = "you may not write in this room"


#: A room's policy: its access for ``user``, or None when the key names nothing.
Policy = Callable[[str, User | None], RoomAccess | None]

_policies: dict[str, Policy] = {}


def register_rooms(prefix: str, policy: Policy) -> None:
    """``policy`` decides for every key ``prefix:…`` (registering again replaces it)."""
    _policies[prefix] = policy


def room_access(key: str, user: User | None) -> RoomAccess:
    """The access of ``user`` (None, or anonymous: a visitor) to room ``key``.

    :raises ChatError: ``not_found`` (404) for a key no app owns or that names nothing.
    """
    policy = _policies.get(key.partition(":")[0])
    reader = user if user is not None and user.is_authenticated else None
    access = policy(key, reader) if policy is not None else None
    if access is None:
        raise not_found(f"chat room {key}")
    return access
