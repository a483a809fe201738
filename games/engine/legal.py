"""``legal_actions(state, player)``: every action the player may make now (bounded sensibly).

- Phase ``draw`` (the player to move): the stock, and each discard depth the pickup check allows.
- Phase ``play``: every new meld from the hand (see ``search`` for the bounds), every one-card
  lay-off (several cards are laid off one at a time), and every card that may be discarded
  (each distinct card once); no discard while a required card is pending.
- With ``rummy_call``, while a window is open, any player but the discarder also gets one claim
  per claimable depth (the first way the search finds to meld the required card).
"""

from __future__ import annotations

from collections.abc import Iterator

from .actions import Action, Discard, Draw, DrawSource, Layoff, MeldAction, Rummy
from .engine import check_play, may_discard, required_meldable
from .errors import IllegalAction
from .search import all_melds, required_play, single_layoffs
from .state import GameState, Phase
from .turn import remove_cards


def legal_actions(state: GameState, player: str) -> list[Action]:
    """The actions ``player`` may make now (empty when none, or not seated).

    >>> from games.engine.state import new_game
    >>> from games.engine.rules import Rules
    >>> g = new_game(Rules(), ["ann", "bob"], seed="7")
    >>> [a.to_dict() for a in legal_actions(g, "ann")[:2]]
    [{'type': 'draw', 'source': 'stock'}, {'type': 'draw', 'source': 'discard', 'count': 1}]
    >>> legal_actions(g, "bob")
    []
    """
    seat = state.seat_of(player)
    if seat is None:
        return []
    out: list[Action] = list(_rummy_claims(state, seat))
    if seat != state.turn:
        return out
    if state.phase == Phase.DRAW:
        out.extend(_draws(state, seat))
    elif state.phase == Phase.PLAY:
        out.extend(_plays(state, seat))
    return out


def _draws(state: GameState, seat: int) -> Iterator[Action]:
    yield Draw(DrawSource.STOCK)
    rules, hand = state.rules, state.players[seat].hand
    pile = state.discard
    for count in range(1, len(pile) + 1):
        if count == 1 and not rules.top_discard_must_meld:
            yield Draw(DrawSource.DISCARD, 1)
            continue
        pool = hand + pile[-count:]
        if required_meldable(state, pile[-count], pool, state.melds, deep=count >= 2):
            yield Draw(DrawSource.DISCARD, count)


def _plays(state: GameState, seat: int) -> Iterator[Action]:
    hand = state.players[seat].hand
    seen: set[Action] = set()
    candidates: list[Action] = [MeldAction(m) for m in all_melds(hand, state.rules, state.decks)]
    candidates.extend(single_layoffs(hand, state.melds, state.rules, state.decks))
    for action in candidates:
        if action not in seen and _allowed(state, seat, action):
            seen.add(action)
            yield action
    if state.required is None:
        for card in sorted(set(hand), key=lambda c: c.index):
            if may_discard(state, hand, card):
                yield Discard(card)


def _allowed(state: GameState, seat: int, action: Action) -> bool:
    """The post-play checks of ``engine`` (must keep a discard, required card still meldable)."""
    assert isinstance(action, MeldAction | Layoff)
    if state.required is not None:
        try:
            check_play(state, seat, action)
        except IllegalAction:
            return False
        return True
    hand = remove_cards(state.players[seat].hand, action.cards)
    if not hand:
        return not state.rules.must_discard_to_go_out
    return any(may_discard(state, hand, c) for c in hand)


def _rummy_claims(state: GameState, seat: int) -> Iterator[Action]:
    if (
        not state.rules.rummy_call
        or state.phase != Phase.DRAW
        or state.last_discard_by in (None, seat)
    ):
        return
    pile = state.discard
    for count in range(1, len(pile) + 1):
        taken = pile[-count:]
        found = required_play(
            taken[0], taken, state.melds, state.rules, state.decks, layoff=True, keep_one=False
        )
        if isinstance(found, MeldAction):
            yield Rummy(count, melds=(found.cards,))
        elif isinstance(found, Layoff):
            yield Rummy(count, layoffs=((found.meld, found.cards),))
