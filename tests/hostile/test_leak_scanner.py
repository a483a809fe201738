"""The leak scanner of ``tests/hostile/leaks.py`` on engine games (no database): it finds a
planted secret wherever it is put, and lets through exactly what RULES.md makes public."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from games.engine.cards import format_card
from games.engine.engine import apply
from games.engine.rules import Rules
from games.engine.state import GameState, new_game
from games.engine.views import player_view, public_view
from tests.hostile.leaks import (
    Position,
    Received,
    TableTruth,
    leaks,
    move_card_strings,
    positions,
    text_card_strings,
    view_problems,
)

NAMES = ["ann", "bob", "cid"]
SEEDS = {1: "0123456789abcdef0123456789abcdef", 2: "fedcba9876543210fedcba9876543210"}


def game() -> GameState:
    return new_game(Rules(), NAMES, seed="scanner")


def hand(state: GameState, name: str) -> list[str]:
    seat = state.seat_of(name)
    assert seat is not None
    return [c for c in map(format_card, state.players[seat].hand) if c != "*"]


def truth_of(*states: GameState) -> dict[int, TableTruth]:
    return {1: TableTruth(1, positions(enumerate(states, start=1)), dict(SEEDS))}


def found(viewer: str | None, body: Any, version: int, truth: dict[int, TableTruth]) -> list[str]:
    return leaks(Received(viewer, "x", body, {1: version}), truth)


def test_the_views_show_nobody_a_secret() -> None:
    g = game()
    truth = truth_of(g)
    assert found(None, public_view(g), 1, truth) == []
    for name in NAMES:
        assert found(name, player_view(g, name), 1, truth) == []
        assert view_problems(player_view(g, name), name) == []


def test_another_players_view_shows_their_whole_hand() -> None:
    g = game()
    lines = found("bob", player_view(g, "ann"), 1, truth_of(g))
    assert lines == [f"x to bob: card {c}" for c in sorted(hand(g, "ann"))]
    assert view_problems(player_view(g, "ann"), "bob") == ["the view of ann sent to bob"]


def test_a_secret_is_found_in_any_field_unless_the_viewer_named_it() -> None:
    g = game()
    truth = truth_of(g)
    card, stock = hand(g, "bob")[0], format_card(g.stock[0])
    error = {"type": "error", "error": "not_in_hand", "message": f"you do not hold {card}"}
    assert found("ann", error, 1, truth) == [f"x to ann: card {card}"]
    named = Received("ann", "x", error, {1: 1}, named=frozenset([card]))
    assert leaks(named, truth) == []
    assert found(None, {"deep": [{stock: 1}]}, 1, truth) == [f"x to anonymous: card {stock}"]
    assert found("bob", error, 1, truth) == []  # bob's own card


def test_a_card_seen_taken_from_the_pile_stays_public_a_stock_draw_does_not() -> None:
    g1 = game()
    top = format_card(g1.discard[-1])
    g2 = apply(g1, "ann", {"type": "draw", "source": "discard", "count": 1}).state
    discard = next(c for c in hand(g2, "ann") if c != top)
    g3 = apply(g2, "ann", {"type": "discard", "card": discard}).state
    g4 = apply(g3, "bob", {"type": "draw", "source": "stock"}).state
    drawn = format_card(g3.stock[0])
    truth = truth_of(g1, g2, g3, g4)
    assert found("cid", {"note": top}, 1, truth) == []  # on the pile
    assert found("cid", {"note": top}, 4, truth) == []  # in ann's hand, seen taken
    assert found("cid", {"note": drawn}, 3, truth) == [f"x to cid: card {drawn}"]  # the stock
    assert found("cid", {"note": drawn}, 4, truth) == [f"x to cid: card {drawn}"]  # bob's
    assert found("bob", {"note": drawn}, 4, truth) == []


def test_a_jokers_declaration_names_no_card() -> None:
    g = game()
    card = hand(g, "bob")[0]
    meld = {"card": "*", "as": card, "by": "cid"}
    declared = {"melds": [{"cards": [meld]}], "legal": [{"type": "meld", "cards": [f"*{card}"]}]}
    assert found("ann", declared, 1, truth_of(g)) == []
    assert found("ann", {"melds": [{"cards": [{**meld, "card": card}]}]}, 1, truth_of(g))


def test_a_seed_is_secret_until_its_hand_is_over() -> None:
    g = game()
    running = truth_of(g)
    assert found(None, {"seed": SEEDS[1]}, 1, running) == [f"x to anonymous: seed {SEEDS[1]}"]
    assert found(None, {"later": SEEDS[2]}, 1, running) == [f"x to anonymous: seed {SEEDS[2]}"]
    over = replace(running[1].positions[1], over=True)
    done = {1: TableTruth(1, {1: over}, dict(SEEDS))}
    assert found(None, {"seed": SEEDS[1]}, 1, done) == []
    assert found(None, {"later": SEEDS[2]}, 1, done)


def test_a_log_row_is_read_at_its_version_and_all_of_it_once_the_game_is_over() -> None:
    g1 = game()
    g2 = apply(g1, "ann", {"type": "draw", "source": "stock"}).state
    drawn = format_card(g1.stock[0])
    rows = [{"version": 2, "events": [{"type": "drew", "player": "ann", "card": drawn}]}]
    truth = truth_of(g1, g2)
    log = Received(None, "log", rows, {1: 2}, log_of=1)
    assert leaks(log, truth) == [f"log to anonymous: card {drawn} (row 2)"]
    truth[1].positions[2] = replace(truth[1].positions[2], finished=True)
    assert leaks(log, truth) == []


def test_a_page_is_read_as_its_embedded_json_and_its_text() -> None:
    page = (
        '<p>10H on the pile</p><script id="table-data" type="application/json">'
        '{"melds": [{"cards": [{"card": "*", "as": "KD"}]}], "stock": "QS"}</script>'
    )
    assert text_card_strings(page) == {"10H", "QS"}


def test_the_shape_of_a_view_hides_jokers_and_the_stock() -> None:
    g = game()
    view = public_view(g)
    assert view_problems(view, None) == []
    shown = {**view, "stock": [format_card(c) for c in g.stock]}
    shown["players"] = [{**view["players"][0], "hand": ["*"]}, *view["players"][1:]]
    assert view_problems(shown, None) == ["ann's hand shown", "the stock shown"]


def test_positions_refuse_a_table_of_two_decks() -> None:
    g = new_game(Rules(), [*NAMES, "dan", "eve"], seed="two decks")
    with pytest.raises(ValueError, match="one deck"):
        positions([(1, g)])


def test_a_position_before_any_deal_keeps_every_seed() -> None:
    truth = TableTruth(1, {}, dict(SEEDS))
    assert sorted(truth.secret_seeds(0)) == sorted(SEEDS.values())
    empty = Position(1, 1, False, False, {}, {}, frozenset(), frozenset())
    assert empty.secret_cards(None) == frozenset()


def test_a_moves_cards_are_read_from_its_fields_and_its_words() -> None:
    """A move's text writes cards with suit symbols; a joker's declaration names no card."""
    move = {"version": 3, "cards": ["8S", "*9S"], "text": "bob melded 8\u2660 joker as 9\u2660"}
    assert move_card_strings(move) == {"8S"}
    told = {"version": 3, "cards": [], "text": "you drew 10\u2665, then Q\u2663"}
    assert move_card_strings(told) == {"10H", "QC"}
