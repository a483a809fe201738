import pytest

from games.engine import PRESETS, ConfigError, Rules, rules_summary


def test_defaults_as_written() -> None:
    r = Rules()
    assert r.to_dict() == {
        "values": "pip",
        "low_ace": 1,
        "jokers_per_deck": 2,
        "two_decks_from": 5,
        "hand_size_two": 13,
        "hand_size": 7,
        "hand_size_five_plus": None,
        "set_distinct_suits": True,
        "run_wraps": False,
        "min_naturals": 1,
        "no_rediscard_top": True,
        "stock_out": "end",
        "target": 500,
        "must_discard_to_go_out": False,
        "top_discard_must_meld": False,
        "deep_pickup_new_meld": False,
        "rummy_call": False,
        "winner_must_go_out": False,
        "turn_seconds": 60,
        "time_bank_seconds": 0,
        "max_timeouts": 3,
    }


def test_presets() -> None:
    assert set(PRESETS) == {
        "standard",
        "no-jokers",
        "five-ten-fifteen",
        "six-deal",
        "reshuffle-classic",
        "strict-club",
    }
    assert Rules.preset("standard") == Rules()
    assert Rules.preset("six-deal").hand_size_five_plus == 6
    rc = Rules.preset("reshuffle-classic")
    assert (rc.values, rc.jokers_per_deck, rc.two_decks_from, rc.stock_out) == (
        "low5_high10",
        0,
        6,
        "reshuffle",
    )
    sc = Rules.preset("strict-club")
    assert sc.must_discard_to_go_out and sc.top_discard_must_meld and sc.rummy_call
    with pytest.raises(ConfigError, match="preset"):
        Rules.preset("nope")


def test_from_dict_preset_plus_overrides_round_trips() -> None:
    r = Rules.from_dict({"preset": "five-ten-fifteen", "target": 300, "run_wraps": True})
    assert (r.values, r.target, r.run_wraps) == ("five_ten", 300, True)
    assert Rules.from_dict(r.to_dict()) == r


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"colour": 1}, "colour"),
        ({"target": 0}, "target"),
        ({"target": "500"}, "target"),
        ({"target": True}, "target"),
        ({"jokers_per_deck": 3}, "jokers_per_deck"),
        ({"two_decks_from": 1}, "two_decks_from"),
        ({"two_decks_from": 10}, "two_decks_from"),
        ({"hand_size": 0}, "hand_size"),
        ({"hand_size_five_plus": 0}, "hand_size_five_plus"),
        ({"values": "pips"}, "values"),
        ({"stock_out": "stop"}, "stock_out"),
        ({"run_wraps": 1}, "run_wraps"),
        ({"min_naturals": 4}, "min_naturals"),
        ({"max_timeouts": 0}, "max_timeouts"),
        ({"time_bank_seconds": -1}, "time_bank_seconds"),
        ({"preset": 5}, "preset"),
        ([], "rules"),
    ],
)
def test_refused_configurations_name_the_field(data: object, field: str) -> None:
    with pytest.raises(ConfigError) as err:
        Rules.from_dict(data)
    assert err.value.field == field
    assert str(err.value).startswith(field)


def test_deal_checks_need_player_count() -> None:
    Rules().check_players(8)
    with pytest.raises(ConfigError) as err:
        Rules(two_decks_from=9).check_players(8)
    assert err.value.field == "hand_size"
    with pytest.raises(ConfigError) as err:
        Rules(hand_size_two=27).check_players(2)
    assert err.value.field == "hand_size_two"
    with pytest.raises(ConfigError) as err:
        Rules(hand_size_five_plus=30).check_players(5)
    assert err.value.field == "hand_size_five_plus"
    with pytest.raises(ConfigError):
        Rules().check_players(1)
    with pytest.raises(ConfigError):
        Rules().check_players(9)


def test_decks_and_hand_sizes() -> None:
    r = Rules(hand_size_five_plus=6)
    assert [r.decks_for(n) for n in (2, 4, 5, 8)] == [1, 1, 2, 2]
    assert [r.hand_size_for(n) for n in (2, 3, 4, 5, 8)] == [13, 7, 7, 6, 6]


def test_summary_is_plain_english() -> None:
    text = " ".join(rules_summary(Rules.preset("strict-club")))
    assert "500 points" in text and "Rummy!" in text and "final discard" in text
    assert "reshuffled" in " ".join(rules_summary(Rules.preset("reshuffle-classic")))
    assert all(s.endswith(".") for s in rules_summary(Rules()))
