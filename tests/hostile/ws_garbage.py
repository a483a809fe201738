"""Hypothesis strategies of hostile frames for the table socket, and the answer each is owed.

A ``Frame`` is what a client puts on the wire: a text frame (not JSON, any JSON value, objects
whose fields have every wrong type, deep nesting, huge numbers, lone surrogates and NUL, raw or
escaped) or a binary frame. ``owed`` says which ``error`` frame the protocol answers it with
(PROTOCOL.md and docs/tables.md, "Actions" and "The WebSocket"), or None for a frame that would
be a well-formed request (a ``sync``, a ``back``, an action that parses): not garbage, so the
test discards it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

from games.engine.actions import parse_action
from games.engine.errors import BAD_REQUEST, NOT_SEATED, STALE_VERSION, EngineError
from games.services import CLIENT_ID_MAX

# Every code point, and often the nasty ones: NUL, lone surrogates (which no UTF-8 frame carries
# but a JSON escape does), a byte-order mark, a right-to-left override, an astral card symbol.
NASTY = st.sampled_from(["\x00", "\ud800", "\udc80", "\ufeff", "\u202e", "\U0001f0a1", "a"])
WILD = NASTY | st.characters() | st.characters(categories=["Cs"])
wild_text = st.text(WILD, max_size=24)
leaves = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=10**30)
    | st.floats()  # NaN and the infinities too, which Python's JSON writes and reads
    | wild_text
)
values = st.recursive(
    leaves,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(wild_text, inner, max_size=4),
    max_leaves=10,
)
KINDS = ["draw", "meld", "layoff", "discard", "rummy"]
# An action object with the protocol's field names and any values, or any value at all.
action_like = values | st.fixed_dictionaries(
    {},
    optional={
        "type": st.sampled_from(KINDS) | values,
        **dict.fromkeys(["source", "count", "cards", "card", "meld", "melds", "layoffs"], values),
    },
)
# Nesting deep enough to overflow a recursive parser, within the 64 KiB frame limit.
depths = st.integers(min_value=1, max_value=9_000)


@dataclass(frozen=True)
class Frame:
    text: str | None = None
    data: bytes | None = None


def _dumped(content: Any, ascii_only: bool) -> Frame:
    # ensure_ascii=False puts raw lone surrogates in the text; True escapes them as \udXXX.
    return Frame(text=json.dumps(content, ensure_ascii=ascii_only))


# Keys of nasty characters (what a database column cannot hold), or anything at all.
nasty_ids = st.text(NASTY, min_size=1, max_size=6)
client_ids = nasty_ids | wild_text | values


def _actions(
    version: st.SearchStrategy[Any], client_id: st.SearchStrategy[Any] = client_ids
) -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries(
        {"type": st.just("action"), "version": version, "client_id": client_id},
        optional={
            "action": action_like,
            "table": values,  # ignored: the socket's URL names the table
        },
    )


def frames(version: int) -> st.SearchStrategy[Frame]:
    """Hostile frames for a table at ``version``: actions at that version (so only what else is
    wrong refuses them), at another, and with a version of the wrong type, weigh the most."""
    wrong_type = values.filter(lambda v: v not in ("action", "back", "sync"))
    objects = st.fixed_dictionaries(
        {"type": wrong_type}, optional={"client_id": client_ids, "action": action_like}
    )
    actions = [
        _actions(st.just(version)),
        _actions(st.integers()),
        _actions(values),
        _actions(st.just(version) | st.integers(), nasty_ids),
    ]
    head = f'{{"type": "action", "version": {version}, "client_id": "deep", "action": '
    return st.one_of(
        st.text(WILD).map(lambda t: Frame(text=t)),
        st.binary(max_size=64).map(lambda b: Frame(data=b)),
        *(st.builds(_dumped, kind, st.booleans()) for kind in [values, objects, *actions]),
        depths.map(lambda n: Frame(text="[" * n + "]" * n)),
        depths.map(lambda n: Frame(text='{"a": ' * n + "0" + "}" * n)),
        depths.map(lambda n: Frame(text=head + "[" * n + "]" * n + "}")),
        # Past 4,300 digits Python refuses to read the integer at all.
        st.integers(1, 20_000).map(
            lambda n: Frame(text=f'{{"type": "action", "client_id": "big", "version": 9{"9" * n}}}')
        ),
    )


def _well_formed_client_id(value: object) -> bool:
    """The documented rule: absent, or 1 to 100 characters of storable text (no NUL, no lone
    surrogate: neither PostgreSQL nor UTF-8 can hold them)."""
    if value is None:
        return True
    if not isinstance(value, str) or not 0 < len(value) <= CLIENT_ID_MAX or "\x00" in value:
        return False
    return not any("\ud800" <= c <= "\udfff" for c in value)


def _parses(action: object) -> bool:
    try:
        parse_action(action)
    except EngineError:
        return False
    return True


def owed(frame: Frame, *, user: str | None, seated: bool, version: int) -> tuple[str, Any] | None:
    """The ``(error, client_id)`` the frame must be answered with from ``user`` (None: an
    anonymous socket), or None when it is not garbage."""
    if frame.text is None:
        return BAD_REQUEST, None
    try:
        content = json.loads(frame.text)
    except (ValueError, RecursionError):
        return BAD_REQUEST, None
    if not isinstance(content, dict):
        return BAD_REQUEST, None
    client_id = content.get("client_id")
    echo = client_id if isinstance(client_id, str) else None
    kind = content.get("type")
    if kind in ("sync", "back") or (kind == "action" and _parses(content.get("action"))):
        return None
    if kind != "action":
        return BAD_REQUEST, echo
    if user is None:
        return NOT_SEATED, echo
    number = content.get("version")
    if not isinstance(number, int) or isinstance(number, bool):
        return BAD_REQUEST, echo
    if not _well_formed_client_id(client_id):
        return BAD_REQUEST, echo
    if not seated:
        return NOT_SEATED, echo
    return (STALE_VERSION if number != version else BAD_REQUEST), echo
