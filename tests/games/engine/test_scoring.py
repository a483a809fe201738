from collections.abc import Callable

import pytest

from games.engine import Rules, apply, card_value, hand_value, parse_card
from games.engine.scoring import Placement, placements, value_table, winner_after
from games.engine.state import GameState

Build = Callable[..., GameState]


@pytest.mark.parametrize(
    ("values", "cards", "total"),
    [
        ("pip", ["2S", "9H", "10D", "JC", "QS", "KH", "AS", "*"], 2 + 9 + 10 + 30 + 15 + 15),
        ("five_ten", ["2S", "9H", "10D", "JC", "QS", "KH", "AS", "*"], 10 + 40 + 30),
        ("low5_high10", ["2S", "5H", "6D", "9C", "10S", "AS", "*"], 10 + 20 + 10 + 30),
    ],
)
def test_hand_values(values: str, cards: list[str], total: int) -> None:
    assert hand_value(Rules(values=values), tuple(map(parse_card, cards))) == total


def test_low_ace_values() -> None:
    assert value_table("pip", 1)[1] == 1 and value_table("pip", 3)[1] == 3
    assert value_table("five_ten", 1)[1] == 5 and value_table("low5_high10", 1)[1] == 15
    assert card_value(Rules(low_ace=0), parse_card("AS")) == 15


def test_hand_score_is_melded_minus_in_hand(make: Build) -> None:
    g = make({"ann": ["AH", "2H", "KD"], "bob": ["QS", "*"]}, stock=["3H", "9C"])
    s = apply(g, "ann", {"type": "draw", "source": "stock"}).state
    s = apply(s, "ann", {"type": "meld", "cards": ["AH", "2H", "3H"]}).state
    s = apply(s, "ann", {"type": "discard", "card": "KD"}).state
    result = s.hands[-1]
    assert (result.scores[0].melded, result.scores[0].in_hand, result.scores[0].net) == (6, 0, 6)
    assert (result.scores[1].melded, result.scores[1].in_hand) == (0, 25)
    assert [p.score for p in s.players] == [6, -25]


def test_game_end_tie_and_winner_must_go_out(make: Build) -> None:
    g = make({"ann": ["5S"], "bob": ["3H"]}, phase="hand_over")
    tie = g.with_player(0, g.players[0].__class__("ann", (), 500)).with_player(
        1, g.players[1].__class__("bob", (), 500)
    )
    assert winner_after(tie, 0) is None
    lead = tie.with_player(1, tie.players[1].__class__("bob", (), 510))
    assert winner_after(lead, 0) == 1
    wmgo = make(
        {"ann": ["5S"], "bob": ["3H"]}, phase="hand_over", rules={"winner_must_go_out": True}
    )
    wmgo = wmgo.with_player(0, wmgo.players[0].__class__("ann", (), 505)).with_player(
        1, wmgo.players[1].__class__("bob", (), 600)
    )
    assert winner_after(wmgo, 0) == 0
    assert winner_after(wmgo, 1) == 1
    assert winner_after(wmgo, None) is None


def test_places_share_ties_in_seat_order() -> None:
    totals = {"ann": 60, "bob": 80, "cid": 60, "dan": -5}
    seats = ["dan", "cid", "bob", "ann"]
    assert placements([(name, totals[name]) for name in seats]) == [
        Placement("bob", 1, 80),
        Placement("cid", 2, 60),
        Placement("ann", 2, 60),
        Placement("dan", 4, -5),
    ]
    assert [p.place for p in placements([(name, 0) for name in seats])] == [1, 1, 1, 1]
