from collections.abc import Callable

import pytest

from games.engine import IllegalAction, InvalidAction, Rules, apply, new_game, parse_action
from games.engine.state import GameState

Build = Callable[..., GameState]


def code(state: GameState, player: str, action: dict[str, object]) -> str:
    with pytest.raises((IllegalAction, InvalidAction)) as err:
        apply(state, player, action)
    return err.value.code


DRAW = {"type": "draw", "source": "stock"}


def test_check_order_and_basic_codes(make: Build) -> None:
    g = make({"ann": ["5S", "6S", "7S", "KD"], "bob": ["3H", "9C", "2D"]})
    assert code(g, "bob", {"type": "discard", "card": "kd"}) == "bad_request"
    assert code(g, "zed", DRAW) == "not_seated"
    assert code(g, "bob", DRAW) == "not_your_turn"
    assert code(g, "ann", {"type": "discard", "card": "KD"}) == "wrong_phase"
    assert code(g, "ann", {"type": "draw", "source": "discard", "count": 0}) == "bad_request"
    assert code(g, "ann", {"type": "draw", "source": "discard", "count": 2}) == "bad_request"
    g = apply(g, "ann", DRAW).state
    assert code(g, "ann", DRAW) == "wrong_phase"
    assert code(g, "ann", {"type": "discard", "card": "AS"}) == "not_in_hand"
    assert code(g, "ann", {"type": "meld", "cards": ["5S", "6S", "KD"]}) == "invalid_meld"
    assert code(g, "ann", {"type": "meld", "cards": ["5S", "6S", "*"]}) == "bad_request"
    assert code(g, "ann", {"type": "layoff", "meld": 9, "cards": ["KD"]}) == "unknown_meld"
    g = apply(g, "ann", {"type": "meld", "cards": ["5S", "6S", "7S"]}).state
    assert code(g, "ann", {"type": "layoff", "meld": 1, "cards": ["KD"]}) == "invalid_layoff"


def test_rule_text_pickup_brings_the_cards_above(make: Build) -> None:
    g = make(
        {"ann": ["4S", "4D", "KC"], "bob": ["2H", "3H", "9C"]},
        discard=["JC", "5D", "7S", "4H", "8C"],
    )
    t = apply(g, "ann", {"type": "draw", "source": "discard", "count": 2})
    s = t.state
    assert [str(c) for c in s.players[0].hand] == ["4S", "4D", "KC", "4H", "8C"]
    assert [str(c) for c in s.discard] == ["JC", "5D", "7S"] and str(s.required) == "4H"
    assert t.events[0].data["cards"] == ["4H", "8C"]
    assert code(s, "ann", {"type": "discard", "card": "8C"}) == "required_card_pending"
    s = apply(s, "ann", {"type": "meld", "cards": ["4S", "4D", "4H"]}).state
    assert s.required is None
    s = apply(s, "ann", {"type": "discard", "card": "8C"}).state
    assert s.phase == "draw" and s.turn == 1
    assert (
        code(g, "ann", {"type": "draw", "source": "discard", "count": 4}) == "pickup_not_meldable"
    )


def test_rediscard_top_and_must_keep(make: Build) -> None:
    g = make({"ann": ["5S", "6S", "7S", "KD"], "bob": ["3H", "9C", "2D"]}, discard=["9D", "QC"])
    s = apply(g, "ann", {"type": "draw", "source": "discard", "count": 1}).state
    assert code(s, "ann", {"type": "discard", "card": "QC"}) == "cannot_discard_taken_card"
    s2 = apply(s, "ann", {"type": "meld", "cards": ["5S", "6S", "7S"]}).state
    assert code(s2, "ann", {"type": "layoff", "meld": 1, "cards": ["KD"]}) == "invalid_layoff"
    g2 = make({"ann": ["5S", "6S", "7S"], "bob": ["3H", "9C", "2D"]}, discard=["9D", "QC"])
    s = apply(g2, "ann", {"type": "draw", "source": "discard", "count": 1}).state
    assert code(s, "ann", {"type": "meld", "cards": ["5S", "6S", "7S"]}) == "must_keep_discard"
    off = make(
        {"ann": ["5S", "6S", "7S", "KD"], "bob": ["3H"]},
        discard=["QC"],
        rules={"no_rediscard_top": False},
    )
    s = apply(off, "ann", {"type": "draw", "source": "discard", "count": 1}).state
    assert apply(s, "ann", {"type": "discard", "card": "QC"}).state.turn == 1


