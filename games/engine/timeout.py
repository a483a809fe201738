"""Timeout play and absence.

``timeout_action`` gives what the server plays for the player to move: in ``draw``, a draw from
the stock; then, if a required card is pending, the first meld or lay-off the pickup check finds;
then a discard of the card drawn from the stock this turn when it may be discarded, else the
highest-valued card that may be discarded (the first such in hand order on a tie).
``apply_timeout`` plays them, adds one to the player's ``timeouts`` and marks them ``absent`` at
``max_timeouts``. If every player is then absent, the game ends as abandoned (``winner`` the sole
leader, or null on a tie). Any action of an absent player brings them back (``apply`` resets the
count); ``mark_back`` does it for a player who asks to be back without acting, since an absent
player's turns are played at once and would otherwise never wait for them.
"""

from __future__ import annotations

from dataclasses import replace

from .actions import Action, Discard, Draw, DrawSource
from .engine import Transition, apply, may_discard
from .errors import NOT_SEATED, IllegalAction
from .events import Event, EventType
from .scoring import card_value
from .search import required_play
from .state import Ended, GameState, Phase


def _next_step(state: GameState) -> Action | None:
    if state.turn is None:
        return None
    if state.phase == Phase.DRAW:
        return Draw(DrawSource.STOCK)
    if state.phase != Phase.PLAY:
        return None
    hand, rules = state.players[state.turn].hand, state.rules
    if state.required is not None:
        layoff = len(state.taken) == 1 or not rules.deep_pickup_new_meld
        return required_play(
            state.required,
            hand,
            state.melds,
            rules,
            state.decks,
            layoff=layoff,
            keep_one=rules.must_discard_to_go_out,
        )
    if state.drawn is not None and state.drawn in hand and may_discard(state, hand, state.drawn):
        return Discard(state.drawn)
    allowed = [c for c in hand if may_discard(state, hand, c)]
    return Discard(max(allowed, key=lambda c: card_value(rules, c)))


def _play(state: GameState) -> tuple[list[Action], Transition]:
    """Play the timeout actions; returns them and the combined transition."""
    actions: list[Action] = []
    events: list[Event] = []
    turn = state.turn
    current = state
    while current.turn == turn and len(actions) < 3:
        step = _next_step(current)
        if step is None:
            break
        actions.append(step)
        t = apply(current, current.players[turn or 0].name, step)
        current, events = t.state, events + list(t.events)
        if isinstance(step, Discard):
            break
    return actions, Transition(current, tuple(events))


def timeout_action(state: GameState) -> list[Action]:
    """The actions the server plays when the player to move runs out of time.

    >>> from games.engine.state import new_game
    >>> from games.engine.rules import Rules
    >>> acts = timeout_action(new_game(Rules(), ["ann", "bob"], seed="7"))
    >>> [a.to_dict()["type"] for a in acts]
    ['draw', 'discard']
    """
    return _play(state)[0]


def apply_timeout(state: GameState) -> Transition:
    """Play the turn of the player to move on timeout, with the timeouts/absent bookkeeping.

    >>> from games.engine.state import new_game
    >>> from games.engine.rules import Rules
    >>> t = apply_timeout(new_game(Rules(), ["ann", "bob"], seed="7"))
    >>> t.state.players[0].timeouts, t.state.turn
    (1, 1)

    :raises ValueError: nobody is to move (the hand or the game is over).
    """
    seat = state.turn
    if seat is None or state.phase not in (Phase.DRAW, Phase.PLAY):
        raise ValueError("no player is to move")
    _, t = _play(state)
    before = state.players[seat]
    count = before.timeouts + 1
    absent = before.absent or count >= state.rules.max_timeouts
    new = t.state.with_player(seat, replace(t.state.players[seat], timeouts=count, absent=absent))
    events = [
        *t.events,
        Event(EventType.TIMEOUT, before.name, {"timeouts": count, "absent": absent}),
    ]
    if all(p.absent for p in new.players) and new.phase != Phase.GAME_OVER:
        new = _abandon(new)
        winner = None if new.winner is None else new.names[new.winner]
        events.append(
            Event(EventType.GAME_ENDED, winner, {"winner": winner, "ended": Ended.ABANDONED.value})
        )
    return Transition(new, tuple(events))


def _abandon(state: GameState) -> GameState:
    scores = [p.score for p in state.players]
    best = max(scores)
    winner = scores.index(best) if scores.count(best) == 1 else None
    return replace(
        state,
        phase=Phase.GAME_OVER,
        turn=None,
        winner=winner,
        ended=Ended.ABANDONED,
        required=None,
        drawn=None,
        taken=(),
        last_discard_by=None,
        claimed=False,
    )


def mark_back(state: GameState, player: str) -> Transition:
    """``player`` is back: their timeout count is cleared and their turns wait for them again.

    A player who is not absent is unchanged (no events).

    >>> from games.engine.state import new_game
    >>> from games.engine.rules import Rules
    >>> g = new_game(Rules(max_timeouts=1), ["ann", "bob"], seed="7")
    >>> gone = apply_timeout(g).state
    >>> gone.players[0].absent, mark_back(gone, "ann").state.players[0].absent
    (True, False)

    :raises IllegalAction: ``not_seated`` for a name not at the table.
    """
    seat = state.seat_of(player)
    if seat is None:
        raise IllegalAction(NOT_SEATED, f"{player!r} is not seated at this table")
    before = state.players[seat]
    if not before.absent and not before.timeouts:
        return Transition(state, ())
    new = state.with_player(seat, replace(before, timeouts=0, absent=False))
    return Transition(new, (Event(EventType.BACK, before.name, {}),))


def mark_absent(state: GameState, player: str) -> Transition:
    """``player`` has left the game for good (an organizer withdrew them): they are absent from
    now on, so their turns are played at once, and if nobody present is left the game ends as
    abandoned. Someone already absent is unchanged (no events).

    >>> from games.engine.state import new_game
    >>> from games.engine.rules import Rules
    >>> t = mark_absent(new_game(Rules(), ["ann", "bob", "cid"], seed="7"), "bob")
    >>> t.state.players[1].absent, [e.type for e in t.events]
    (True, [<EventType.ABSENT: 'absent'>])

    :raises IllegalAction: ``not_seated`` for a name not at the table.
    """
    seat = state.seat_of(player)
    if seat is None:
        raise IllegalAction(NOT_SEATED, f"{player!r} is not seated at this table")
    before = state.players[seat]
    if before.absent or state.phase == Phase.GAME_OVER:
        return Transition(state, ())
    new = state.with_player(seat, replace(before, absent=True))
    events = [Event(EventType.ABSENT, before.name, {})]
    if all(p.absent for p in new.players):
        new = _abandon(new)
        winner = None if new.winner is None else new.names[new.winner]
        events.append(
            Event(EventType.GAME_ENDED, winner, {"winner": winner, "ended": Ended.ABANDONED.value})
        )
    return Transition(new, tuple(events))
