"""The chat API's answers and the socket frames' message, one ``TypedDict`` each."""

from __future__ import annotations

from typing import Annotated, TypedDict

from config.payloads import Doc, IsoTime


class ChatMessageOutput(TypedDict):
    """One message. ``text`` is as its author typed it: show it as text, never as HTML."""

    id: int
    user: Annotated[str, Doc("The author's username")]
    text: str
    at: IsoTime


class ChatRoomOutput(TypedDict):
    """A room as one reader sees it: its last messages (oldest first, muted authors and deleted
    messages left out), whether it is on, and what this reader may do there."""

    room: Annotated[str, Doc("The room's key, e.g. table:12:players, event:34")]
    enabled: Annotated[bool, Doc("False while a moderator has turned the chat off")]
    writable: Annotated[bool, Doc("This reader may post here (while it is on)")]
    moderator: Annotated[bool, Doc("This reader may delete messages and turn the room off")]
    messages: list[ChatMessageOutput]


class ChatSwitchOutput(TypedDict):
    room: str
    enabled: bool


class ChatMutesOutput(TypedDict):
    """The users whose messages this reader no longer receives, in any room."""

    muted: list[str]
