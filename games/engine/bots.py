"""Bots: players for simulations, load tests and empty seats.

A bot answers one question at a time: ``choose(state, player)`` returns the next action of the
player to move (a draw, a meld, a lay-off, a discard, or a "Rummy!" claim), and
``claim(state, player)`` returns a claim to make while a "Rummy!" window is open, or None.
``play_game`` is the driver loop (in ``play.py``, re-exported here): it asks the bots until the
game is over, dealing each new hand with a seed derived from the game's seed (``hand_seed``), and
raises ``GameTooLong`` after ``max_actions`` actions rather than loop forever.

- ``RandomBot`` picks uniformly among ``legal_actions`` (and claims, or not, at random).
- ``GreedyBot`` plays the obvious good move (see its docstring). Its ``skill`` in [0, 1] mixes in
  the random bot: each decision is the greedy one with probability ``skill``, else the random
  bot's, so simulations can field players of known, different strength. ``skill=1`` plays exactly
  as the greedy bot, ``skill=0`` exactly as ``RandomBot`` with the same seed.

Every choice is drawn from ``legal_actions``, so a bot never makes an illegal move; each bot owns a
seeded ``random.Random``, so a game is reproducible from its seed and the bots' seeds.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence

from .actions import Action, Discard, Draw, DrawSource, Layoff, MeldAction, Rummy
from .bot_base import Bot, Seed
from .cards import Card
from .legal import legal_actions
from .melds import MeldError, Played, extend_meld
from .play import GameTooLong, hand_seed, next_move, play_game
from .rules import Rules
from .rummy import claim_cards, split_claim
from .scoring import value_table
from .search import all_melds, may_meld, melds_with, single_layoffs
from .state import GameState, Phase

__all__ = [
    "Bot",
    "GameTooLong",
    "GreedyBot",
    "RandomBot",
    "hand_seed",
    "next_move",
    "play_game",
]


def _claims(state: GameState, player: str) -> list[Action]:
    return [a for a in legal_actions(state, player) if isinstance(a, Rummy)]


def _random_choice(rng: random.Random, state: GameState, player: str) -> Action:
    actions = legal_actions(state, player)
    if not actions:
        raise ValueError(f"{player} has no legal action in phase {state.phase}")
    return rng.choice(actions)


def _random_claim(rng: random.Random, state: GameState, player: str) -> Action | None:
    claims = _claims(state, player)
    if not claims:
        return None
    options: list[Action | None] = [None, *claims]
    return rng.choice(options)


class RandomBot(Bot):
    """Uniform over ``legal_actions``; offered "Rummy!" claims, it claims or passes at random.

    >>> from games.engine import Rules, new_game
    >>> g = new_game(Rules(), ["ann", "bob"], seed="7")
    >>> RandomBot(seed=3).choose(g, "ann") == RandomBot(seed=3).choose(g, "ann")
    True
    >>> RandomBot().choose(g, "ann") in legal_actions(g, "ann")
    True
    """

    def choose(self, state: GameState, player: str) -> Action:
        """A uniformly random legal action.

        :raises ValueError: ``player`` has no legal action.
        """
        return _random_choice(self.rng, state, player)

    def claim(self, state: GameState, player: str) -> Action | None:
        """Pass or one of the offered claims, uniformly."""
        return _random_claim(self.rng, state, player)


class GreedyBot(Bot):
    """The obvious good move, with a ``skill`` knob that mixes in the random bot.

    - **Draw**: the discard-pile depth whose cards let it meld the most value, when the pickup
      melds value and that value outweighs the taken cards left in hand; else the stock.
    - **Play**: the required card's meld or lay-off first; then the most valuable meld, then the
      most valuable lay-off, one per call, so it melds all it can and goes out when it can.
    - **Discard**: never a card the next player could obviously use (one that extends a table meld,
      or completes a meld with cards that player took from the pile this hand), when another card
      may be discarded; then a dead card (in no pair or near-run) before a live one, a natural card
      before a joker, the costliest first.
    - **"Rummy!"**: claims whenever a claim is offered (the most valuable one).

    ``skill`` (0 to 1): each decision is the greedy one with that probability, else the random
    bot's. The coin has its own stream, so ``skill=0`` plays exactly as ``RandomBot(seed)`` and
    ``skill=1`` exactly as ``GreedyBot(seed)``.

    >>> from games.engine import Rules, new_game
    >>> g = new_game(Rules(), ["ann", "bob"], seed="7")
    >>> GreedyBot(seed=1).choose(g, "ann") in legal_actions(g, "ann")
    True
    >>> GreedyBot(skill=1.5)
    Traceback (most recent call last):
    ...
    ValueError: skill must be between 0 and 1, not 1.5
    """

    def __init__(self, seed: Seed = 0, *, skill: float = 1.0) -> None:
        if not 0.0 <= skill <= 1.0:
            raise ValueError(f"skill must be between 0 and 1, not {skill}")
        super().__init__(seed)
        self.skill = skill
        self._coin = random.Random(f"skill:{seed}")
        self._hand_number = 0
        self._known: dict[int, list[Card]] = {}

    def _greedy_now(self) -> bool:
        return self.skill >= 1.0 or self._coin.random() < self.skill

    def choose(self, state: GameState, player: str) -> Action:
        """The greedy action (with probability ``skill``) or the random bot's.

        :raises ValueError: ``player`` has no legal action.
        """
        if not self._greedy_now():
            return _random_choice(self.rng, state, player)
        actions = legal_actions(state, player)
        if not actions:
            raise ValueError(f"{player} has no legal action in phase {state.phase}")
        if state.phase == Phase.DRAW:
            return self._draw(state, player, actions)
        return self._play(state, player, actions)

    def claim(self, state: GameState, player: str) -> Action | None:
        """The most valuable offered claim (greedy), or the random bot's answer."""
        if not self._greedy_now():
            return _random_claim(self.rng, state, player)
        claims = _claims(state, player)
        return _best_claim(state, claims) if claims else None

    def observe(self, before: GameState, player: str, action: Action, after: GameState) -> None:
        """Remember the cards each player took from the pile and still may hold, this hand."""
        if before.hand_number != self._hand_number:
            self._hand_number, self._known = before.hand_number, {}
        seat = before.seat_of(player)
        if seat is None:
            return
        known = self._known.setdefault(seat, [])
        # The commonest actions are tested first: every bot observes every action, and a failed
        # isinstance against the actions' ABC costs a Python-level ``__instancecheck__``.
        if isinstance(action, Draw):
            if action.source == DrawSource.DISCARD:
                known.extend(before.discard[-action.count :])
        elif isinstance(action, Discard):
            _forget(known, [action.card])
        elif isinstance(action, MeldAction | Layoff):
            _forget(known, [c for c, _ in action.cards])
        elif isinstance(action, Rummy):
            known.extend(before.discard[-action.count :])
            _forget(known, [c for c, _ in claim_cards(action)])

    def rank_discards(self, state: GameState, player: str, cards: Iterable[Card]) -> list[Card]:
        """``cards`` (candidate discards of ``player``) best first, by the discard rule above.

        >>> from games.engine import state_from_dict, parse_card
        >>> s = state_from_dict({"players": [{"name": "ann", "hand": ["9H", "KC", "3D"]},
        ...     {"name": "bob", "hand": ["2S", "4S", "6S"]}], "turn": "ann", "phase": "play",
        ...     "stock": ["JD"], "discard": ["QS"], "melds": [{"id": 1, "kind": "run", "cards": [
        ...     {"card": "6H", "by": "bob"}, {"card": "7H", "by": "bob"},
        ...     {"card": "8H", "by": "bob"}]}]}, Rules())
        >>> ranked = GreedyBot().rank_discards(s, "ann", map(parse_card, ["9H", "KC", "3D"]))
        >>> [str(c) for c in ranked]
        ['KC', '3D', '9H']
        """
        seat = state.seat_of(player)
        assert seat is not None
        hand = state.players[seat].hand
        nxt = (seat + 1) % len(state.players)
        known = self._known.get(nxt, []) if state.hand_number == self._hand_number else []
        table, _ = value_table(state.rules.values, state.rules.low_ace)
        cards = list(cards)
        extenders = _table_extenders(state, cards)

        def key(card: Card) -> tuple[bool, bool, bool, int, int]:
            feeds = card in extenders or _completes(state, card, known)
            rest = list(hand)
            rest.remove(card)
            return (
                feeds,
                not _dead(card, rest, state.rules),
                card.rank == 0,
                -table[card.rank],
                card.index,
            )

        return sorted(cards, key=key)

    def _draw(self, state: GameState, player: str, actions: list[Action]) -> Action:
        claims = [a for a in actions if isinstance(a, Rummy)]
        if claims:
            return _best_claim(state, claims)
        seat = state.seat_of(player)
        assert seat is not None
        hand = state.players[seat].hand
        options = [
            a
            for a in actions
            if isinstance(a, Draw)
            and a.source == DrawSource.DISCARD
            and (a.count > 1 or _may_help(state, state.discard[-1], hand))
        ]
        best: Action = Draw(DrawSource.STOCK)
        if not options:
            return best
        base_melded, base_score = _plan(state, list(hand))
        best_gain = 0
        for action in options:
            assert isinstance(action, Draw)
            melded, score = _plan(state, [*hand, *state.discard[-action.count :]])
            if melded > base_melded and score - base_score > best_gain:
                best, best_gain = action, score - base_score
        return best

    def _play(self, state: GameState, player: str, actions: list[Action]) -> Action:
        values = _values(state.rules)
        puts = [a for a in actions if isinstance(a, MeldAction | Layoff)]
        req = state.required
        if req is not None:
            with_req = [a for a in puts if any(c == req for c, _ in a.cards)]
            if with_req:
                return max(with_req, key=lambda a: _played_value(a, values))
        melds = [a for a in puts if isinstance(a, MeldAction)]
        if melds:
            return max(melds, key=lambda a: _played_value(a, values))
        if puts:
            return max(puts, key=lambda a: _played_value(a, values))
        discards = [a.card for a in actions if isinstance(a, Discard)]
        if discards:
            return Discard(self.rank_discards(state, player, discards)[0])
        return actions[0]


