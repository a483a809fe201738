"""Reading rooms: a room's history for one reader, their mutes, a room's switch."""

from __future__ import annotations

from accounts.models import User
from chat.access import RoomAccess
from chat.models import ChatMessage, ChatMute, ChatRoom
from chat.payloads import ChatMessageOutput, ChatMutesOutput, ChatRoomOutput

# Messages a reader gets on connect or from the history call: a screenful and more; older ones
# stay in the database with their table or event.
HISTORY = 50


def message_output(message: ChatMessage, username: str) -> ChatMessageOutput:
    return {
        "id": message.pk,
        "user": username,
        "text": message.text,
        "at": message.created.isoformat().replace("+00:00", "Z"),
    }


def muted_ids(user: User | None) -> set[int]:
    """The ids of the users ``user`` muted (nobody for a visitor)."""
    if user is None or not user.is_authenticated:
        return set()
    return set(ChatMute.objects.filter(user=user).values_list("muted_id", flat=True))


def chat_mutes(user: User) -> ChatMutesOutput:
    rows = ChatMute.objects.filter(user=user).order_by("muted__username")
    return {"muted": list(rows.values_list("muted__username", flat=True))}


def room_enabled(key: str) -> bool:
    return not ChatRoom.objects.filter(key=key, enabled=False).exists()


def chat_history(key: str, viewer: User | None, limit: int = HISTORY) -> list[ChatMessageOutput]:
    """The last ``limit`` messages of room ``key``, oldest first, without deleted ones and those
    of authors ``viewer`` muted. Access is the caller's to check (``chat.access``)."""
    rows = ChatMessage.objects.filter(room=key, deleted_at__isnull=True)
    muted = muted_ids(viewer)
    if muted:
        rows = rows.exclude(author_id__in=muted)
    newest = rows.select_related("author").order_by("-created", "-pk")[:limit]
    return [message_output(m, m.author.username) for m in reversed(newest)]


def chat_room(key: str, viewer: User | None, access: RoomAccess) -> ChatRoomOutput:
    """Room ``key`` as ``viewer``, who may read it (``access``), sees it."""
    return {
        "room": key,
        "enabled": room_enabled(key),
        "writable": access.write,
        "moderator": access.moderate,
        "messages": chat_history(key, viewer),
    }
