""" "Rummy!" (house rule ``rummy_call``).

The claim window opens with a discard that does not end the hand and closes when the next player
draws or a claim is accepted. Any seated player but the discarder may claim, even the player to
move. The claim takes ``count`` cards from the top of the pile; the deepest is the required card.
The melds and lay-offs must use only taken cards (and table melds) and include the required card;
taken cards not used go to the caller's hand. The caller then plays on (phase ``play``) and must
discard; play continues from the caller's left. Every refusal of a claim is ``no_rummy`` (a
``count`` above the pile size is malformed: ``bad_request``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from . import errors as E
from .actions import Rummy
from .cards import Card, format_card, format_played
from .errors import IllegalAction, InvalidAction
from .events import Event, EventType
from .melds import Meld, MeldError, build_meld, extend_meld
from .state import GameState, Phase

if TYPE_CHECKING:
    from .melds import Played


def _refuse(message: str) -> IllegalAction:
    return IllegalAction(E.NO_RUMMY, message)


def _check_window(state: GameState, seat: int, act: Rummy) -> None:
    if not state.rules.rummy_call:
        raise _refuse("the Rummy! call is not played at this table")
    if state.phase != Phase.DRAW or state.last_discard_by is None:
        raise _refuse("no Rummy! window is open")
    if seat == state.last_discard_by:
        raise _refuse("you cannot claim your own discard")
    if act.count > len(state.discard):
        raise InvalidAction(f"count {act.count} but the discard pile holds {len(state.discard)}")


def claim_cards(act: Rummy) -> list[Played]:
    """Every card a claim puts down: its melds', then its lay-offs'."""
    return [p for m in act.melds for p in m] + [p for _, cs in act.layoffs for p in cs]


def split_claim(act: Rummy, taken: Sequence[Card]) -> tuple[list[Played], list[Card]]:
    """The cards ``act`` puts down and the ``taken`` cards it leaves to the caller's hand.

    :raises IllegalAction: ``no_rummy``, the claim puts down a card it does not take.
    """
    used = claim_cards(act)
    rest = list(taken)
    for card, _ in used:
        if card not in rest:
            raise _refuse("a claim may use only the cards it takes")
        rest.remove(card)
    return used, rest


def _play_claim(state: GameState, seat: int, act: Rummy) -> tuple[Meld, ...]:
    opts = state.rules.meld_options(state.decks)
    melds = list(state.melds)
    next_id = state.next_meld_id()
    try:
        for cards in act.melds:
            melds.append(build_meld(cards, seat, next_id, **opts))
            next_id += 1
        for meld_id, cards in act.layoffs:
            at = next((i for i, m in enumerate(melds) if m.id == meld_id), None)
            if at is None:
                raise _refuse(f"there is no meld {meld_id}")
            melds[at] = extend_meld(melds[at], cards, seat, **opts)
    except MeldError as exc:
        raise _refuse(str(exc)) from None
    return tuple(melds)


def apply_rummy(state: GameState, seat: int, act: Rummy) -> tuple[GameState, tuple[Event, ...]]:
    """Judge and apply a "Rummy!" claim by ``seat``.

    :raises IllegalAction: ``no_rummy`` for every refusal of the claim.
    :raises InvalidAction: a ``count`` above the pile size.
    """
    _check_window(state, seat, act)
    taken = state.discard[-act.count :]
    required = taken[0]
    used, rest = split_claim(act, taken)
    if not any(c == required for c, _ in used):
        raise _refuse(f"the claim must meld the required card {format_card(required)}")
    melds = _play_claim(state, seat, act)
    player = state.players[seat]
    new = state.with_player(
        seat,
        player.with_hand(player.hand + tuple(rest)),
        discard=state.discard[: -act.count],
        melds=melds,
        turn=seat,
        phase=Phase.PLAY,
        required=None,
        drawn=None,
        taken=taken,
        last_discard_by=None,
        claimed=True,
    )
    data = {
        "count": act.count,
        "cards": [format_card(c) for c in taken],
        "melds": [[format_played(c, s) for c, s in m] for m in act.melds],
        "layoffs": [
            {"meld": i, "cards": [format_played(c, s) for c, s in cs]} for i, cs in act.layoffs
        ],
    }
    return new, (Event(EventType.RUMMY, player.name, data),)
