"""JSON text for the live path: ``orjson``, several times faster than the standard library's
encoder on the frames and snapshots every action writes (docs/scaling.md).

The output is compact UTF-8 JSON; any JSON reader takes it as it takes the standard library's.
"""

from __future__ import annotations

from typing import Any

import orjson

_OPTIONS = orjson.OPT_NON_STR_KEYS


def dumps(value: Any) -> str:
    """``value`` as JSON text (dict keys that are not text, such as numbers, become text)."""
    return orjson.dumps(value, option=_OPTIONS).decode()


def loads(text: str | bytes) -> Any:
    return orjson.loads(text)