def _forget(known: list[Card], cards: Iterable[Card]) -> None:
    for card in cards:
        if card in known:
            known.remove(card)


_Values = tuple[tuple[int, ...], int]


def _values(rules: Rules) -> _Values:
    return value_table(rules.values, rules.low_ace)


def _meld_value(cards: Sequence[Played], values: _Values) -> int:
    """Points of a new meld or a lay-off as listed (a run's leading ace before a 2 is low)."""
    table, low = values
    total = 0
    for i, (card, stands) in enumerate(cards):
        if (
            card.rank == 1
            and i == 0
            and len(cards) > 1
            and cards[1][1].rank == 2
            and cards[1][1].suit == stands.suit
        ):
            total += low
        else:
            total += table[card.rank]
    return total


def _played_value(action: MeldAction | Layoff, values: _Values) -> int:
    return _meld_value(action.cards, values)


def _best_claim(state: GameState, claims: Sequence[Action]) -> Action:
    values = _values(state.rules)

    def net(action: Action) -> int:
        assert isinstance(action, Rummy)
        used, left = split_claim(action, state.discard[-action.count :])
        return _meld_value(used, values) - sum(values[0][c.rank] for c in left)

    return max(claims, key=net)


def _plan(state: GameState, cards: list[Card]) -> tuple[int, int]:
    """Greedy melding of ``cards``: the most valuable meld first, then lay-offs on the table.

    Returns ``(melded value, melded value - value of the cards left)``.
    """
    rules, decks = state.rules, state.decks
    values = _values(rules)
    left = list(cards)
    melded = 0
    while len(left) >= 3:
        best = max(
            all_melds(left, rules, decks), key=lambda m: _meld_value(m, values), default=None
        )
        if best is None:
            break
        melded += _meld_value(best, values)
        for card, _ in best:
            left.remove(card)
    melded += _plan_layoffs(state, left, values)
    return melded, melded - sum(values[0][c.rank] for c in left)


