import pytest

from games.engine import Rules, parse_played
from games.engine.melds import (
    Meld,
    MeldError,
    build_meld,
    extend_meld,
    run_from_listing,
    run_start,
)
from games.engine.scoring import meld_points

OPTS = {"wraps": False, "distinct": True, "max_set": 4, "min_naturals": 1}


def meld(*cards: str, **opts: object) -> Meld:
    return build_meld([parse_played(c) for c in cards], 0, 1, **{**OPTS, **opts})  # type: ignore[arg-type]


def lay(m: Meld, *cards: str, **opts: object) -> Meld:
    return extend_meld(m, [parse_played(c) for c in cards], 1, **{**OPTS, **opts})  # type: ignore[arg-type]


def names(m: Meld) -> list[str]:
    return [("*" if t.card.rank == 0 else "") + str(t.stands) for t in m.cards]


def test_run_sorted_low_to_high_and_set_in_order_played() -> None:
    assert names(meld("8S", "6S", "7S")) == ["6S", "7S", "8S"]
    s = meld("9D", "9S", "9H")
    assert s.kind == "set" and names(s) == ["9D", "9S", "9H"]


def test_ace_high_or_low_never_both() -> None:
    assert meld("AH", "2H", "3H").start == 1
    assert names(meld("AH", "KH", "QH")) == ["QH", "KH", "AH"]
    with pytest.raises(MeldError):
        meld("KH", "AH", "2H")
    wrapped = meld("KH", "AH", "2H", wraps=True)
    assert names(wrapped) == ["KH", "AH", "2H"]


def test_rule_text_scores_a23_6_and_qka_35() -> None:
    assert meld_points(Rules(), meld("AH", "2H", "3H")) == {0: 6}
    assert meld_points(Rules(), meld("QH", "KH", "AH")) == {0: 35}
    assert meld_points(Rules(values="five_ten"), meld("AH", "2H", "3H")) == {0: 15}
    assert meld_points(Rules(values="low5_high10"), meld("AH", "2H", "3H")) == {0: 25}
    assert meld_points(Rules(), meld("KH", "AH", "2H", wraps=True)) == {0: 27}


def test_joker_declared_card_fixes_the_run() -> None:
    run = meld("6S", "7S", "*8S")
    assert names(lay(run, "9S")) == ["6S", "7S", "*8S", "9S"]
    assert names(lay(run, "5S"))[0] == "5S"
    with pytest.raises(MeldError):
        lay(run, "8S")
    with pytest.raises(MeldError):
        lay(run, "10S")
    assert meld_points(Rules(), run) == {0: 28}


def test_set_of_four_refuses_a_fifth_even_with_two_decks() -> None:
    s = meld("5S", "5H", "5D", "5C")
    with pytest.raises(MeldError):
        lay(s, "5S", max_set=4)
    with pytest.raises(MeldError):
        meld("5S", "5S", "5H")
    loose = meld("5S", "5S", "5H", distinct=False, max_set=8)
    assert len(lay(loose, "5S", distinct=False, max_set=8).cards) == 4


def test_lay_off_both_ends_and_remember_who() -> None:
    run = lay(meld("6S", "7S", "8S"), "5S", "9S")
    assert names(run) == ["5S", "6S", "7S", "8S", "9S"]
    assert [t.by for t in run.cards] == [1, 0, 0, 0, 1]
    with pytest.raises(MeldError):
        lay(meld("6S", "7S", "8S"), "6H")
    with pytest.raises(MeldError):
        lay(meld("6S", "7S", "8S"), "4S")


@pytest.mark.parametrize(
    "cards",
    [
        ("5S", "6S"),
        ("5S", "6H", "7S"),
        ("5S", "7S", "8S"),
        ("5S", "5H", "6S"),
        ("*5S", "*6S", "*7S"),
    ],
)
def test_invalid_melds(cards: tuple[str, ...]) -> None:
    with pytest.raises(MeldError):
        meld(*cards)


def test_min_naturals_counts_the_whole_meld() -> None:
    assert meld("*5S", "*6S", "7S").kind == "run"
    with pytest.raises(MeldError):
        meld("*5S", "6S", "*7S", min_naturals=2)
    with pytest.raises(MeldError):
        lay(meld("5S", "6S", "7S", min_naturals=3), "*8S", min_naturals=4)
    assert meld("*5S", "*6S", "*7S", min_naturals=0).kind == "run"


def test_thirteen_card_run_puts_ace_high_and_layoff_keeps_position() -> None:
    full = meld(
        *[f"{r}D" for r in ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")]
    )
    assert full.start == 2 and names(full)[-1] == "AD"
    low = meld("AD", "2D", "3D", "4D", "5D", "6D", "7D", "8D", "9D", "10D", "JD", "QD")
    assert lay(low, "KD").start == 1


def test_run_helpers() -> None:
    assert run_start([12, 13, 1], False) == 12
    assert run_start([1, 2, 4], False) is None
    assert run_from_listing([parse_played(c)[1] for c in ("QS", "KS", "AS")], False) == 12
    assert run_from_listing([parse_played(c)[1] for c in ("KS", "AS", "2S")], False) is None
