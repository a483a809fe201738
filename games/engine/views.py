"""The full state and the views of it (PROTOCOL.md), as JSON-ready dicts.

The full state adds ``seed``, ``drawn``, ``taken``, ``last_discard_by``, ``ended``,
``reshuffles`` and ``claimed`` (engine-decisions.md). A player view replaces the stock by its size
and every other hand by its size, adds ``"you"``, drops ``seed`` and shows ``drawn`` only to the
player who drew. The public view hides every hand. ``turn`` is null once a hand or the game is over.
Once the game is over both views add ``placements``: ``[{"player", "place", "score"}]``, best
first, equal totals sharing a place, so a client shows the places the server decided.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .cards import format_card
from .melds import Meld
from .scoring import game_placements
from .state import GameState, HandResult, Phase


def _meld_dict(meld: Meld, names: tuple[str, ...]) -> dict[str, Any]:
    cards: list[dict[str, Any]] = []
    for tc in meld.cards:
        if tc.card.rank == 0:
            cards.append({"card": "*", "as": format_card(tc.stands), "by": names[tc.by]})
        else:
            cards.append({"card": format_card(tc.card), "by": names[tc.by]})
    return {"id": meld.id, "kind": meld.kind, "cards": cards}


def _name(names: tuple[str, ...], seat: int | None) -> str | None:
    return None if seat is None else names[seat]


def full_state(state: GameState) -> dict[str, Any]:
    """The full state, every card shown (replay tool, audit log once the game is over).

    >>> from games.engine.state import new_game
    >>> from games.engine.rules import Rules
    >>> d = full_state(new_game(Rules(), ["ann", "bob"], deck=None, seed="7"))
    >>> d["turn"], d["dealer"], d["phase"], len(d["players"][0]["hand"])
    ('ann', 'bob', 'draw', 13)
    """
    names = state.names
    return {
        "rules": state.rules.to_dict(),
        "players": [
            {
                "name": p.name,
                "hand": [format_card(c) for c in p.hand],
                "score": p.score,
                "timeouts": p.timeouts,
                "absent": p.absent,
            }
            for p in state.players
        ],
        "dealer": names[state.dealer],
        "turn": _name(names, state.turn),
        "phase": state.phase.value,
        "required": None if state.required is None else format_card(state.required),
        "stock": [format_card(c) for c in state.stock],
        "discard": [format_card(c) for c in state.discard],
        "melds": [_meld_dict(m, names) for m in state.melds],
        "hand_number": state.hand_number,
        "hands": [hand_dict(h, names) for h in state.hands],
        "winner": _name(names, state.winner),
        "seed": state.seed,
        "drawn": None if state.drawn is None else format_card(state.drawn),
        "taken": [format_card(c) for c in state.taken],
        "last_discard_by": _name(names, state.last_discard_by),
        "ended": None if state.ended is None else state.ended.value,
        "reshuffles": state.reshuffles,
        "claimed": state.claimed,
    }


def hand_dict(hand: HandResult, names: Sequence[str]) -> dict[str, Any]:
    """A finished hand as the full state lists it (``names`` by seat).

    >>> from games.engine.state import Score
    >>> hand_dict(HandResult(1, 0, (Score(45, 0), Score(10, 30))), ["ann", "bob"])["scores"]["bob"]
    {'melded': 10, 'in_hand': 30, 'net': -20}
    """
    return {
        "number": hand.number,
        "went_out": None if hand.went_out is None else names[hand.went_out],
        "scores": {
            names[i]: {"melded": s.melded, "in_hand": s.in_hand, "net": s.net}
            for i, s in enumerate(hand.scores)
        },
    }


def _hidden(state: GameState, seat: int | None) -> dict[str, Any]:
    view = full_state(state)
    if state.phase == Phase.GAME_OVER:
        view["placements"] = [
            {"player": p.player, "place": p.place, "score": p.score} for p in game_placements(state)
        ]
    del view["seed"]
    view["stock"] = len(state.stock)
    for i, p in enumerate(view["players"]):
        if i != seat:
            p["hand"] = len(state.players[i].hand)
    if seat is None or seat != state.turn:
        del view["drawn"]
    return view


def player_view(state: GameState, player: str) -> dict[str, Any]:
    """What ``player`` may see: their own hand, sizes of the others and of the stock.

    >>> from games.engine.state import new_game
    >>> from games.engine.rules import Rules
    >>> v = player_view(new_game(Rules(), ["ann", "bob"], seed="7"), "bob")
    >>> v["you"], v["stock"], v["players"][0]["hand"], len(v["players"][1]["hand"])
    ('bob', 27, 13, 13)

    :raises KeyError: ``player`` is not seated.
    """
    seat = state.seat_of(player)
    if seat is None:
        raise KeyError(player)
    view = _hidden(state, seat)
    view["you"] = player
    return view


def public_view(state: GameState) -> dict[str, Any]:
    """What a spectator may see: no hand, no stock order, no drawn card, no seed.

    >>> from games.engine.state import new_game
    >>> from games.engine.rules import Rules
    >>> public_view(new_game(Rules(), ["ann", "bob"], seed="7"))["players"][0]["hand"]
    13
    """
    return _hidden(state, None)


def hand_summary(state: GameState) -> dict[str, Any] | None:
    """The summary of the hand ``state`` has just finished, or None when no hand has just
    ended (a hand in play, or a game abandoned mid-hand: it scored no hand).

    The cards left in each hand are scored in the open (RULES.md, "End of a hand"), so the
    summary shows them: it is public once the hand is over. ``melds`` are the melds on the table
    at the hand's end as the views write them; ``scores`` the hand's, ``totals`` the players'
    totals after it.

    >>> from games.engine.state import new_game, Score
    >>> from games.engine.rules import Rules
    >>> g = new_game(Rules(), ["ann", "bob"], seed="7")
    >>> hand_summary(g) is None
    True
    >>> done = g.evolve(phase=Phase.HAND_OVER, turn=None,
    ...                 hands=(HandResult(1, None, (Score(0, 80), Score(0, 95))),))
    >>> s = hand_summary(done)
    >>> s["number"], s["went_out"], len(s["left"]["ann"]), s["scores"]["bob"]["net"]
    (1, None, 13, -95)
    """
    if state.phase not in (Phase.HAND_OVER, Phase.GAME_OVER) or not state.hands:
        return None
    hand = state.hands[-1]
    if hand.number != state.hand_number:
        return None
    names = state.names
    scored = hand_dict(hand, names)
    return {
        "number": hand.number,
        "went_out": scored["went_out"],
        "melds": [_meld_dict(m, names) for m in state.melds],
        "left": {p.name: [format_card(c) for c in p.hand] for p in state.players},
        "scores": scored["scores"],
        "totals": {p.name: p.score for p in state.players},
    }
