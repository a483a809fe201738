"""Writing to rooms: post, delete, mute and unmute, turn a room off and on.

Access is asked of the room's owner (``chat.access``) on every call. Text is kept as typed
(stripped) and escaped where it is shown (the pages set it as text, never as HTML); what is
refused here is what no page could show faithfully: empty text, more than ``MAX_TEXT``
characters, control characters and the invisible marks that reorder text (bidi overrides).

The rate limit is per author per room, counted on the messages themselves so that every process
(REST and sockets) sees the same count: a burst of ``BURST`` messages in ``BURST_SECONDS``, and at
most ``SUSTAINED`` in ``SUSTAINED_SECONDS``. A post takes its author's row lock first, so two
posts at once are counted one after the other.
"""

from __future__ import annotations

import math
import unicodedata
from datetime import timedelta

from django.db import transaction
from django.utils import timezone

from accounts.models import User
from chat import push
from chat.access import RoomAccess, room_access
from chat.errors import bad_text, chat_off, forbidden, login_required, not_found, rate_limited
from chat.models import MAX_TEXT, ChatMessage, ChatMute, ChatRoom
from chat.selectors import message_output, room_enabled

# A quick exchange ("gg", "wp", "thanks!") fits in a burst; a flood does not.
BURST, BURST_SECONDS = 5, 10
# A message every four seconds on average over a minute: faster than anyone types sentences.
SUSTAINED, SUSTAINED_SECONDS = 15, 60
# Bidi embeddings, overrides and isolates: they make a text read other than it is stored.
BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def chat_text_clean(text: object) -> str:
    """``text`` stripped, or a ``chat_bad_text`` ChatError (400) saying what is wrong.

    >>> chat_text_clean("  <b>hi</b> ")
    '<b>hi</b>'
    """
    if not isinstance(text, str):
        raise bad_text("text: must be a string")
    text = text.strip()
    if not text:
        raise bad_text("text: say something (an empty message is not sent)")
    if len(text) > MAX_TEXT:
        raise bad_text(f"text: at most {MAX_TEXT} characters ({len(text)} sent)")
    if any(unicodedata.category(c) in ("Cc", "Cs") or c in BIDI_CONTROLS for c in text):
        raise bad_text("text: control characters are not allowed (one line of plain text)")
    return text


def _readable(key: str, user: User | None) -> RoomAccess:
    access = room_access(key, user)
    if not access.read:
        raise forbidden(access.read_refusal)
    return access


def _rate_check(key: str, author: User) -> None:
    """:raises ChatError: ``chat_rate_limited`` (429) with ``retry_after`` in seconds."""
    now = timezone.now()
    for limit, seconds in ((BURST, BURST_SECONDS), (SUSTAINED, SUSTAINED_SECONDS)):
        recent = ChatMessage.objects.filter(room=key, author=author).order_by("-created")
        stamps = list(recent.values_list("created", flat=True)[:limit])
        window = timedelta(seconds=seconds)
        if len(stamps) == limit and stamps[-1] > now - window:
            wait = (stamps[-1] + window - now).total_seconds()
            raise rate_limited(
                f"at most {limit} messages in {seconds} seconds here; wait a moment",
                math.ceil(wait * 1000) / 1000,
            )


def chat_post(*, room: str, author: User | None, text: object) -> ChatMessage:
    """Post ``text`` as ``author`` in room ``room``; its readers get it after the commit.

    :raises ChatError: ``chat_login_required`` for a visitor, ``not_found``, ``forbidden``
        (may not read or write here), ``chat_off``, ``chat_bad_text``, ``chat_rate_limited``.
    """
    if author is None or not author.is_authenticated:
        raise login_required()
    access = _readable(room, author)
    if not access.write:
        raise forbidden(access.write_refusal)
    if not room_enabled(room):
        raise chat_off()
    clean = chat_text_clean(text)
    with transaction.atomic():
        User.objects.select_for_update().filter(pk=author.pk).first()  # one post at a time
        _rate_check(room, author)
        message = ChatMessage.objects.create(
            room=room, author=author, text=clean, created=timezone.now()
        )
        push.on_commit_message(room, author.pk, message_output(message, author.username))
    return message


def chat_delete(*, message_id: int, user: User) -> ChatMessage:
    """Delete a message (a room's moderators); its readers are told after the commit.

    :raises ChatError: ``not_found`` (also for one already deleted), ``forbidden``.
    """
    with transaction.atomic():
        message = (
            ChatMessage.objects.select_for_update()
            .filter(pk=message_id, deleted_at__isnull=True)
            .first()
        )
        if message is None:
            raise not_found(f"chat message {message_id}")
        if not room_access(message.room, user).moderate:
            raise forbidden("only the room's moderators may delete a message")
        message.deleted_at, message.deleted_by = timezone.now(), user
        message.save(update_fields=["deleted_at", "deleted_by"])
        push.on_commit_deleted(message.room, message.pk)
    return message


def _target(username: object) -> User:
    found = User.objects.named(username) if isinstance(username, str) else None
    if found is None:
        raise not_found(f"user {username}")
    return found


def chat_mute(*, user: User, username: object) -> None:
    """``user`` no longer receives ``username``'s messages, anywhere (muting twice is once).

    :raises ChatError: ``not_found`` (no such user), ``forbidden`` (yourself).
    """
    target = _target(username)
    if target.pk == user.pk:
        raise forbidden("you cannot mute yourself")
    with transaction.atomic():
        ChatMute.objects.get_or_create(user=user, muted=target)
        push.on_commit_mutes(user.pk)


def chat_unmute(*, user: User, username: object) -> None:
    """:raises ChatError: ``not_found`` (no such user)."""
    target = _target(username)
    with transaction.atomic():
        ChatMute.objects.filter(user=user, muted=target).delete()
        push.on_commit_mutes(user.pk)


def chat_room_set_enabled(*, room: str, user: User, enabled: bool) -> None:
    """Turn room ``room`` on or off (its moderators); its readers are told after the commit.

    :raises ChatError: ``not_found``, ``forbidden``.
    """
    if not _readable(room, user).moderate:
        raise forbidden("only the room's moderators may turn its chat off or on")
    with transaction.atomic():
        ChatRoom.objects.update_or_create(
            key=room, defaults={"enabled": enabled, "changed_by": user}
        )
        push.on_commit_switch(room, enabled)
