"""Quick play's answers (PROTOCOL.md "Additions: finding a game", docs/lobby.md), one
``TypedDict`` each, documented through ``config.payloads.serializer_for``."""

from __future__ import annotations

from typing import Annotated, Literal, TypedDict

from config.payloads import Doc, IsoTime


class PoolOutput(TypedDict):
    """A pool the site offers, with how many wait in it and how many play at its tables."""

    ruleset: str
    seats: int
    turn_seconds: int
    key: Annotated[str, Doc("A short name, ruleset-seats-turn_seconds")]
    label: Annotated[str, Doc("For people: Standard · 4 players · 30 s")]
    waiting: Annotated[int, Doc("Players waiting in this pool now")]
    playing: Annotated[int, Doc("Players at tables in play that this pool made")]


class PoolNameOutput(TypedDict):
    ruleset: str
    seats: int
    turn_seconds: int
    key: str


class PoolMeOutput(TypedDict):
    """Where you stand in quick play: waiting in ``pool`` since ``since``, matched to
    ``table`` (your last match), or none."""

    status: Literal["none", "waiting", "matched"]
    table: Annotated[int | None, Doc("The table of your last match; null unless matched")]
    pool: Annotated[PoolNameOutput | None, Doc("The pool you wait in or were matched in")]
    since: Annotated[IsoTime | None, Doc("When your wait began; null unless waiting")]
    url: Annotated[str | None, Doc("The matched table's page; null unless matched")]


class PoolJoinInput(TypedDict):
    ruleset: str
    seats: int
    turn_seconds: int
