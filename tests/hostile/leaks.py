"""What was secret at each version of a table, and a scanner for payloads that show it.

The truth is the engine's own states, one per version (``games.selectors.table_states`` replays
a table's log). At a version, a card is **secret** from a viewer when it lies in the stock or in
another player's hand and nobody saw it go there. What counts as seen, and why:

- the discard pile and the melds: face up on the table (RULES.md);
- a card a player took from the discard pile (a draw of one or more, or a "Rummy!" claim): the
  whole table watched it leave the pile, so "ann holds 7S" is public until she melds or
  discards it. The views show it as ``taken`` during that turn; a log row may name it later;
- the viewer's own hand;
- everything, once the hand is over: the hand's seed is then revealed (``deals``, the log's
  ``revealed``), and the seed with the published shuffle deals every hand and the stock again.

A hand's seed is secret until that hand is over, and every later hand's seed until it is dealt
and over. Only the commitment (its SHA-256) may be shown before.

Card strings are found anywhere in a payload, in any key or string value, with the protocol's
strict notation. A joker's declaration is not a card: ``*9S`` in an action, or the ``as`` of a
meld's joker (``{"card": "*", "as": "9S"}``), names no card anybody holds. A joker itself
(``*``) is every joker and cannot be told apart by its string; the structural check of views
(``view_problems``) covers where a hidden joker would appear: a hand or a stock shown as a list.

Moves (docs/tables.md, "Moves": a state frame's ``moves``, the moves API) tell the past: each is
checked at its own ``version``, as a log row is, its ``text`` read for cards in symbols too
(``7♣``); a joker's declaration there (``joker as 9♠``) names no card. Once the game is over
they may show every card, as the log may.

Cards are told apart by their strings, which needs one deck per table (a table of two decks
holds every card twice); ``positions`` refuses anything else.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from games.engine.cards import format_card
from games.engine.state import GameState, Phase

# A card of the protocol, standing alone: not inside a word or a number, not a joker's "*9S".
CARD = re.compile(r"(?<![0-9A-Za-z*])(?:10|[2-9AJQK])[SHDC](?![0-9A-Za-z])")
# A card as a move's text writes it ("Q♠"), and a joker's declaration there ("joker as 9♠").
SYMBOL_CARD = re.compile(r"(?<![0-9A-Za-z])(10|[2-9AJQK])([\u2660\u2665\u2666\u2663])")
DECLARED = re.compile(r"joker as (?:10|[2-9AJQK])[\u2660\u2665\u2666\u2663]")
SUIT_OF = {"\u2660": "S", "\u2665": "H", "\u2666": "D", "\u2663": "C"}
JSON_SCRIPT = re.compile(r'<script id="[^"]*" type="application/json">(.*?)</script>', re.S)


@dataclass(frozen=True)
class Position:
    """One version of one table, as far as secrets go."""

    version: int
    hand_number: int
    over: bool  # the hand (or the game) is over: nothing of it is secret any more
    finished: bool  # the game is over: the log may show every card
    held: Mapping[str, frozenset[str]]  # each player's hand
    private: Mapping[str, frozenset[str]]  # of that, what nobody else saw them take
    stock: frozenset[str]
    public: frozenset[str]  # face up, or seen taken into a hand

    def secret_cards(self, viewer: str | None) -> frozenset[str]:
        """The cards ``viewer`` (None: anyone not seated) must not see at this version."""
        if self.over:
            return frozenset()
        secret = set(self.stock)
        for name, cards in self.private.items():
            if name != viewer:
                secret |= cards
        return frozenset(secret - self.public - self.held.get(viewer or "", frozenset()))


@dataclass
class TableTruth:
    """Every version of one table, and the seed of each hand dealt."""

    table_id: int
    positions: dict[int, Position]
    seeds: dict[int, str]

    def secret_cards(self, version: int, viewer: str | None) -> frozenset[str]:
        position = self.positions.get(version)
        return frozenset() if position is None else position.secret_cards(viewer)

    def secret_seeds(self, version: int) -> list[str]:
        """Seeds not yet revealed at ``version``: the running hand's and every later one's."""
        position = self.positions.get(version)
        if position is None:  # before the deal: no seed was shown yet
            return list(self.seeds.values())
        return [
            seed
            for hand, seed in self.seeds.items()
            if hand > position.hand_number or (hand == position.hand_number and not position.over)
        ]

    def finished_at(self, version: int) -> bool:
        position = self.positions.get(version)
        return position is not None and position.finished


def _cards(cards: Iterable[Any]) -> frozenset[str]:
    return frozenset(t for t in map(format_card, cards) if t != "*")


def positions(states: Iterable[tuple[int, GameState]]) -> dict[int, Position]:
    """The position at each version of a game given as ``(version, state)`` in order."""
    out: dict[int, Position] = {}
    before: GameState | None = None
    known: dict[str, frozenset[str]] = {}
    for version, state in states:
        if state.decks != 1:
            raise ValueError("cards are told apart by their strings: one deck per table only")
        if before is None or before.hand_number != state.hand_number:
            known = {p.name: frozenset() for p in state.players}
        else:
            known = _seen_taken(before, state, known)
        out[version] = _position(version, state, known)
        before = state
    return out


def _seen_taken(
    before: GameState, after: GameState, known: dict[str, frozenset[str]]
) -> dict[str, frozenset[str]]:
    """Cards each player holds that everyone saw them take from the discard pile."""
    left_pile = _cards(before.discard) - _cards(after.discard)
    out = {}
    for b, a in zip(before.players, after.players, strict=True):
        held, had = _cards(a.hand), _cards(b.hand)
        out[a.name] = (known[a.name] & held) | ((held - had) & left_pile)
    return out


def _position(version: int, state: GameState, known: dict[str, frozenset[str]]) -> Position:
    held = {p.name: _cards(p.hand) for p in state.players}
    melded = _cards(tc.card for meld in state.melds for tc in meld.cards)
    seen_taken = frozenset().union(*known.values())
    return Position(
        version=version,
        hand_number=state.hand_number,
        over=state.phase in (Phase.HAND_OVER, Phase.GAME_OVER),
        finished=state.phase == Phase.GAME_OVER,
        held=held,
        private={name: cards - known[name] for name, cards in held.items()},
        stock=_cards(state.stock),
        public=_cards(state.discard) | melded | seen_taken,
    )


# --- what a client received ---------------------------------------------------------------------


@dataclass
class Received:
    """One frame or answer as one client got it.

    ``at`` maps each table the payload may speak of to its version then (a state frame's own
    ``version``; for other answers, every live table's version when it was read). ``named`` are
    the cards the client itself sent in the request this answers: an error may repeat them.
    ``log_of`` marks a table's action log, whose rows are each checked at their own version.
    """

    viewer: str | None
    what: str
    body: Any
    at: dict[int, int]
    named: frozenset[str] = frozenset()
    text: bool = False
    log_of: int | None = None
    moves_of: int | None = None  # a table's moves API answer: each move at its own version
    tokens: set[str] = field(default_factory=set)  # every card string found, for coverage


def card_strings(value: Any) -> set[str]:
    """Every card string in a JSON value: keys and strings, at any depth; no declarations."""
    found: set[str] = set()
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            for key, child in item.items():
                found.update(CARD.findall(str(key)))
                if not (key == "as" and item.get("card") == "*"):
                    stack.append(child)
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, str):
            found.update(CARD.findall(item))
    return found


def move_card_strings(move: dict[str, Any]) -> set[str]:
    """Every card a move shows: its fields in the protocol's notation, its text in symbols."""
    text = DECLARED.sub("", str(move.get("text", "")))
    found = {rank + SUIT_OF[suit] for rank, suit in SYMBOL_CARD.findall(text)}
    return found | card_strings({k: v for k, v in move.items() if k != "text"})


def text_card_strings(text: str) -> set[str]:
    """Card strings of a page or a CSV file: its embedded JSON (``json_script``) read as JSON,
    the rest as text."""
    found: set[str] = set()
    for block in JSON_SCRIPT.findall(text):
        found |= card_strings(json.loads(block))
    found.update(CARD.findall(JSON_SCRIPT.sub("", text)))
    return found


def leaks(item: Received, truths: Mapping[int, TableTruth]) -> list[str]:
    """What ``item`` shows that its viewer must not see, one line per finding (empty: none)."""
    raw = item.body if item.text else json.dumps(item.body)
    if item.log_of is not None:
        item.tokens = card_strings(item.body)
        found = _log_leaks(item, truths[item.log_of])
    elif item.moves_of is not None:
        item.tokens = set().union(*map(move_card_strings, item.body)) if item.body else set()
        found = _move_leaks(item.body, item, truths[item.moves_of])
    else:
        body, moves = item.body, None
        if isinstance(body, dict) and isinstance(body.get("moves"), list):
            # A state frame: its moves each at their own version, the rest at the frame's.
            body, moves = {k: v for k, v in body.items() if k != "moves"}, body["moves"]
        item.tokens = text_card_strings(body) if item.text else card_strings(body)
        secret: set[str] = set()
        for table_id, version in item.at.items():
            secret |= truths[table_id].secret_cards(version, item.viewer)
        found = sorted((item.tokens - item.named) & secret)
        if moves:
            (table_id,) = item.at
            item.tokens |= set().union(*map(move_card_strings, moves))
            found += _move_leaks(moves, item, truths[table_id])
    seeds = [s for t, v in item.at.items() for s in truths[t].secret_seeds(v) if s in raw]
    lines = [f"card {card}" for card in found] + [f"seed {seed}" for seed in seeds]
    return [f"{item.what} to {item.viewer or 'anonymous'}: {line}" for line in lines]


def _log_leaks(item: Received, truth: TableTruth) -> list[str]:
    """A log shows each row's cards as of that row; all of them once the game is over."""
    if truth.finished_at(item.at[truth.table_id]):
        return []
    found: set[str] = set()
    for row in item.body:
        secret = truth.secret_cards(row["version"], None)
        found |= {f"{c} (row {row['version']})" for c in card_strings(row) & secret}
    return sorted(found)


def _move_leaks(moves: list[dict[str, Any]], item: Received, truth: TableTruth) -> list[str]:
    """Moves show each one's cards as of its row, to their reader (a stock draw's card to its
    drawer alone); all of them once the game is over."""
    if truth.finished_at(item.at[truth.table_id]):
        return []
    found: set[str] = set()
    for move in moves:
        secret = truth.secret_cards(move["version"], item.viewer)
        found |= {f"{c} (move v{move['version']})" for c in move_card_strings(move) & secret}
    return sorted(found)


def view_problems(view: dict[str, Any] | None, viewer: str | None) -> list[str]:
    """Where a view's shape would show what it must not: another player's hand or the stock as
    cards rather than a count, the seed, the drawn card or the legal moves of someone else."""
    if view is None:
        return []
    problems = []
    you = view.get("you")
    if you is not None and you != viewer:
        problems.append(f"the view of {you} sent to {viewer}")
    for player in view["players"]:
        if player["name"] != you and not isinstance(player["hand"], int):
            problems.append(f"{player['name']}'s hand shown")
    if not isinstance(view["stock"], int):
        problems.append("the stock shown")
    if "seed" in view:
        problems.append("the seed shown")
    if "drawn" in view and (you is None or view["turn"] != you):
        problems.append("the drawn card shown to someone else")
    if "legal" in view and you is None:
        problems.append("legal moves in a public view")
    return problems
