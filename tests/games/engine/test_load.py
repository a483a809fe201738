import pytest

from games.engine import Rules, StateError, full_state, new_game, state_from_dict


def base() -> dict[str, object]:
    return {
        "players": [{"name": "ann", "hand": ["AS", "2S"]}, {"name": "bob", "hand": ["3S"]}],
        "turn": "ann",
        "phase": "draw",
        "stock": ["4S"],
        "discard": ["5S"],
    }


def test_defaults_and_round_trip() -> None:
    s = state_from_dict(base())
    assert s.dealer == 1 and s.hand_number == 1 and s.players[0].score == 0
    assert state_from_dict(full_state(s)) == s
    g = new_game(Rules(), ["a", "b", "c", "d", "e"], seed="x")
    assert state_from_dict(full_state(g)) == g


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"turn": "zed"}, "turn"),
        ({"phase": "dance"}, "phase"),
        ({"stock": ["AS", "AS"]}, "AS appears"),
        ({"discard": ["x"]}, "discard"),
        ({"colour": 1}, "unknown key"),
        ({"required": "4S"}, "required"),
        ({"winner": "ann"}, "winner"),
        ({"melds": [{"id": 1, "kind": "run", "cards": [{"card": "9S", "by": "ann"}]}]}, "melds[0]"),
        (
            {
                "melds": [
                    {
                        "id": 1,
                        "kind": "set",
                        "cards": [{"card": c, "by": "ann"} for c in ("7S", "8S", "9S")],
                    }
                ]
            },
            "melds[0]",
        ),
        (
            {
                "melds": [
                    {
                        "id": 1,
                        "kind": "run",
                        "cards": [{"card": c, "by": "ann"} for c in ("9S", "8S", "7S")],
                    }
                ]
            },
            "low to high",
        ),
        (
            {
                "melds": [
                    {
                        "id": 1,
                        "kind": "run",
                        "cards": [{"card": c, "by": "zed"} for c in ("7S", "8S", "9S")],
                    }
                ]
            },
            "by",
        ),
        ({"rules": {"target": -1}}, "target"),
        ({"players": [{"name": "ann", "hand": []}]}, "2 to 8"),
    ],
)
def test_inconsistent_states_are_named(change: dict[str, object], words: str) -> None:
    with pytest.raises(StateError, match=words.replace("[", r"\[").replace("]", r"\]")):
        state_from_dict({**base(), **change})


def test_joker_melds_load() -> None:
    d = {
        **base(),
        "melds": [
            {
                "id": 3,
                "kind": "run",
                "cards": [
                    {"card": "6H", "by": "ann"},
                    {"card": "7H", "by": "bob"},
                    {"card": "*", "as": "8H", "by": "ann"},
                ],
            }
        ],
    }
    s = state_from_dict(d)
    assert s.next_meld_id() == 4 and full_state(s)["melds"] == d["melds"]


def test_hand_scores_must_be_whole_numbers_not_booleans() -> None:
    from games.engine.errors import StateError
    from games.engine.load import state_from_dict

    scores = {"ann": {"melded": True, "in_hand": 0}, "bob": {"melded": 0, "in_hand": 0}}
    state = {
        "players": [{"name": "ann", "hand": ["5H"]}, {"name": "bob", "hand": ["2D"]}],
        "turn": "ann",
        "phase": "draw",
        "stock": ["9S"],
        "discard": ["8C"],
        "hands": [{"number": 1, "went_out": None, "scores": scores}],
    }
    with pytest.raises(StateError, match="melded and in_hand"):
        state_from_dict(state)
