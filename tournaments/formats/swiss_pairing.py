"""Pairing one Swiss round without rematches.

1. Dutch-like pass over the ranked players (score, then seed), one score group at a time, with
   the players who floated down from the group above at its front. The group's top player meets
   the player half the group below (so a group of eight pairs 1-5, 2-6, 3-7, 4-8); if they have
   met, the next one down the bottom half, then the top half from its lowest up. A player who has
   met everyone left in the group, and the odd one out, float down to the next group.
2. Whoever is left unpaired at the bottom is re-paired together with the last pairs made, by an
   exhaustive search for a pairing without rematches (nearest in rank first). The window starts
   at ``2 * r + 2`` players, ``r`` being the most opponents anyone has met: in a window that big
   each player has not met more than half of it, so by Dirac's theorem a pairing without
   rematches exists, and the search finds it at once. Should it not (a window capped at
   ``MAX_WINDOW``, a search over ``BUDGET`` steps), the window doubles, up to the whole field.
3. Only when no pairing without rematches is found does the bottom pair greedily, each player
   with the first one left they have not met, else the first one left.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import chain

Pair = tuple[int, int]

#: Largest window searched exhaustively: its recursion is half as deep.
MAX_WINDOW = 256
#: Search steps per window: plenty for any window that has a pairing (dense graphs), and a
#: bound on the time spent proving that a small late-round field has none.
BUDGET = 20_000


class _OutOfBudget(Exception):
    pass


def _partner(bracket: list[int], met: Mapping[int, set[int]]) -> int | None:
    """Index of the bracket's top player's opponent, or ``None`` when they must float."""
    p, half = bracket[0], len(bracket) // 2
    for i in chain(range(half, len(bracket)), range(half - 1, 0, -1)):
        if i and bracket[i] not in met[p]:
            return i
    return None


def dutch(
    ranked: Sequence[int], score: Mapping[int, float], met: Mapping[int, set[int]]
) -> tuple[list[Pair], list[int]]:
    """Step 1: pairs in the order made, and the players left unpaired at the bottom.

    >>> dutch([1, 2, 3, 4, 5, 6, 7, 8], dict.fromkeys(range(1, 9), 0.0),
    ...       {p: set() for p in range(1, 9)})
    ([(1, 5), (2, 6), (3, 7), (4, 8)], [])
    """
    pairs: list[Pair] = []
    carry: list[int] = []
    start = 0
    while start < len(ranked):
        end = start
        while end < len(ranked) and score[ranked[end]] == score[ranked[start]]:
            end += 1
        bracket, carry = [*carry, *ranked[start:end]], []
        while bracket:
            i = _partner(bracket, met)
            if i is None:
                carry.append(bracket.pop(0))
            else:
                pairs.append((bracket[0], bracket.pop(i)))
                bracket.pop(0)
        start = end
    return pairs, carry


def _search(players: list[int], met: Mapping[int, set[int]], steps: list[int]) -> list[Pair] | None:
    if not players:
        return []
    steps[0] += 1
    if steps[0] > BUDGET:
        raise _OutOfBudget
    p = players[0]
    for i in range(1, len(players)):
        if players[i] not in met[p]:
            rest = _search([*players[1:i], *players[i + 1 :]], met, steps)
            if rest is not None:
                return [(p, players[i]), *rest]
    return None


def without_rematches(players: list[int], met: Mapping[int, set[int]]) -> list[Pair] | None:
    """A pairing of ``players`` (rank order, an even number) in which nobody meets anyone again,
    or ``None`` when the search finds none.

    >>> without_rematches([1, 2, 3, 4], {1: {2}, 2: {1}, 3: {4}, 4: {3}})
    [(1, 3), (2, 4)]
    """
    if len(players) > MAX_WINDOW:
        return None
    try:
        return _search(players, met, [0])
    except _OutOfBudget:
        return None


def _greedy(players: list[int], met: Mapping[int, set[int]]) -> list[Pair]:
    left = list(players)
    pairs = []
    while left:
        p = left.pop(0)
        i = next((i for i, q in enumerate(left) if q not in met[p]), 0)
        pairs.append((p, left.pop(i)))
    return pairs


def pair_round(
    ranked: Sequence[int], score: Mapping[int, float], met: Mapping[int, set[int]]
) -> list[Pair]:
    """Pair ``ranked`` (an even number of players, best first) by the three steps above; the
    better-ranked player of each pair comes first, and pairs come in rank order.

    >>> pair_round([1, 2, 3, 4], {1: 1.0, 2: 1.0, 3: 0.0, 4: 0.0},
    ...            {1: {3}, 3: {1}, 2: {4}, 4: {2}})
    [(1, 2), (3, 4)]
    """
    rank = {p: i for i, p in enumerate(ranked)}
    pairs, left = dutch(ranked, score, met)
    size = 2 * max((len(s) for s in met.values()), default=0) + 2
    while left:
        undo = min(len(pairs), max(0, (size - len(left)) // 2))
        kept = pairs[: len(pairs) - undo]
        window = sorted(
            [p for pair in pairs[len(kept) :] for p in pair] + left, key=rank.__getitem__
        )
        found = without_rematches(window, met)
        if found is None and undo == len(pairs):
            found = _greedy(window, met)
        if found is not None:
            pairs, left = kept + found, []
        size *= 2
    ordered = [(a, b) if rank[a] < rank[b] else (b, a) for a, b in pairs]
    return sorted(ordered, key=lambda pair: rank[pair[0]])
