"""The game state: immutable frozen dataclasses holding tuples, replaced on every change.

Seats are indexes into ``players``; "left" of seat ``i`` is seat ``i + 1`` (wrapping). The dealer of
hand 1 is the last player and moves one seat left each hand; cards are dealt one at a time from
the dealer's left, who plays first. After the deal the next card starts the discard pile and the
rest is the stock, the next card on top (``stock[0]``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, fields
from enum import StrEnum
from operator import attrgetter
from typing import Any

from .cards import Card, copies_allowed, format_card, parse_card
from .errors import WRONG_PHASE, ConfigError, IllegalAction
from .melds import Meld
from .rules import Rules
from .shuffle import shuffled_deck


class Phase(StrEnum):
    """Where the game stands: the player to move draws, then plays (melds, lays off, discards);
    a hand that has ended waits for the next deal; a game that has ended stays so. The values
    are the protocol's (PROTOCOL.md, the full state's ``phase``)."""

    DRAW = "draw"
    PLAY = "play"
    HAND_OVER = "hand_over"
    GAME_OVER = "game_over"


class Ended(StrEnum):
    """How a game ended, as the engine ends it: a total reached the target, or everyone left
    (the game is abandoned). The service adds its own ways (``games.models.GameResult.Ended``)."""

    TARGET = "target"
    ABANDONED = "abandoned"


@dataclass(frozen=True, slots=True)
class PlayerState:
    """One seat: name, hand (in the order received), total score and timeout bookkeeping."""

    name: str
    hand: tuple[Card, ...] = ()
    score: int = 0
    timeouts: int = 0
    absent: bool = False

    def with_hand(self, hand: tuple[Card, ...]) -> PlayerState:
        """A copy holding ``hand``."""
        # Direct construction: ``dataclasses.replace`` costs several times more, on every action.
        return PlayerState(self.name, hand, self.score, self.timeouts, self.absent)


@dataclass(frozen=True, slots=True)
class Score:
    """One player's result for one hand."""

    melded: int
    in_hand: int

    @property
    def net(self) -> int:
        """``melded - in_hand``, added to the player's total."""
        return self.melded - self.in_hand


@dataclass(frozen=True, slots=True)
class HandResult:
    """A finished hand: who went out (a seat, None when the stock ran out) and each seat's score."""

    number: int
    went_out: int | None
    scores: tuple[Score, ...]


@dataclass(frozen=True, slots=True)
class GameState:
    """Everything the engine knows. See PROTOCOL.md's full state and engine-decisions.md.

    ``required`` is the card that must still be melded this turn; ``drawn`` the card drawn from
    the stock this turn; ``taken`` the cards taken from the discard pile this turn (or by a
    "Rummy!" claim); ``last_discard_by`` the seat whose discard opened a "Rummy!" window;
    ``claimed`` whether the turn being played began with a "Rummy!" claim.
    """

    rules: Rules
    players: tuple[PlayerState, ...]
    dealer: int
    turn: int | None
    phase: Phase
    stock: tuple[Card, ...]
    discard: tuple[Card, ...]
    melds: tuple[Meld, ...] = ()
    required: Card | None = None
    hand_number: int = 1
    hands: tuple[HandResult, ...] = ()
    winner: int | None = None
    seed: str = ""
    drawn: Card | None = None
    taken: tuple[Card, ...] = ()
    last_discard_by: int | None = None
    ended: Ended | None = None
    reshuffles: int = 0
    claimed: bool = False

    @property
    def decks(self) -> int:
        """How many decks this table plays with."""
        return self.rules.decks_for(len(self.players))

    @property
    def names(self) -> tuple[str, ...]:
        """Player names in seat order."""
        return tuple(p.name for p in self.players)

    def seat_of(self, name: str) -> int | None:
        """The seat of ``name``, or None when not seated."""
        for i, p in enumerate(self.players):
            if p.name == name:
                return i
        return None

    def evolve(self, **changes: Any) -> GameState:
        """A copy with the fields named in ``changes`` replaced (``dataclasses.replace``, faster).

        >>> from dataclasses import replace
        >>> g = new_game(Rules(), ["ann", "bob"], seed="7")
        >>> g.evolve(phase=Phase.PLAY, turn=1) == replace(g, phase=Phase.PLAY, turn=1)
        True

        :raises KeyError: a name that is not a field.
        """
        # Every action copies this 18-field state; ``dataclasses.replace`` looks each field up by
        # name and validates it, about half the cost of ``apply``. Reading all fields with one
        # ``attrgetter`` call and overwriting by position is about twice as fast.
        values = list(_all_fields(self))
        for name, value in changes.items():
            values[_FIELD_INDEX[name]] = value
        return GameState(*values)

    def with_player(self, seat: int, player: PlayerState, **changes: Any) -> GameState:
        """A copy with seat ``seat`` replaced (and the other fields in ``changes``)."""
        players = (*self.players[:seat], player, *self.players[seat + 1 :])
        return self.evolve(players=players, **changes)

    def next_meld_id(self) -> int:
        """The id the next meld gets (ids count from 1 each hand)."""
        return max((m.id for m in self.melds), default=0) + 1


_FIELD_INDEX: dict[str, int] = {f.name: i for i, f in enumerate(fields(GameState))}
_all_fields = attrgetter(*_FIELD_INDEX)


