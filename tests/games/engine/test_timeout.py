from collections.abc import Callable

from games.engine import Rules, apply, apply_timeout, new_game, timeout_action
from games.engine.actions import Discard, Draw, MeldAction
from games.engine.state import GameState

Build = Callable[..., GameState]


def test_timeout_draws_and_discards_the_drawn_card(make: Build) -> None:
    g = make({"ann": ["5S", "KD"], "bob": ["3H"]}, stock=["9C", "2D"])
    acts = timeout_action(g)
    assert [a.to_dict() for a in acts] == [
        {"type": "draw", "source": "stock"},
        {"type": "discard", "card": "9C"},
    ]
    t = apply_timeout(g)
    assert t.state.players[0].timeouts == 1 and t.state.turn == 1
    assert t.events[-1].type == "timeout"


def test_timeout_melds_a_pending_required_card_then_discards_highest(make: Build) -> None:
    g = make({"ann": ["4S", "4D", "2C", "KD"], "bob": ["3H"]}, discard=["9D", "4H", "8C"])
    s = apply(g, "ann", {"type": "draw", "source": "discard", "count": 2}).state
    acts = timeout_action(s)
    assert isinstance(acts[0], MeldAction) and isinstance(acts[1], Discard)
    assert str(acts[1].card) == "KD"


def test_absent_after_max_timeouts_and_abandoned_game() -> None:
    g = new_game(Rules(max_timeouts=2), ["ann", "bob"], seed="1")
    for _ in range(4):
        g = apply_timeout(g).state
    assert all(p.absent for p in g.players)
    assert g.phase == "game_over" and g.ended == "abandoned"
    g2 = new_game(Rules(max_timeouts=2), ["ann", "bob"], seed="1")
    g2 = apply_timeout(apply_timeout(g2).state).state
    g2 = apply_timeout(g2).state
    assert g2.players[0].absent and not g2.players[1].absent
    s = apply(g2, "bob", {"type": "draw", "source": "stock"}).state
    assert s.players[1].timeouts == 0
    assert isinstance(timeout_action(s)[0], Discard)
    assert isinstance(timeout_action(g2)[0], Draw)
