"""The API's JSON parser: DRF's own, with every body it cannot read answered as a parse error.

DRF's ``JSONParser`` reads with the standard library and turns a ``ValueError`` (not JSON, not
UTF-8, ``NaN``) into ``ParseError``, which the API answers 400 ``bad_request``
(``config.exceptions``). A body nested past the decoder's recursion limit raises
``RecursionError`` instead, which DRF let through as a 500: 50,000 ``[`` (50 KB) did it. The
sockets read their frames the same way and already answer both alike (``games.consumers``,
``config.ws_limit``); this is the REST half. The standard library is kept, not orjson, so a body
reads as it always has (orjson reads an integer past 64 bits as a float and refuses a lone
surrogate escape).

A body too large to read (``DATA_UPLOAD_MAX_MEMORY_SIZE``) or with too many form fields is
refused before any parser runs; ``config.exceptions`` answers those.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import IO, Any

from rest_framework import exceptions, parsers


class JSONParser(parsers.JSONParser):
    """DRF's JSON parser, also refusing a body nested too deeply to read (400, not 500)."""

    def parse(
        self,
        stream: IO[Any],
        media_type: str | None = None,
        parser_context: Mapping[str, Any] | None = None,
    ) -> dict[str, Any]:
        try:
            return super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise exceptions.ParseError("JSON parse error - nested too deeply") from None
