"""``apply(state, player, action) -> Transition``: every rule of a turn.

Checks, in order: malformed action -> ``bad_request``; unknown player -> ``not_seated``; game over
-> ``game_over``; then a ``rummy`` claim goes to its own checks (``rummy.py``); for any other
action, hand over -> ``wrong_phase``; out of turn -> ``not_your_turn``; wrong phase ->
``wrong_phase``; then the action's own checks. A refused action raises and leaves the state
untouched (states are immutable).

Choices beyond engine-decisions.md's list, made so that no player is ever stuck:
- A meld or lay-off that leaves a pending required card impossible to meld (by the pickup check on
  the cards left) is refused with ``required_card_pending``.
- With ``deep_pickup_new_meld``, laying off the required card of a deeper pickup is refused with
  ``invalid_layoff``.
- ``no_rediscard_top`` refuses discarding the card taken as the top discard unless the player holds
  another identical card (two decks), which they may discard, or the taken card had to be melded
  (``top_discard_must_meld``, a "Rummy!" claim): see ``may_discard``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from . import errors as E
from .actions import Action, Discard, Draw, DrawSource, Layoff, MeldAction, Rummy, parse_action
from .cards import Card, format_card, format_played
from .errors import IllegalAction, InvalidAction
from .events import Event, EventType
from .melds import Meld, MeldError, Played, build_meld, extend_meld
from .rummy import apply_rummy
from .scoring import end_hand
from .search import required_play
from .shuffle import reshuffled_stock
from .state import GameState, Phase
from .turn import remove_cards


@dataclass(frozen=True, slots=True)
class Transition:
    """The state after an action and the events it caused."""

    state: GameState
    events: tuple[Event, ...]


def apply(state: GameState, player: str, action: Action | dict[str, Any]) -> Transition:
    """Apply ``player``'s ``action`` (an ``Action`` or its protocol dict).

    >>> from games.engine.state import new_game
    >>> from games.engine.rules import Rules
    >>> g = new_game(Rules(), ["ann", "bob"], seed="7")
    >>> t = apply(g, "ann", {"type": "draw", "source": "stock"})
    >>> t.state.phase, t.events[0].to_dict()
    (<Phase.PLAY: 'play'>, {'type': 'drew', 'player': 'ann', 'source': 'stock'})
    >>> apply(g, "bob", {"type": "draw", "source": "stock"})
    Traceback (most recent call last):
    ...
    games.engine.errors.IllegalAction: not_your_turn: it is ann's turn

    :raises InvalidAction: a malformed action (``bad_request``).
    :raises IllegalAction: an action the rules do not allow now (the protocol's codes).
    """
    act = action if isinstance(action, Action) else parse_action(action)
    seat = state.seat_of(player) if isinstance(player, str) else None
    if seat is None:
        raise IllegalAction(E.NOT_SEATED, f"{player!r} is not seated at this table")
    new, events = _dispatch(state, seat, act)
    actor = new.players[seat]
    if actor.timeouts or actor.absent:
        new = new.with_player(seat, replace(actor, timeouts=0, absent=False))
    return Transition(new, events)


def _dispatch(state: GameState, seat: int, act: Action) -> tuple[GameState, tuple[Event, ...]]:
    if state.phase == Phase.GAME_OVER:
        raise IllegalAction(E.GAME_OVER, "the game is over")
    if isinstance(act, Rummy):
        return apply_rummy(state, seat, act)
    if state.phase == Phase.HAND_OVER:
        raise IllegalAction(E.WRONG_PHASE, "the hand is over; the next hand is not dealt yet")
    if seat != state.turn:
        raise IllegalAction(E.NOT_YOUR_TURN, f"it is {state.players[state.turn or 0].name}'s turn")
    if isinstance(act, Draw):
        _phase(state, Phase.DRAW, "you have drawn already; meld, lay off or discard")
        return _draw(state, seat, act)
    _phase(state, Phase.PLAY, "draw first")
    if isinstance(act, MeldAction):
        return _meld(state, seat, act.cards)
    if isinstance(act, Layoff):
        return _layoff(state, seat, act)
    assert isinstance(act, Discard)
    return _discard(state, seat, act)


def _phase(state: GameState, phase: str, message: str) -> None:
    if state.phase != phase:
        raise IllegalAction(E.WRONG_PHASE, message)


def _draw(state: GameState, seat: int, act: Draw) -> tuple[GameState, tuple[Event, ...]]:
    if act.source == DrawSource.STOCK:
        return _draw_stock(state, seat)
    pile, count = state.discard, act.count
    if count > len(pile):
        raise InvalidAction(f"count {count} but the discard pile holds {len(pile)}")
    taken = pile[-count:]
    required = taken[0] if count >= 2 or state.rules.top_discard_must_meld else None
    player = state.players[seat]
    hand = player.hand + taken
    if required is not None and not required_meldable(
        state, required, hand, state.melds, deep=count >= 2
    ):
        raise IllegalAction(
            E.PICKUP_NOT_MELDABLE,
            f"{format_card(required)} cannot be melded or laid off with your cards",
        )
    new = state.with_player(
        seat,
        player.with_hand(hand),
        discard=pile[:-count],
        phase=Phase.PLAY,
        required=required,
        drawn=None,
        taken=taken,
        last_discard_by=None,
        claimed=False,
    )
    data = {
        "source": DrawSource.DISCARD.value,
        "count": count,
        "cards": [format_card(c) for c in taken],
    }
    return new, (Event(EventType.DREW, player.name, data),)


def _draw_stock(state: GameState, seat: int) -> tuple[GameState, tuple[Event, ...]]:
    name = state.players[seat].name
    events: list[Event] = []
    if not state.stock:
        if state.rules.stock_out == "end" or len(state.discard) <= 1:
            ended = end_hand(state, None)
            return ended, (
                Event(EventType.DREW, name, {"source": DrawSource.STOCK.value, "empty": True}),
                *hand_end_events(ended),
            )
        k = state.reshuffles + 1
        stock = reshuffled_stock(state.seed, state.hand_number, k, state.discard[:-1])
        state = state.evolve(stock=tuple(stock), discard=state.discard[-1:], reshuffles=k)
        events.append(Event(EventType.RESHUFFLED, None, {"stock": len(stock), "reshuffles": k}))
    card, player = state.stock[0], state.players[seat]
    new = state.with_player(
        seat,
        player.with_hand((*player.hand, card)),
        stock=state.stock[1:],
        phase=Phase.PLAY,
        required=None,
        drawn=card,
        taken=(),
        last_discard_by=None,
        claimed=False,
    )
    events.append(
        Event(EventType.DREW, name, {"source": DrawSource.STOCK.value}, {"card": format_card(card)})
    )
    return new, tuple(events)


def _meld(
    state: GameState, seat: int, cards: Sequence[Played]
) -> tuple[GameState, tuple[Event, ...]]:
    hand, melds, meld = _new_meld(state, seat, cards)
    required = _check_left(state, melds, hand, cards)
    data = {"meld": meld.id, "kind": meld.kind, "cards": _texts(cards)}
    event = Event(EventType.MELDED, state.players[seat].name, data)
    return _put_down(state, seat, melds, hand, required, event)


def _layoff(state: GameState, seat: int, act: Layoff) -> tuple[GameState, tuple[Event, ...]]:
    hand, melds, meld = _extended(state, seat, act)
    required = _check_left(state, melds, hand, act.cards)
    data = {"meld": meld.id, "cards": _texts(act.cards)}
    event = Event(EventType.LAID_OFF, state.players[seat].name, data)
    return _put_down(state, seat, melds, hand, required, event)


def check_play(state: GameState, seat: int, act: MeldAction | Layoff) -> None:
    """Every check ``apply`` makes of ``seat``'s meld or lay-off in phase ``play``, on their turn,
    without building the next state (``legal_actions`` tries many candidates).

    :raises IllegalAction: exactly as ``apply`` would.
    """
    if isinstance(act, MeldAction):
        hand, melds, _ = _new_meld(state, seat, act.cards)
    else:
        hand, melds, _ = _extended(state, seat, act)
    _check_left(state, melds, hand, act.cards)


_Hand = tuple[Card, ...]


def _new_meld(
    state: GameState, seat: int, cards: Sequence[Played]
) -> tuple[_Hand, tuple[Meld, ...], Meld]:
    """The hand left, the table's melds and the new meld.

    :raises IllegalAction: ``not_in_hand``, ``invalid_meld``.
    """
    hand = remove_cards(state.players[seat].hand, cards)
    opts = state.rules.meld_options(state.decks)
    try:
        meld = build_meld(cards, seat, state.next_meld_id(), **opts)
    except MeldError as exc:
        raise IllegalAction(E.INVALID_MELD, str(exc)) from None
    return hand, (*state.melds, meld), meld


def _extended(state: GameState, seat: int, act: Layoff) -> tuple[_Hand, tuple[Meld, ...], Meld]:
    """The hand left, the table's melds and the extended meld.

    :raises IllegalAction: ``unknown_meld``, ``not_in_hand``, ``invalid_layoff``.
    """
    at = next((i for i, m in enumerate(state.melds) if m.id == act.meld), None)
    if at is None:
        raise IllegalAction(E.UNKNOWN_MELD, f"there is no meld {act.meld}")
    hand = remove_cards(state.players[seat].hand, act.cards)
    req = state.required
    if (
        req is not None
        and len(state.taken) != 1
        and state.rules.deep_pickup_new_meld
        and any(c == req for c, _ in act.cards)
    ):
        raise IllegalAction(E.INVALID_LAYOFF, "the required card must start a new meld")
    opts = state.rules.meld_options(state.decks)
    try:
        meld = extend_meld(state.melds[at], act.cards, seat, **opts)
    except MeldError as exc:
        raise IllegalAction(E.INVALID_LAYOFF, str(exc)) from None
    return hand, _swap(state.melds, at, meld), meld


def _swap(melds: tuple[Meld, ...], at: int, meld: Meld) -> tuple[Meld, ...]:
    return (*melds[:at], meld, *melds[at + 1 :])


def _texts(cards: Sequence[Played]) -> list[str]:
    return [format_played(c, s) for c, s in cards]


def _check_left(
    state: GameState, melds: tuple[Meld, ...], hand: _Hand, cards: Sequence[Played]
) -> Card | None:
    """The checks after a meld or lay-off (``melds``: the table with it made, ``hand``: the cards
    left); returns the required card still pending.

    :raises IllegalAction: ``must_keep_discard``, ``required_card_pending``.
    """
    if not hand and state.rules.must_discard_to_go_out:
        raise IllegalAction(E.MUST_KEEP_DISCARD, "your last card must be a discard")
    if hand and all(not may_discard(state, hand, c) for c in hand):
        raise IllegalAction(E.MUST_KEEP_DISCARD, "you would keep only a card you may not discard")
    required = state.required
    if required is None or any(c == required for c, _ in cards):
        return None
    # Without a single taken top card (a deeper pickup, or a loaded state without taken) the
    # required card counts as a deep pickup's.
    if hand and not required_meldable(state, required, hand, melds, deep=len(state.taken) != 1):
        raise IllegalAction(
            E.REQUIRED_CARD_PENDING,
            f"this would leave the required card {format_card(required)} impossible to meld",
        )
    return required


def required_meldable(
    state: GameState, required: Card, cards: _Hand, melds: tuple[Meld, ...], *, deep: bool
) -> bool:
    """The pickup check: whether ``required`` can still be put down from ``cards`` (which hold it)
    on a table of ``melds``, keeping a card to discard when ``must_discard_to_go_out``. A ``deep``
    pickup's required card (one taken under others) may not be laid off with
    ``deep_pickup_new_meld``.
    """
    rules = state.rules
    layoff = not (deep and rules.deep_pickup_new_meld)
    keep = rules.must_discard_to_go_out
    found = required_play(required, cards, melds, rules, state.decks, layoff=layoff, keep_one=keep)
    return found is not None


def _put_down(
    state: GameState,
    seat: int,
    melds: tuple[Meld, ...],
    hand: _Hand,
    required: Card | None,
    event: Event,
) -> tuple[GameState, tuple[Event, ...]]:
    """The state after a checked meld or lay-off (the hand ends when no card is left)."""
    new = state.with_player(
        seat, state.players[seat].with_hand(hand), melds=melds, required=required
    )
    if not hand:
        ended = end_hand(new, seat)
        return ended, (event, *hand_end_events(ended))
    return new, (event,)


def may_discard(state: GameState, hand: _Hand, card: Card) -> bool:
    """Whether ``card`` may be discarded from ``hand`` under ``no_rediscard_top``.

    The rule bars throwing back a top discard taken alone. A top discard that had to be melded
    (the required card under ``top_discard_must_meld``, or the card of a "Rummy!" claim) is on the
    table once melded, so a card left in hand equal to it (two decks) is the player's own and may
    be discarded; while it is still pending, ``required_card_pending`` refuses the discard.
    """
    rules = state.rules
    if (
        not rules.no_rediscard_top
        or len(state.taken) != 1
        or state.drawn is not None
        or rules.top_discard_must_meld
        or state.claimed
    ):
        return True
    return card != state.taken[0] or hand.count(card) >= 2


def _discard(state: GameState, seat: int, act: Discard) -> tuple[GameState, tuple[Event, ...]]:
    player = state.players[seat]
    hand = remove_cards(player.hand, ((act.card, act.card),))
    if state.required is not None:
        raise IllegalAction(
            E.REQUIRED_CARD_PENDING, f"meld the required card {format_card(state.required)} first"
        )
    if not may_discard(state, player.hand, act.card):
        raise IllegalAction(
            E.CANNOT_DISCARD_TAKEN_CARD, "you may not throw back the discard you just took"
        )
    n = len(state.players)
    new = state.with_player(
        seat,
        player.with_hand(hand),
        discard=(*state.discard, act.card),
        turn=(seat + 1) % n,
        phase=Phase.DRAW,
        drawn=None,
        taken=(),
        last_discard_by=seat if state.rules.rummy_call else None,
        claimed=False,
    )
    event = Event(EventType.DISCARDED, player.name, {"card": format_card(act.card)})
    if not hand:
        ended = end_hand(new.evolve(last_discard_by=None), seat)
        return ended, (event, *hand_end_events(ended))
    return new, (event,)


def hand_end_events(state: GameState) -> tuple[Event, ...]:
    """The ``hand_ended`` (and, when the game is over, ``game_ended``) events of a finished hand."""
    result = state.hands[-1]
    names = state.names
    went = None if result.went_out is None else names[result.went_out]
    scores = {
        names[i]: {"melded": s.melded, "in_hand": s.in_hand, "net": s.net}
        for i, s in enumerate(result.scores)
    }
    events = [
        Event(
            EventType.HAND_ENDED,
            went,
            {"number": result.number, "went_out": went, "scores": scores},
        )
    ]
    if state.phase == Phase.GAME_OVER:
        winner = None if state.winner is None else names[state.winner]
        events.append(
            Event(
                EventType.GAME_ENDED,
                winner,
                {"winner": winner, "ended": None if state.ended is None else state.ended.value},
            )
        )
    return tuple(events)