def _plan_layoffs(state: GameState, left: list[Card], values: _Values) -> int:
    """Lay ``left`` off on the table melds one card at a time (``left`` is consumed)."""
    table = {m.id: m for m in state.melds}
    if not table or not left:
        return 0
    opts = state.rules.meld_options(state.decks)
    total = 0
    placed = True
    while placed and left:
        placed = False
        for lay in single_layoffs(left, list(table.values()), state.rules, state.decks):
            try:
                table[lay.meld] = extend_meld(table[lay.meld], lay.cards, 0, **opts)
            except MeldError:
                continue
            left.remove(lay.cards[0][0])
            total += _meld_value(lay.cards, values)
            placed = True
            break
    return total


def _may_help(state: GameState, card: Card, hand: Sequence[Card]) -> bool:
    """A cheap necessary condition for ``card`` to meld with ``hand`` or the table (a joker always
    may): the pickup check's ``may_meld``."""
    return card.rank == 0 or may_meld(card, (*hand, card), state.melds)


def _table_extenders(state: GameState, cards: Sequence[Card]) -> set[Card]:
    """The ``cards`` that extend a table meld on their own: one lay-off search for all of them
    (a card's lay-offs do not depend on the other cards) rather than one per card."""
    layoffs = single_layoffs(cards, state.melds, state.rules, state.decks)
    return {lay.cards[0][0] for lay in layoffs}


def _completes(state: GameState, card: Card, known: Sequence[Card]) -> bool:
    """Whether ``card`` makes a meld with the cards the next player took (and may still hold)."""
    if len(known) < 2:
        return False
    return any(True for _ in melds_with(card, [*known, card], state.rules, state.decks))


def _dead(card: Card, rest: Sequence[Card], rules: Rules) -> bool:
    """Whether natural ``card`` is in no partial meld with ``rest`` (a pair or a near-run).

    Jokers are never dead; a joker in ``rest`` does not make a card live (it fits anything).
    """
    if card.rank == 0:
        return False
    for other in rest:
        if other.rank == 0:
            continue
        if other.rank == card.rank and (other.suit != card.suit or not rules.set_distinct_suits):
            return False
        # K and 2 meet only in K-A-2, which is a run only with ``run_wraps``.
        if (
            other.suit == card.suit
            and (other.rank - card.rank) % 13 in (1, 2, 11, 12)
            and (rules.run_wraps or {card.rank, other.rank} != {2, 13})
        ):
            return False
    return True
