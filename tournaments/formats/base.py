"""The value objects every tournament format speaks, and the ``Format`` protocol.

A format is a pure function of the event: ``next_round(entrants, played, settings)`` reads the
seeded field, every round played so far (its plan and its results) and the settings, and returns
the next round's plan, or ``None`` once the event is over. Nothing is stored here; the services
store each plan and its results and call again after every round, so every format is
deterministic: the same arguments always give the same plan.

Players who leave for good (withdrawn or disqualified) are passed as ``gone``, by id: no plan
seats them or gives them a bye from then on. What happens to the games they would have played is
each format's rule (Swiss pairs the others, the seating formats balance the tables over the
players still in, round robin leaves their games out, a bracket gives their opponent a walkover);
their results so far still count, and they are ranked as those stand, marked ``eliminated``.
A round planned before they left still seats them: the caller decides that table without them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol


class FormatError(ValueError):
    """A field, settings or history the format cannot run; the message names the problem."""


@dataclass(frozen=True, slots=True)
class Entrant:
    """One player of the event: a caller's id, a unique seed (1 is the top) and a rating."""

    id: int
    seed: int
    rating: float


@dataclass(frozen=True, slots=True)
class Seating:
    """One table of a round (a two-player match is a table of two), players in seat order.

    ``key`` is the format's name for the table: ``"W1-3"``, ``"L2-1"``, ``"GF"``, ``"GF2"``,
    ``"3rd"``, ``"T4"``, ``"final"``.
    """

    players: tuple[int, ...]
    key: str = ""


@dataclass(frozen=True, slots=True)
class RoundPlan:
    """A round to play: its tables, and the entrants who sit it out and score the format's bye."""

    number: int
    name: str
    tables: tuple[Seating, ...]
    byes: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class TableResult:
    """One played table, in its plan's order: per player a place (1 best, equal numbers tie;
    absent players already placed last by the caller) and game points (the final game score)."""

    players: tuple[int, ...]
    places: tuple[int, ...]
    points: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class PlayedRound:
    """A round's plan with its results, one per table in the plan's order."""

    plan: RoundPlan
    results: tuple[TableResult, ...]


@dataclass(frozen=True, slots=True)
class Settings:
    """An event's format settings; each format reads the fields it needs and ``check`` refuses
    values it cannot run.

    - ``table_size``: seats per table, 2 to 8.
    - ``rounds``: Swiss and Swiss tables only; ``None`` is the format's default.
    - ``third_place``: single elimination plays a third-place match.
    - ``grand_final_reset``: double elimination replays the grand final when the losers-bracket
      champion wins the first.
    - ``double_round``: round robin plays its whole schedule twice.
    - ``advance``: multi-table elimination, the top K of each table go on.
    - ``min_table``: multi-seat formats, the smallest table allowed when the field is split.
    - ``placement_points``: points by place at a multi-seat table; places beyond the tuple score
      0, and players who tie share the average of the places they cover.
    """

    table_size: int = 2
    rounds: int | None = None
    third_place: bool = False
    grand_final_reset: bool = True
    double_round: bool = False
    advance: int = 1
    min_table: int = 3
    placement_points: tuple[int, ...] = (4, 2, 1, 0)


@dataclass(frozen=True, slots=True)
class Standing:
    """One entrant's line in the standings; ``tiebreaks`` are in their order of application.

    Equal standing shares a rank (1, 1, 3). ``eliminated``: the entrant can no longer win the
    event (out of an elimination format, or gone); it is still ranked.
    """

    entrant: int
    rank: int
    points: float
    tiebreaks: dict[str, float]
    eliminated: bool = False


class Format(Protocol):
    """What every format provides; ``FORMATS`` maps each slug to one."""

    slug: str
    name: str

    def check(self, entrants: int, settings: Settings) -> None:
        """Raise ``FormatError`` when the format cannot run this many entrants with ``settings``."""
        ...

    def next_round(
        self,
        entrants: Sequence[Entrant],
        played: Sequence[PlayedRound],
        settings: Settings,
        *,
        gone: frozenset[int] = frozenset(),
    ) -> RoundPlan | None:
        """The next round's plan, or ``None`` when the event is over; it seats nobody ``gone``."""
        ...

    def standings(
        self,
        entrants: Sequence[Entrant],
        played: Sequence[PlayedRound],
        settings: Settings,
        *,
        gone: frozenset[int] = frozenset(),
    ) -> list[Standing]:
        """Every entrant's standing, best first: live mid-event, final once it is over."""
        ...

    def champion(
        self,
        entrants: Sequence[Entrant],
        played: Sequence[PlayedRound],
        settings: Settings,
        *,
        gone: frozenset[int] = frozenset(),
    ) -> int | None:
        """The winner once the event is over, else ``None``; someone ``gone`` only when every
        player who could still have won has left."""
        ...
