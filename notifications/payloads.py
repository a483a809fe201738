"""The notifications' answers (REST and the ``/ws/me/`` socket), one ``TypedDict`` each: what
``notifications.selectors`` builds and, through ``config.payloads.serializer_for``, what the
schema documents."""

from __future__ import annotations

from typing import Annotated, NotRequired, TypedDict

from config.payloads import Doc, IsoTime
from notifications.models import Kind


class NotificationOutput(TypedDict):
    """One notice: what it is about in words, where it leads, and whether it was read."""

    id: int
    kind: Annotated[str, Doc(choices=Kind.choices)]
    text: Annotated[str, Doc("Plain text: show it as text, never as HTML")]
    link: Annotated[str, Doc("A path on this site, e.g. /tables/7/")]
    created: IsoTime
    read_at: Annotated[IsoTime | None, Doc("When it was read; null while unread")]


class NotificationListOutput(TypedDict):
    """A page of the user's notices, newest first, and how many are unread in all."""

    count: int
    unread: int
    limit: int
    offset: int
    results: list[NotificationOutput]


class ReadInput(TypedDict):
    """Which notices to mark read: ``ids``, or every one with ``all`` true."""

    ids: NotRequired[list[int]]
    all: NotRequired[bool]


class ReadOutput(TypedDict):
    marked: Annotated[int, Doc("How many were unread and are read now")]
    unread: int


class EmailSettingsOutput(TypedDict):
    """Per kind of notice, whether it is also sent by email (notices in the site stay)."""

    table_ready: bool
    check_in_open: bool
    starts_soon: bool
    rematch_offer: bool
    event_stalled: bool


class EmailSettingsInput(TypedDict):
    """The kinds to change; a kind left out keeps its setting."""

    table_ready: NotRequired[bool]
    check_in_open: NotRequired[bool]
    starts_soon: NotRequired[bool]
    rematch_offer: NotRequired[bool]
    event_stalled: NotRequired[bool]


class SettingsOutput(TypedDict):
    email: EmailSettingsOutput


class SettingsInput(TypedDict):
    email: EmailSettingsInput
