"""Meld search: every set and run a group of cards allows, lay-offs, and the pickup check.

Identical cards from two decks are treated as one (each meld is listed once). Jokers fill gaps
and ends of runs and missing suits of sets, declared as the card they stand for. Only melds with
at least one natural card are listed (an all-joker meld is legal to play but never suggested).
A natural card is never replaced by a joker in a suggestion, except when a joker itself must be
melded (the required card of a pickup) and nothing else places it.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import combinations

from .actions import Layoff, MeldAction
from .cards import JOKER, SUITS, Card, card_of
from .melds import Meld, MeldError, Played, extend_meld, rank_at
from .rules import Rules

Suggestion = MeldAction | Layoff


def _present(cards: Sequence[Card]) -> tuple[dict[str, set[int]], dict[int, dict[str, int]], int]:
    by_suit: dict[str, set[int]] = {s: set() for s in SUITS}
    by_rank: dict[int, dict[str, int]] = {}
    jokers = 0
    for c in cards:
        if c.rank == 0:
            jokers += 1
            continue
        by_suit[c.suit].add(c.rank)
        counts = by_rank.setdefault(c.rank, {})
        counts[c.suit] = counts.get(c.suit, 0) + 1
    return by_suit, by_rank, jokers


# ``rank_at`` of every position a run search reaches (starts 1..13, 13 cards long), looked up
# instead of called: the run search visits hundreds of positions per ``legal_actions``.
_RANK_AT = tuple(rank_at(p) for p in range(26))


def _window(suit: str, start: int, length: int, present: set[int]) -> tuple[Played, ...]:
    out = []
    for p in range(start, start + length):
        card = card_of(_RANK_AT[p], suit)
        out.append((card, card) if card.rank in present else (JOKER, card))
    return tuple(out)


def runs_in_suit(
    suit: str, present: set[int], jokers: int, rules: Rules, rank: int | None = None
) -> Iterator[tuple[Played, ...]]:
    """Every run of ``suit`` from natural ranks ``present`` plus up to ``jokers`` jokers
    (containing natural ``rank`` when given)."""
    if not present:
        return
    need = max(1, rules.min_naturals)
    last_start = 13 if rules.run_wraps else 12
    for start in range(1, last_start + 1):
        naturals = missing = 0
        has_rank = rank is None
        for length in range(1, 14):
            p = start + length - 1
            if not rules.run_wraps and p > 14:
                break
            if _RANK_AT[p] in present:
                naturals += 1
                has_rank = has_rank or _RANK_AT[p] == rank
            else:
                missing += 1
                if missing > jokers:
                    break
            if length >= 3 and naturals >= need and has_rank and (length < 13 or start == 2):
                yield _window(suit, start, length, present)


def sets_of_rank(
    rank: int, suits: dict[str, int], jokers: int, rules: Rules, decks: int, suit: str | None = None
) -> Iterator[tuple[Played, ...]]:
    """Every set of ``rank`` from the natural ``suits`` held plus jokers (containing ``suit``)."""
    need = max(1, rules.min_naturals)
    if rules.set_distinct_suits:
        held = [s for s in SUITS if suits.get(s)]
        for k in range(need, len(held) + 1):
            for chosen in combinations(held, k):
                if suit is not None and suit not in chosen:
                    continue
                free = [s for s in SUITS if s not in chosen]
                naturals = [(card_of(rank, s), card_of(rank, s)) for s in chosen]
                for j in range(max(0, 3 - k), min(jokers, 4 - k) + 1):
                    for declared in combinations(free, j):
                        yield (*naturals, *((JOKER, card_of(rank, s)) for s in declared))
        return
    pool = [s for s in SUITS for _ in range(suits.get(s, 0))]
    max_set = 4 * decks
    seen: set[tuple[str, ...]] = set()
    for k in range(need, len(pool) + 1):
        for chosen in combinations(pool, k):
            if chosen in seen or (suit is not None and suit not in chosen):
                continue
            seen.add(chosen)
            naturals = [(card_of(rank, s), card_of(rank, s)) for s in chosen]
            for j in range(max(0, 3 - k), min(jokers, max_set - k) + 1):
                yield (*naturals, *((JOKER, card_of(rank, chosen[0])),) * j)


def all_melds(cards: Sequence[Card], rules: Rules, decks: int) -> Iterator[tuple[Played, ...]]:
    """Every set and run ``cards`` allow (see the module doc for the bounds)."""
    by_suit, by_rank, jokers = _present(cards)
    # A meld takes three cards: most ranks and suits of a hand have fewer, even with every joker,
    # and are skipped here rather than by a search that finds nothing.
    for rank, suits in by_rank.items():
        if sum(suits.values()) + jokers >= 3:
            yield from sets_of_rank(rank, suits, jokers, rules, decks)
    for suit, present in by_suit.items():
        if len(present) + jokers >= 3:
            yield from runs_in_suit(suit, present, jokers, rules)


def melds_with(
    card: Card, cards: Sequence[Card], rules: Rules, decks: int
) -> Iterator[tuple[Played, ...]]:
    """Every meld from ``cards`` (which include ``card``) that uses ``card``."""
    if card.rank == 0:
        found = False
        for meld in all_melds(cards, rules, decks):
            if any(c.rank == 0 for c, _ in meld):
                found = True
                yield meld
        if not found:
            yield from _joker_replacing(cards, rules, decks)
        return
    suits: dict[str, int] = {}
    present: set[int] = set()
    jokers = 0
    for c in cards:
        if c.rank == 0:
            jokers += 1
        elif c.rank == card.rank:
            suits[c.suit] = suits.get(c.suit, 0) + 1
        if c.suit == card.suit:
            present.add(c.rank)
    yield from sets_of_rank(card.rank, suits, jokers, rules, decks, card.suit)
    yield from runs_in_suit(card.suit, present, jokers, rules, card.rank)


def _joker_replacing(
    cards: Sequence[Card], rules: Rules, decks: int
) -> Iterator[tuple[Played, ...]]:
    naturals = [c for c in cards if c.rank]
    for meld in all_melds(naturals, rules, decks):
        if sum(1 for c, _ in meld if c.rank) > rules.min_naturals:
            yield ((JOKER, meld[-1][1]), *meld[:-1])


def _fits(meld: Meld, played: tuple[Played, ...], rules: Rules, decks: int) -> bool:
    try:
        extend_meld(meld, played, 0, **rules.meld_options(decks))
    except MeldError:
        return False
    return True


def single_layoffs(
    cards: Sequence[Card], melds: Sequence[Meld], rules: Rules, decks: int
) -> Iterator[Layoff]:
    """Every one-card lay-off of ``cards`` on ``melds`` (jokers declared at each open place)."""
    distinct = sorted(set(cards), key=lambda c: c.index)
    for meld in melds:
        for card in _candidates(distinct, meld):
            for played in _placements(card, meld, rules):
                if _fits(meld, (played,), rules, decks):
                    yield Layoff(meld.id, (played,))


def _candidates(cards: list[Card], meld: Meld) -> list[Card]:
    """The ``cards`` that may have a placement on ``meld`` (in order): jokers, cards of a set's
    rank, cards of a run's suit next to either end. Filtering once per meld spares calling
    ``_placements`` for every card of the hand on every meld."""
    if meld.kind == "set":
        rank = meld.cards[0].stands.rank
        return [c for c in cards if c.rank == 0 or c.rank == rank]
    suit, near = meld.suit, (rank_at(meld.end + 1), rank_at(meld.start - 1))
    return [c for c in cards if c.rank == 0 or (c.suit == suit and c.rank in near)]


def _placements(card: Card, meld: Meld, rules: Rules) -> list[Played]:
    """How a card ``_candidates`` kept for ``meld`` may be played on it: a natural card as itself
    (``_candidates`` already checked its rank or suit), a joker as each card it could stand for."""
    if card.rank:
        return [(card, card)]
    if meld.kind == "set":
        rank = meld.cards[0].stands.rank
        used = {t.stands.suit for t in meld.cards} if rules.set_distinct_suits else set()
        return [(JOKER, card_of(rank, s)) for s in SUITS if s not in used]
    ends = {rank_at(meld.end + 1), rank_at(meld.start - 1)}
    return [(JOKER, card_of(r, meld.suit)) for r in sorted(ends)]


def bridged_layoffs(
    card: Card, cards: Sequence[Card], melds: Sequence[Meld], rules: Rules, decks: int
) -> Iterator[Layoff]:
    """Lay-offs that place natural ``card`` on a meld, on a run bridging the gap with ``cards``."""
    yield from single_layoffs([card], melds, rules, decks)
    runs = [m for m in melds if m.kind == "run" and m.suit == card.suit]
    if not runs:
        return
    # Only ``card``'s suit matters here: one pass for it rather than ``_present`` of every suit.
    present = {c.rank for c in cards if c.suit == card.suit}
    jokers = sum(1 for c in cards if c.rank == 0)
    for meld in runs:
        up = (card.rank - rank_at(meld.end + 1)) % 13
        down = (rank_at(meld.start - 1) - card.rank) % 13
        above = list(range(meld.end + 1, meld.end + up + 2))
        below = list(range(meld.start - 1 - down, meld.start))
        for positions, gaps in ((above, above[:-1]), (below, below[1:])):
            if not gaps or sum(1 for p in gaps if rank_at(p) not in present) > jokers:
                continue
            played = tuple(
                (c, c) if c.rank in present else (JOKER, c)
                for c in (card_of(rank_at(p), card.suit) for p in positions)
            )
            if _fits(meld, played, rules, decks):
                yield Layoff(meld.id, played)


def may_meld(card: Card, cards: Sequence[Card], melds: Sequence[Meld]) -> bool:
    """A cheap necessary condition for natural ``card`` (among ``cards``) to be melded: two
    partners (same rank, jokers, or same suit within two ranks, which any run through it holds) or
    a table meld of its rank or suit."""
    partners = -1  # ``card`` itself is among ``cards``
    for c in cards:
        if (
            c.rank == 0
            or c.rank == card.rank
            or (c.suit == card.suit and (c.rank - card.rank) % 13 in (1, 2, 11, 12))
        ):
            partners += 1
            if partners >= 2:
                return True
    return any(
        (m.kind == "set" and m.cards[0].stands.rank == card.rank)
        or (m.kind == "run" and m.suit == card.suit)
        for m in melds
    )


def required_play(
    card: Card,
    cards: Sequence[Card],
    melds: Sequence[Meld],
    rules: Rules,
    decks: int,
    *,
    layoff: bool,
    keep_one: bool,
) -> Suggestion | None:
    """The first meld or lay-off that puts ``card`` down using ``cards`` (which hold it), or None.

    ``layoff`` allows lay-offs; ``keep_one`` requires at least one card to be left over.

    >>> from games.engine.cards import parse_card
    >>> pool = [parse_card(t) for t in ["JS", "5H", "7H", "4H", "8C", "6H"]]
    >>> required_play(parse_card("4H"), pool, [], Rules(), 1, layoff=True, keep_one=False)
    MeldAction(cards=((Card('4H'), Card('4H')), (Card('5H'), Card('5H')), (Card('6H'), Card('6H'))))
    """
    if card.rank and not may_meld(card, cards, melds):
        return None
    limit = len(cards) - 1 if keep_one else len(cards)
    for meld in melds_with(card, cards, rules, decks):
        if len(meld) <= limit:
            return MeldAction(meld)
    if not layoff:
        return None
    options: Iterator[Layoff] = (
        single_layoffs([card], melds, rules, decks)
        if card.rank == 0
        else bridged_layoffs(card, cards, melds, rules, decks)
    )
    for option in options:
        if len(option.cards) <= limit:
            return option
    return None
