"""Small helpers shared by the turn rules."""

from __future__ import annotations

from collections.abc import Sequence

from . import errors as E
from .cards import Card, format_card
from .errors import IllegalAction
from .melds import Played


def remove_cards(hand: tuple[Card, ...], cards: Sequence[Played]) -> tuple[Card, ...]:
    """``hand`` without the physical ``cards`` (first occurrences).

    >>> from games.engine.cards import parse_card, parse_played
    >>> hand = tuple(map(parse_card, ["AS", "*", "AS"]))
    >>> remove_cards(hand, [parse_played("*2S"), parse_played("AS")])
    (Card('AS'),)

    :raises IllegalAction: ``not_in_hand`` when a card is not held (often enough).
    """
    rest = list(hand)
    for card, _ in cards:
        try:
            rest.remove(card)
        except ValueError:
            raise IllegalAction(E.NOT_IN_HAND, f"you do not hold {format_card(card)}") from None
    return tuple(rest)
