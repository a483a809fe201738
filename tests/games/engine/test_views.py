import json

from games.engine import Rules, apply, full_state, new_game, player_view, public_view


def test_full_state_shape() -> None:
    g = new_game(Rules(), ["ann", "bob", "cid"], seed="7")
    d = full_state(g)
    assert list(d)[:12] == [
        "rules",
        "players",
        "dealer",
        "turn",
        "phase",
        "required",
        "stock",
        "discard",
        "melds",
        "hand_number",
        "hands",
        "winner",
    ]
    assert d["dealer"] == "cid" and d["turn"] == "ann" and d["phase"] == "draw"
    assert d["players"][0] == {
        "name": "ann",
        "hand": d["players"][0]["hand"],
        "score": 0,
        "timeouts": 0,
        "absent": False,
    }
    assert len(d["stock"]) == 54 - 21 - 1 and len(d["discard"]) == 1
    json.dumps(d)


def test_views_hide_hidden_cards() -> None:
    g = new_game(Rules(), ["ann", "bob"], seed="7")
    g = apply(g, "ann", {"type": "draw", "source": "stock"}).state
    full = full_state(g)
    ann = player_view(g, "ann")
    bob = player_view(g, "bob")
    pub = public_view(g)
    assert ann["you"] == "ann" and ann["players"][0]["hand"] == full["players"][0]["hand"]
    assert ann["players"][1]["hand"] == 13 and ann["stock"] == len(full["stock"])
    assert ann["drawn"] == full["drawn"] and "drawn" not in bob and "drawn" not in pub
    assert "seed" not in ann and "seed" not in pub
    assert pub["players"][0]["hand"] == 14 and pub["players"][1]["hand"] == 13
    assert bob["players"][0]["hand"] == 14
    assert "you" not in pub


def test_meld_view_shows_jokers_as_declared() -> None:
    g = new_game(
        Rules(),
        ["ann", "bob"],
        deck=[
            "5S",
            "2C",
            "6S",
            "3C",
            "*",
            "4C",
            "KD",
            "9H",
            "QH",
            "10H",
            "JH",
            "8D",
            "7D",
            "AC",
            "KS",
            "2D",
            "QS",
            "3D",
            "JS",
            "4D",
            "10S",
            "5D",
            "9S",
            "6D",
            "8S",
            "7H",
            "2H",
            "3H",
        ],
    )
    g = apply(g, "ann", {"type": "draw", "source": "stock"}).state
    g = apply(g, "ann", {"type": "meld", "cards": ["5S", "6S", "*7S"]}).state
    melds = full_state(g)["melds"]
    assert melds == [
        {
            "id": 1,
            "kind": "run",
            "cards": [
                {"card": "5S", "by": "ann"},
                {"card": "6S", "by": "ann"},
                {"card": "*", "as": "7S", "by": "ann"},
            ],
        }
    ]
