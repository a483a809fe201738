"""``state_from_dict``: load a full state, checking that it is consistent.

PROTOCOL.md's replay rules: ``rules``, ``dealer``, ``required`` (null), ``hand_number`` (1),
``hands`` (none), ``winner`` (null) and each player's ``score`` (0), ``timeouts`` (0) and ``absent``
(false) may be left out, as may the engine's extra fields (``seed`` "", ``drawn`` null,
``taken`` [], ``last_discard_by`` null, ``ended`` null, ``reshuffles`` 0, ``claimed`` false).
A missing ``dealer`` is the seat before ``turn`` (so the player to move is at the dealer's left).
Unknown keys are refused. Cards not listed anywhere are out of play; no card may appear more
often than the decks hold.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from .cards import Card, copies_allowed, format_card, parse_card, parse_played
from .errors import ConfigError, EngineError, StateError
from .melds import Meld, MeldError, TableCard, build_meld, run_from_listing
from .rules import Rules
from .state import Ended, GameState, HandResult, Phase, PlayerState, Score

_KEYS = {
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
    "seed",
    "drawn",
    "taken",
    "last_discard_by",
    "ended",
    "reshuffles",
    "claimed",
}
_PLAYER_KEYS = {"name", "hand", "score", "timeouts", "absent"}


def _int(value: object, what: str, low: int = 0) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < low:
        raise StateError(f"{what} must be a whole number of at least {low}, not {value!r}")
    return value


def _cards(value: object, what: str) -> tuple[Card, ...]:
    if not isinstance(value, list):
        raise StateError(f"{what} must be a list of cards")
    try:
        return tuple(parse_card(t) for t in value)
    except EngineError as exc:
        raise StateError(f"{what}: {exc.message}") from None


def _card(value: object, what: str) -> Card | None:
    return None if value is None else _cards([value], what)[0]


def _players(value: object) -> tuple[PlayerState, ...]:
    if not isinstance(value, list):
        raise StateError("players must be a list")
    out = []
    for i, p in enumerate(value):
        if not isinstance(p, dict) or not isinstance(p.get("name"), str) or not p["name"]:
            raise StateError(f"players[{i}] must be an object with a name")
        if set(p) - _PLAYER_KEYS:
            raise StateError(f"players[{i}]: unknown key(s) {sorted(set(p) - _PLAYER_KEYS)}")
        absent = p.get("absent", False)
        if not isinstance(absent, bool):
            raise StateError(f"players[{i}].absent must be true or false")
        score = p.get("score", 0)
        if not isinstance(score, int) or isinstance(score, bool):
            raise StateError(f"players[{i}].score must be a whole number")
        out.append(
            PlayerState(
                p["name"],
                _cards(p.get("hand"), f"{p['name']}'s hand"),
                score,
                _int(p.get("timeouts", 0), f"players[{i}].timeouts"),
                absent,
            )
        )
    if len({p.name for p in out}) != len(out):
        raise StateError("player names must differ")
    return tuple(out)


class _Loader:
    def __init__(self, d: dict[str, Any], rules: Rules, players: tuple[PlayerState, ...]):
        self.d, self.rules, self.players = d, rules, players
        self.names = tuple(p.name for p in players)

    def seat(self, key: str, value: object = None, *, optional: bool = True) -> int | None:
        value = self.d.get(key) if value is None else value
        if value is None and optional:
            return None
        if value not in self.names:
            raise StateError(f"{key}: {value!r} is not a seated player")
        return self.names.index(str(value))

    def melds(self, decks: int) -> tuple[Meld, ...]:
        raw = self.d.get("melds", [])
        if not isinstance(raw, list):
            raise StateError("melds must be a list")
        melds = tuple(self.meld(i, m, decks) for i, m in enumerate(raw))
        if len({m.id for m in melds}) != len(melds):
            raise StateError("meld ids must differ")
        return melds

    def meld(self, i: int, m: object, decks: int) -> Meld:
        if not isinstance(m, dict) or m.get("kind") not in ("set", "run"):
            raise StateError(f"melds[{i}] must be an object with kind set or run")
        cards = m.get("cards")
        if not isinstance(cards, list) or not all(isinstance(c, dict) for c in cards):
            raise StateError(f"melds[{i}].cards must be a list of objects")
        table = [self.table_card(i, c) for c in cards]
        r = self.rules
        try:
            built = build_meld(
                [(t.card, t.stands) for t in table],
                0,
                _int(m.get("id"), f"melds[{i}].id", 1),
                wraps=r.run_wraps,
                distinct=r.set_distinct_suits,
                max_set=4 if r.set_distinct_suits else 4 * decks,
                min_naturals=r.min_naturals,
            )
        except MeldError as exc:
            raise StateError(f"melds[{i}] is not a valid meld: {exc}") from None
        start = (
            run_from_listing([t.stands for t in table], r.run_wraps) if built.kind == "run" else 0
        )
        if built.kind != m["kind"] or start is None:
            raise StateError(f"melds[{i}] is not a valid {m['kind']} listed low to high")
        return Meld(built.id, built.kind, tuple(table), start)

    def table_card(self, i: int, c: dict[str, Any]) -> TableCard:
        text = c.get("card")
        if text == "*":
            text = "*" + str(c.get("as"))
        elif "as" in c:
            raise StateError(f"melds[{i}]: only a joker has an 'as'")
        try:
            card, stands = parse_played(text)
        except EngineError as exc:
            raise StateError(f"melds[{i}]: {exc.message}") from None
        by = self.seat(f"melds[{i}].by", c.get("by"), optional=False)
        assert by is not None
        return TableCard(card, stands, by)

    def hands(self) -> tuple[HandResult, ...]:
        raw = self.d.get("hands", [])
        if not isinstance(raw, list):
            raise StateError("hands must be a list")
        return tuple(self.hand(i, h) for i, h in enumerate(raw))

    def hand(self, i: int, h: object) -> HandResult:
        if not isinstance(h, dict) or not isinstance(h.get("scores"), dict):
            raise StateError(f"hands[{i}] must be an object with scores")
        scores = []
        for name in self.names:
            s = h["scores"].get(name)
            if not isinstance(s, dict):
                raise StateError(f"hands[{i}].scores lacks {name}")
            melded, in_hand = s.get("melded"), s.get("in_hand")
            if (
                not isinstance(melded, int)
                or not isinstance(in_hand, int)
                or isinstance(melded, bool)
                or isinstance(in_hand, bool)
            ):
                raise StateError(f"hands[{i}].scores.{name} needs melded and in_hand")
            if s.get("net", melded - in_hand) != melded - in_hand:
                raise StateError(f"hands[{i}].scores.{name}: net is not melded - in_hand")
            scores.append(Score(melded, in_hand))
        number = _int(h.get("number", i + 1), f"hands[{i}].number", 1)
        return HandResult(
            number, self.seat(f"hands[{i}].went_out", h.get("went_out")), tuple(scores)
        )


def _rules(d: dict[str, Any], rules: Rules | None) -> Rules:
    if "rules" not in d:
        return rules if rules is not None else Rules()
    try:
        return Rules.from_dict(d["rules"])
    except ConfigError as exc:
        raise StateError(f"rules: {exc}") from None


def _check_counts(state: GameState) -> None:
    counts: Counter[Card] = Counter(state.stock)
    counts.update(state.discard)
    for p in state.players:
        counts.update(p.hand)
    for m in state.melds:
        counts.update(t.card for t in m.cards)
    for card, n in counts.items():
        allowed = copies_allowed(card, state.decks, state.rules.jokers_per_deck)
        if n > allowed:
            raise StateError(f"{format_card(card)} appears {n} times but the decks hold {allowed}")


def _check_turn(state: GameState) -> None:
    if state.phase in (Phase.DRAW, Phase.PLAY) and state.turn is None:
        raise StateError(f"phase {state.phase} needs a seated player to move (turn)")
    if state.required is not None:
        if state.phase != Phase.PLAY or state.turn is None:
            raise StateError("required is only possible in phase play")
        if state.required not in state.players[state.turn].hand:
            raise StateError("the required card is not in the hand of the player to move")
    if state.winner is not None and state.phase != Phase.GAME_OVER:
        raise StateError("a winner is only possible in phase game_over")


def state_from_dict(d: object, rules: Rules | None = None) -> GameState:
    """Load a full state (``rules`` applies when the state has none).

    >>> from games.engine.views import full_state
    >>> from games.engine.state import new_game
    >>> g = new_game(Rules(), ["ann", "bob"], seed="7")
    >>> state_from_dict(full_state(g)) == g
    True
    >>> state_from_dict({"players": [{"name": "ann", "hand": ["AS"]}], "phase": "draw"})
    Traceback (most recent call last):
    ...
    games.engine.errors.StateError: players: 1 players; a table seats 2 to 8

    :raises StateError: malformed or inconsistent, with what is wrong.
    """
    if not isinstance(d, dict):
        raise StateError("a state must be a JSON object")
    unknown = set(d) - _KEYS
    if unknown:
        raise StateError(f"unknown key(s) in state: {', '.join(sorted(unknown))}")
    r = _rules(d, rules)
    players = _players(d.get("players"))
    try:
        r.check_players(len(players))
    except ConfigError as exc:
        raise StateError(str(exc)) from None
    return _build(d, r, players)


def _build(d: dict[str, Any], r: Rules, players: tuple[PlayerState, ...]) -> GameState:
    load = _Loader(d, r, players)
    phase = d.get("phase")
    if phase not in tuple(Phase):
        raise StateError(f"phase must be one of {', '.join(tuple(Phase))}, not {phase!r}")
    turn = load.seat("turn") if phase in (Phase.DRAW, Phase.PLAY) else None
    dealer = load.seat("dealer")
    if dealer is None:
        dealer = (turn - 1) % len(players) if turn is not None else len(players) - 1
    seed = d.get("seed", "")
    ended = d.get("ended")
    claimed = d.get("claimed", False)
    if not isinstance(seed, str) or (ended is not None and ended not in tuple(Ended)):
        raise StateError("seed must be a string; ended null, target or abandoned")
    if not isinstance(claimed, bool) or (claimed and phase != Phase.PLAY):
        raise StateError("claimed must be true or false, and true only in phase play")
    state = GameState(
        rules=r,
        players=players,
        dealer=dealer,
        turn=turn,
        phase=Phase(phase),
        stock=_cards(d.get("stock", []), "stock"),
        discard=_cards(d.get("discard", []), "discard"),
        melds=load.melds(r.decks_for(len(players))),
        required=_card(d.get("required"), "required"),
        hand_number=_int(d.get("hand_number", 1), "hand_number", 1),
        hands=load.hands(),
        winner=load.seat("winner"),
        seed=seed,
        drawn=_card(d.get("drawn"), "drawn"),
        taken=_cards(d.get("taken", []), "taken"),
        last_discard_by=load.seat("last_discard_by"),
        ended=None if ended is None else Ended(ended),
        reshuffles=_int(d.get("reshuffles", 0), "reshuffles"),
        claimed=claimed,
    )
    _check_counts(state)
    _check_turn(state)
    return state
