from collections.abc import Callable

from games.engine import IllegalAction, apply, legal_actions
from games.engine.actions import Discard, Draw, Layoff, MeldAction, Rummy
from games.engine.state import GameState

Build = Callable[..., GameState]


def test_draw_depths_follow_the_pickup_check(make: Build) -> None:
    g = make({"ann": ["4S", "4D", "KC"], "bob": ["2H"]}, discard=["JC", "5D", "7S", "4H", "8C"])
    draws = [a for a in legal_actions(g, "ann") if isinstance(a, Draw)]
    assert [(a.source, a.count) for a in draws] == [("stock", 0), ("discard", 1), ("discard", 2)]
    assert legal_actions(g, "bob") == [] and legal_actions(g, "zed") == []


def test_plays_are_all_legal_and_deduplicated(make: Build) -> None:
    g = make(
        {"ann": ["5S", "6S", "7S", "7S", "7H", "7D", "*", "KC"], "bob": ["2H"] * 1},
        phase="play",
        rules={"two_decks_from": 2},
    )
    acts = legal_actions(g, "ann")
    assert len(acts) == len(set(acts))
    assert (
        MeldAction(
            ((g.players[0].hand[0],) * 2, (g.players[0].hand[1],) * 2, (g.players[0].hand[2],) * 2)
        )
        in acts
    )
    assert sum(isinstance(a, Discard) for a in acts) == 7
    for a in acts:
        apply(g, "ann", a)


def test_layoffs_and_rummy_claims(make: Build) -> None:
    melds = [
        {"id": 1, "kind": "run", "cards": [{"card": c, "by": "bob"} for c in ("6S", "7S", "8S")]}
    ]
    g = make({"ann": ["9S", "2C"], "bob": ["3H"]}, phase="play", melds=melds)
    assert any(isinstance(a, Layoff) for a in legal_actions(g, "ann"))
    r = make(
        {"ann": ["9D", "2C"], "bob": ["3H", "4D"], "cid": ["KD", "KC"]},
        turn="bob",
        discard=["5S"],
        melds=melds,
        last_discard_by="ann",
        rules={"rummy_call": True},
    )
    claims = [a for a in legal_actions(r, "cid") if isinstance(a, Rummy)]
    assert claims and claims[0].count == 1
    apply(r, "cid", claims[0])
    assert not [a for a in legal_actions(r, "ann") if isinstance(a, Rummy)]


def test_no_discard_while_required_pending(make: Build) -> None:
    g = make({"ann": ["4S", "4D", "KC"], "bob": ["2H"]}, discard=["JC", "4H", "8C"])
    s = apply(g, "ann", {"type": "draw", "source": "discard", "count": 2}).state
    acts = legal_actions(s, "ann")
    assert acts and not any(isinstance(a, Discard) for a in acts)
    for a in acts:
        try:
            apply(s, "ann", a)
        except IllegalAction as exc:  # pragma: no cover - would be a bug
            raise AssertionError(a) from exc
