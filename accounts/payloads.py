"""The auth API's answers (PROTOCOL.md, REST API), one ``TypedDict`` each, from which
``accounts.serializers`` builds the serializers the views answer with (``config.payloads``)."""

from __future__ import annotations

from typing import TypedDict


class RegisterOutput(TypedDict):
    id: int
    username: str
    token: str


class MeOutput(TypedDict):
    id: int
    username: str
    email: str


class TokenOutput(TypedDict):
    token: str
