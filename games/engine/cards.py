"""Cards and their notation.

A card is rank + suit: ranks ``A 2 3 4 5 6 7 8 9 10 J Q K``, suits ``S H D C``; a joker is ``*``.
In a meld or lay-off a joker is written with the card it stands for: ``*9S``. Parsing is strict
and case-sensitive. The 53 card objects are interned, so cards compare and hash cheaply and
``parse_card`` never allocates.

The canonical (unshuffled) deck: for each deck in turn, suits ``S H D C``, each ``A 2 ... K``,
then that deck's jokers.
"""

from __future__ import annotations

from dataclasses import dataclass

from .errors import InvalidAction

RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUITS = ("S", "H", "D", "C")
# ``Card.index`` is a sort key of every hand listing; a dict beats ``SUITS.index`` there.
_SUIT_INDEX = {s: i for i, s in enumerate(SUITS)}


@dataclass(frozen=True, slots=True)
class Card:
    """One physical card: ``rank`` 1 (ace) to 13 (king), or 0 for a joker (suit ``*``).

    >>> Card(1, "S")
    Card('AS')
    """

    rank: int
    suit: str

    @property
    def is_joker(self) -> bool:
        """True for a joker."""
        return self.rank == 0

    @property
    def index(self) -> int:
        """0-51 for the natural cards in canonical order, 52 for a joker."""
        if self.rank == 0:
            return 52
        return _SUIT_INDEX[self.suit] * 13 + self.rank - 1

    def __str__(self) -> str:
        return format_card(self)

    def __repr__(self) -> str:
        return f"Card({format_card(self)!r})"


JOKER = Card(0, "*")
NATURALS: tuple[Card, ...] = tuple(Card(r, s) for s in SUITS for r in range(1, 14))
ALL_CARDS: tuple[Card, ...] = (*NATURALS, JOKER)
_BY_TEXT: dict[str, Card] = {RANKS[c.rank - 1] + c.suit: c for c in NATURALS}
_BY_TEXT["*"] = JOKER
_TEXT: dict[Card, str] = {c: t for t, c in _BY_TEXT.items()}
_BY_RANK_SUIT: dict[tuple[int, str], Card] = {(c.rank, c.suit): c for c in ALL_CARDS}


def card_of(rank: int, suit: str) -> Card:
    """The interned natural card of ``rank`` (1-13, 14 also means ace) and ``suit``.

    >>> card_of(14, "H")
    Card('AH')
    """
    return _BY_RANK_SUIT[(rank - 1) % 13 + 1, suit]


def parse_card(text: object) -> Card:
    """Parse ``AS``, ``10H`` or ``*`` (a joker in a hand, the stock or the pile).

    >>> parse_card("10H")
    Card('10H')
    >>> parse_card("as")
    Traceback (most recent call last):
    ...
    games.engine.errors.InvalidAction: bad_request: not a card: 'as'

    :raises InvalidAction: anything but the exact notation.
    """
    card = _BY_TEXT.get(text) if isinstance(text, str) else None
    if card is None:
        raise InvalidAction(f"not a card: {text!r}")
    return card


def format_card(card: Card) -> str:
    """The notation of a card.

    >>> format_card(JOKER), format_card(Card(12, "D"))
    ('*', 'QD')
    """
    return _TEXT[card]


def parse_played(text: object) -> tuple[Card, Card]:
    """Parse a card of a meld or lay-off: ``(physical card, card it stands for)``.

    A natural card stands for itself; a joker must be declared: ``*9S``.

    >>> parse_played("*9S")
    (Card('*'), Card('9S'))
    >>> parse_played("7S")
    (Card('7S'), Card('7S'))
    >>> parse_played("*")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    games.engine.errors.InvalidAction: bad_request: a joker in a meld must declare its card...

    :raises InvalidAction: malformed text, a bare ``*``, or a declared joker standing for a joker.
    """
    if not isinstance(text, str):
        raise InvalidAction(f"not a card: {text!r}")
    if text == "*":
        raise InvalidAction("a joker in a meld must declare its card, as in *9S")
    if text.startswith("*"):
        declared = _BY_TEXT.get(text[1:])
        if declared is None or declared.rank == 0:
            raise InvalidAction(f"not a declared joker: {text!r}")
        return JOKER, declared
    card = parse_card(text)
    return card, card


def format_played(card: Card, stands_for: Card) -> str:
    """The meld notation of a card: ``*9S`` for a declared joker.

    >>> format_played(JOKER, Card(9, "S"))
    '*9S'
    """
    if card.rank == 0:
        return "*" + _TEXT[stands_for]
    return _TEXT[card]


def parse_cards(items: object, what: str = "cards") -> tuple[Card, ...]:
    """Parse a JSON list of card texts.

    >>> parse_cards(["AS", "*"])
    (Card('AS'), Card('*'))

    :raises InvalidAction: not a list, or a malformed card.
    """
    if not isinstance(items, list):
        raise InvalidAction(f"{what} must be a list of cards")
    return tuple(parse_card(t) for t in items)


def canonical_deck(decks: int, jokers_per_deck: int) -> list[Card]:
    """The unshuffled deck: per deck, suits S H D C, each A..K, then that deck's jokers.

    >>> deck = canonical_deck(1, 2)
    >>> len(deck), deck[0], deck[13], deck[-1]
    (54, Card('AS'), Card('AH'), Card('*'))
    """
    one = [*NATURALS, *([JOKER] * jokers_per_deck)]
    return one * decks


def copies_allowed(card: Card, decks: int, jokers_per_deck: int) -> int:
    """How many copies of ``card`` the decks hold.

    >>> copies_allowed(JOKER, 2, 2), copies_allowed(Card(5, "H"), 2, 0)
    (4, 2)
    """
    return decks * jokers_per_deck if card.rank == 0 else decks
