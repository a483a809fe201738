import pytest

from games.engine import JOKER, Card, InvalidAction, format_card, parse_card, parse_played
from games.engine.cards import ALL_CARDS, canonical_deck, copies_allowed, parse_cards


@pytest.mark.parametrize("text", ["AS", "10H", "QD", "2C", "KS", "*"])
def test_parse_format_round_trip(text: str) -> None:
    assert format_card(parse_card(text)) == text


@pytest.mark.parametrize(
    "text", ["as", "1S", "T0H", "10h", "11S", "*9S", "", " AS", "AS ", "A", "S", None, 5, "**"]
)
def test_malformed_cards_are_bad_request(text: object) -> None:
    with pytest.raises(InvalidAction) as err:
        parse_card(text)
    assert err.value.code == "bad_request"


def test_cards_are_interned() -> None:
    assert parse_card("7S") is parse_card("7S")
    assert parse_card("*") is JOKER
    assert len(set(ALL_CARDS)) == 53


def test_declared_joker() -> None:
    assert parse_played("*9S") == (JOKER, Card(9, "S"))
    assert parse_played("10H") == (Card(10, "H"), Card(10, "H"))


@pytest.mark.parametrize("text", ["*", "**", "*9s", "*1S", "9S*", "*10", None])
def test_bad_declared_jokers(text: object) -> None:
    with pytest.raises(InvalidAction):
        parse_played(text)


def test_parse_cards_needs_list() -> None:
    assert parse_cards(["AS", "*"]) == (Card(1, "S"), JOKER)
    with pytest.raises(InvalidAction):
        parse_cards("AS")


@pytest.mark.parametrize(
    ("decks", "jokers", "size"), [(1, 0, 52), (1, 2, 54), (2, 1, 106), (2, 2, 108)]
)
def test_canonical_deck(decks: int, jokers: int, size: int) -> None:
    deck = canonical_deck(decks, jokers)
    assert len(deck) == size
    assert [format_card(c) for c in deck[:3]] == ["AS", "2S", "3S"]
    assert format_card(deck[51]) == "KC"
    assert deck.count(JOKER) == decks * jokers
    assert copies_allowed(Card(5, "H"), decks, jokers) == decks
    assert copies_allowed(JOKER, decks, jokers) == decks * jokers