def test_going_out_by_meld_and_by_discard(make: Build) -> None:
    g = make({"ann": ["5S", "6S"], "bob": ["3H", "9C"]}, stock=["7S", "2C"])
    s = apply(g, "ann", DRAW).state
    t = apply(s, "ann", {"type": "meld", "cards": ["5S", "6S", "7S"]})
    assert t.state.phase == "hand_over" and t.state.hands[-1].went_out == 0
    assert [e.type for e in t.events] == ["melded", "hand_ended"]
    assert t.state.players[0].score == 18 and t.state.players[1].score == -12
    strict = make(
        {"ann": ["5S", "6S"], "bob": ["3H", "9C"]},
        stock=["7S", "2C"],
        rules={"must_discard_to_go_out": True},
    )
    s = apply(strict, "ann", DRAW).state
    assert code(s, "ann", {"type": "meld", "cards": ["5S", "6S", "7S"]}) == "must_keep_discard"
    g = make({"ann": ["5S", "6S", "KD"], "bob": ["3H", "9C"]}, stock=["7S", "2C"])
    s = apply(
        apply(g, "ann", DRAW).state, "ann", {"type": "meld", "cards": ["5S", "6S", "7S"]}
    ).state
    t = apply(s, "ann", {"type": "discard", "card": "KD"})
    assert t.state.phase == "hand_over" and t.state.hands[-1].went_out == 0
    assert [str(c) for c in t.state.discard][-1] == "KD"


def test_stock_out_end_and_reshuffle(make: Build) -> None:
    g = make({"ann": ["5S", "KD"], "bob": ["3H", "9C"]}, stock=[], discard=["2C", "4C", "QH"])
    t = apply(g, "ann", DRAW)
    assert t.state.phase == "hand_over" and t.state.hands[-1].went_out is None
    r = make(
        {"ann": ["5S", "KD"], "bob": ["3H", "9C"]},
        stock=[],
        discard=["2C", "4C", "QH"],
        rules={"stock_out": "reshuffle"},
        seed="s",
    )
    t = apply(r, "ann", DRAW)
    assert [e.type for e in t.events] == ["reshuffled", "drew"]
    s = t.state
    assert [str(c) for c in s.discard] == ["QH"] and len(s.stock) == 1 and s.reshuffles == 1
    assert sorted(str(c) for c in (*s.stock, s.drawn)) == ["2C", "4C"]


def test_top_discard_must_meld_and_deep_pickup_new_meld(make: Build) -> None:
    hands = {"ann": ["5S", "6S", "KD"], "bob": ["3H", "9C"]}
    g = make(hands, discard=["QC", "7S"], rules={"top_discard_must_meld": True})
    s = apply(g, "ann", {"type": "draw", "source": "discard", "count": 1}).state
    assert str(s.required) == "7S"
    g = make(hands, discard=["QC", "KH"], rules={"top_discard_must_meld": True})
    assert (
        code(g, "ann", {"type": "draw", "source": "discard", "count": 1}) == "pickup_not_meldable"
    )
    melds = [
        {"id": 1, "kind": "run", "cards": [{"card": c, "by": "bob"} for c in ("8H", "9H", "10H")]}
    ]
    g = make({"ann": ["5S", "KD"], "bob": ["3H"]}, discard=["JH", "2C"], melds=melds)
    assert apply(g, "ann", {"type": "draw", "source": "discard", "count": 2}).state.required
    g = make(
        {"ann": ["5S", "KD"], "bob": ["3H"]},
        discard=["JH", "2C"],
        melds=melds,
        rules={"deep_pickup_new_meld": True},
    )
    assert (
        code(g, "ann", {"type": "draw", "source": "discard", "count": 2}) == "pickup_not_meldable"
    )


def test_required_card_cannot_be_stranded(make: Build) -> None:
    g = make({"ann": ["4S", "4D", "5S", "6S"], "bob": ["3H"]}, discard=["2C", "4H", "9D"])
    s = apply(g, "ann", {"type": "draw", "source": "discard", "count": 2}).state
    stranding = {"type": "meld", "cards": ["4S", "5S", "6S"]}
    assert code(s, "ann", stranding) == "required_card_pending"
    s = apply(s, "ann", {"type": "meld", "cards": ["4S", "4D", "4H"]}).state
    assert s.required is None