def check_names(players: Sequence[str]) -> tuple[str, ...]:
    """Validate player names: non-empty distinct strings.

    :raises ConfigError: field ``players``.
    """
    if not isinstance(players, list | tuple) or not all(isinstance(p, str) and p for p in players):
        raise ConfigError("players", "must be a list of non-empty names")
    if len(set(players)) != len(players):
        raise ConfigError("players", "names must differ")
    return tuple(players)


def check_deck(deck: Sequence[Card | str], rules: Rules, players: int) -> list[Card]:
    """A dealing order as cards, refusing more copies of a card than the decks hold.

    Cards not in the list are simply out of play; the list must hold enough cards to deal.

    :raises ConfigError: field ``deck``.
    """
    try:
        cards = [c if isinstance(c, Card) else parse_card(c) for c in deck]
    except ValueError as exc:
        raise ConfigError("deck", str(exc)) from exc
    except Exception as exc:
        raise ConfigError("deck", str(exc)) from exc
    decks = rules.decks_for(players)
    for card, n in Counter(cards).items():
        if n > copies_allowed(card, decks, rules.jokers_per_deck):
            raise ConfigError("deck", f"{format_card(card)} appears {n} times; too many")
    need = players * rules.hand_size_for(players) + 1
    if len(cards) < need:
        raise ConfigError("deck", f"{len(cards)} cards; the deal needs at least {need}")
    return cards


def deal(
    rules: Rules, names: tuple[str, ...], dealer: int, deck: Sequence[Card]
) -> tuple[tuple[tuple[Card, ...], ...], tuple[Card, ...], tuple[Card, ...]]:
    """Deal ``deck``: hands (per seat), the discard pile, the stock (top first)."""
    n = len(names)
    size = rules.hand_size_for(n)
    hands: list[list[Card]] = [[] for _ in range(n)]
    for i in range(n * size):
        hands[(dealer + 1 + i) % n].append(deck[i])
    at = n * size
    return tuple(tuple(h) for h in hands), (deck[at],), tuple(deck[at + 1 :])


def start_hand(
    base: GameState, dealer: int, hand_number: int, *, seed: str | int | None, deck: object
) -> GameState:
    """``base`` with a fresh hand dealt by ``seed`` or from ``deck`` (exactly one)."""
    rules, n = base.rules, len(base.players)
    if (seed is None) == (deck is None):
        raise ValueError("give exactly one of seed and deck")
    if seed is not None:
        seed_text = str(seed)
        cards = shuffled_deck(seed_text, hand_number, rules.decks_for(n), rules.jokers_per_deck)
    else:
        if not isinstance(deck, list | tuple):
            raise ConfigError("deck", "must be a list of cards")
        seed_text = ""
        cards = check_deck(deck, rules, n)
    hands, discard, stock = deal(rules, base.names, dealer, cards)
    players = tuple(p.with_hand(h) for p, h in zip(base.players, hands, strict=True))
    return base.evolve(
        players=players,
        dealer=dealer,
        turn=(dealer + 1) % n,
        phase=Phase.DRAW,
        stock=stock,
        discard=discard,
        melds=(),
        required=None,
        hand_number=hand_number,
        seed=seed_text,
        drawn=None,
        taken=(),
        last_discard_by=None,
        reshuffles=0,
        claimed=False,
    )


def new_game(
    rules: Rules,
    players: Sequence[str],
    *,
    seed: str | int | None = None,
    deck: Sequence[Card | str] | None = None,
) -> GameState:
    """A new game with hand 1 dealt, by ``seed`` or from ``deck`` (exactly one).

    >>> g = new_game(Rules(), ["ann", "bob", "cid"], seed="7")
    >>> g.phase, g.names[g.turn or 0], len(g.players[0].hand), len(g.stock)
    (<Phase.DRAW: 'draw'>, 'ann', 7, 32)

    :raises ConfigError: bad names, a table the rules cannot deal to, or a bad deck.
    :raises ValueError: neither or both of ``seed`` and ``deck``.
    """
    names = check_names(players)
    rules.check_players(len(names))
    base = GameState(
        rules=rules,
        players=tuple(PlayerState(n) for n in names),
        dealer=len(names) - 1,
        turn=None,
        phase=Phase.HAND_OVER,
        stock=(),
        discard=(),
    )
    return start_hand(base, len(names) - 1, 1, seed=seed, deck=deck)


def deal_next_hand(
    state: GameState, *, seed: str | int | None = None, deck: Sequence[Card | str] | None = None
) -> GameState:
    """Deal the next hand after a finished one; the dealer moves one seat left.

    >>> from games.engine.rules import Rules
    >>> g = new_game(Rules(), ["ann", "bob"], seed="1")
    >>> deal_next_hand(g, seed="2")
    Traceback (most recent call last):
    ...
    games.engine.errors.IllegalAction: wrong_phase: the next hand is dealt only after a hand ends

    :raises IllegalAction: ``wrong_phase`` unless the phase is ``hand_over``.
    """
    if state.phase != Phase.HAND_OVER:
        raise IllegalAction(WRONG_PHASE, "the next hand is dealt only after a hand ends")
    dealer = (state.dealer + 1) % len(state.players)
    return start_hand(state, dealer, state.hand_number + 1, seed=seed, deck=deck)
