"""The ratings API's answers (PROTOCOL.md, docs/ratings.md), one ``TypedDict`` each: what
``ratings.apis`` answers and, through ``config.payloads.serializer_for``, what the schema
documents."""

from __future__ import annotations

from typing import Annotated, TypedDict

from config.payloads import Doc


class RowOutput(TypedDict):
    rank: int
    username: str
    rating: float
    games: int
    provisional: bool
    deviation: Annotated[
        float, Doc("How far off the rating may be (Elo points); provisional above 150")
    ]


class BoardOutput(TypedDict):
    count: int
    pool: str
    limit: int
    offset: int
    results: list[RowOutput]


class HistoryOutput(TypedDict):
    game: Annotated[int, Doc("The table's id")]
    at: str
    before: float
    after: float
    deviation: Annotated[float, Doc("The deviation after this game")]
    place: int
    table_size: int


class PoolRatingOutput(TypedDict):
    pool: str
    label: str
    rating: float
    games: int
    provisional: bool
    peak: float
    deviation: Annotated[
        float, Doc("How far off the rating may be (Elo points); provisional above 150")
    ]


class PlayerOutput(TypedDict):
    username: str
    pool: str
    rating: float
    games: int
    provisional: bool
    deviation: Annotated[
        float, Doc("How far off the rating may be (Elo points); provisional above 150")
    ]
    rank: int | None
    history: list[HistoryOutput]
    pools: list[PoolRatingOutput]