def test_rummy_call(make: Build) -> None:
    rules = {"rummy_call": True}
    hands = {"ann": ["5H", "6H", "KD", "2C"], "bob": ["9S", "3D"], "cid": ["8D", "QC"]}
    g = make(hands, discard=["4H"], stock=["AS", "2S"], rules=rules)
    claim = {"type": "rummy", "count": 1, "melds": [{"cards": ["4H", "5H", "6H"]}]}
    assert code(g, "bob", claim) == "no_rummy"  # no window at the start of a hand
    s = apply(apply(g, "ann", DRAW).state, "ann", {"type": "discard", "card": "KD"}).state
    assert code(s, "ann", {"type": "rummy", "count": 1, "layoffs": []}) == "no_rummy"
    assert code(s, "cid", {"type": "rummy", "count": 2, "melds": []}) == "no_rummy"
    assert code(make(hands, rules={}), "bob", claim) == "no_rummy"
    assert code(s, "bob", {"type": "rummy", "count": 9}) == "bad_request"


def test_apply_accepts_action_objects_and_never_mutates() -> None:
    g = new_game(Rules(), ["ann", "bob"], seed="3")
    before = repr(g)
    apply(g, "ann", parse_action(DRAW))
    with pytest.raises(IllegalAction):
        apply(g, "ann", {"type": "discard", "card": "AS"})
    assert repr(g) == before


def test_game_over_and_hand_over_codes(make: Build) -> None:
    over = make({"ann": ["5S"], "bob": ["3H"]}, phase="game_over", winner="ann")
    assert code(over, "ann", DRAW) == "game_over"
    assert code(over, "bob", {"type": "rummy", "count": 1, "melds": []}) == "game_over"
    done = make({"ann": ["5S"], "bob": ["3H"]}, phase="hand_over")
    assert code(done, "ann", DRAW) == "wrong_phase"


def test_timeouts_reset_by_own_action(make: Build) -> None:
    g = make({"ann": ["5S", "KD"], "bob": ["3H"]})
    g = g.with_player(0, g.players[0].__class__("ann", g.players[0].hand, 0, 2, True))
    s = apply(g, "ann", DRAW).state
    assert (s.players[0].timeouts, s.players[0].absent) == (0, False)


def test_required_top_card_with_own_duplicate_is_never_stuck() -> None:
    """Two decks, ``top_discard_must_meld``: after laying off the taken 5H the player's own 5H
    may go (the server's timeout play and the suggestions find the way out too)."""
    from games.engine.legal import legal_actions
    from games.engine.load import state_from_dict
    from games.engine.timeout import timeout_action
    from games.engine.views import full_state

    run = [{"card": c, "by": "b"} for c in ("2H", "3H", "4H")]
    hands = [["5H"], ["2D"], ["3D"], ["4D"], ["6D"]]
    state = state_from_dict(
        {
            "players": [{"name": n, "hand": h} for n, h in zip("abcde", hands, strict=True)],
            "turn": "a",
            "phase": "draw",
            "stock": ["9C"],
            "discard": ["8C", "5H"],
            "melds": [{"id": 1, "kind": "run", "cards": run}],
        },
        Rules(top_discard_must_meld=True),
    )
    state = apply(state, "a", {"type": "draw", "source": "discard", "count": 1}).state
    assert [a.to_dict()["type"] for a in timeout_action(state)] == ["layoff", "discard"]
    after = apply(state, "a", {"type": "layoff", "meld": 1, "cards": ["5H"]}).state
    assert [a.to_dict() for a in legal_actions(after, "a")] == [{"type": "discard", "card": "5H"}]
    assert apply(after, "a", {"type": "discard", "card": "5H"}).state.phase == "hand_over"
    assert full_state(after)["claimed"] is False


def test_claimed_marks_a_turn_begun_with_a_rummy_claim() -> None:
    from games.engine.load import state_from_dict
    from games.engine.views import full_state

    run = [{"card": c, "by": "b"} for c in ("2H", "3H", "4H")]
    state = state_from_dict(
        {
            "players": [{"name": "a", "hand": ["KC"]}, {"name": "b", "hand": ["6D", "5H"]}],
            "turn": "b",
            "phase": "play",
            "stock": ["9C"],
            "discard": ["8C"],
            "melds": [{"id": 1, "kind": "run", "cards": run}],
        },
        Rules(rummy_call=True),
    )
    state = apply(state, "b", {"type": "discard", "card": "5H"}).state
    claim = {"type": "rummy", "count": 1, "layoffs": [{"meld": 1, "cards": ["5H"]}]}
    claimed = apply(state, "a", claim).state
    assert claimed.claimed and full_state(claimed)["claimed"] is True
    assert state_from_dict(full_state(claimed)) == claimed
    assert not apply(claimed, "a", {"type": "discard", "card": "KC"}).state.claimed
    with pytest.raises(Exception, match="claimed"):
        state_from_dict({**full_state(state), "claimed": True})
