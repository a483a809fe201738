"""JSON text for the live path: ``orjson``, several times faster than the standard library's
encoder on the frames and snapshots every action writes (docs/scaling.md).

The output is compact UTF-8 JSON; any JSON reader takes it as it takes the standard library's.
"""

from __future__ import annotations

import json
from typing import Any

import orjson

_OPTIONS = orjson.OPT_NON_STR_KEYS


def dumps(value: Any) -> str:
    """``value`` as JSON text (dict keys that are not text, such as numbers, become text)."""
    return orjson.dumps(value, option=_OPTIONS).decode()


def loads(text: str | bytes) -> Any:
    return orjson.loads(text)


class Encoder(json.JSONEncoder):
    """A ``JSONField`` encoder (``encoder=``) writing through orjson: the snapshot and log
    columns written on every action. What orjson cannot write (an integer past 64 bits, a type
    it does not know) falls back to the standard library's encoder, which decides."""

    def encode(self, o: Any) -> str:
        try:
            return orjson.dumps(o, option=_OPTIONS).decode()
        except TypeError:
            return super().encode(o)


class Decoder(json.JSONDecoder):
    """A ``JSONField`` decoder (``decoder=``) reading through orjson: the snapshot read under
    the row lock on every action. Only for columns the server writes itself (no number there
    passes 64 bits, which orjson would read as a float)."""

    def decode(self, s: str, _w: Any = None) -> Any:
        return orjson.loads(s)
