"""A plain-English description of a rule configuration, for web pages."""

from __future__ import annotations

from .rules import Rules

_VALUES = {
    "pip": "Cards score face value, J Q K 10, aces 15 ({low} when low in a run), jokers 15.",
    "five_ten": "2 to 9 score 5, 10 J Q K 10, aces 15 (5 when low in a run), jokers 15.",
    "low5_high10": "2 to 5 score 5, 6 to K 10, aces and jokers 15.",
}


def rules_summary(rules: Rules) -> list[str]:
    """Sentences describing ``rules``, defaults included, house rules only when on.

    >>> from games.engine.rules import Rules
    >>> rules_summary(Rules())[0]
    'The game is played to 500 points; the highest total then wins, and a tie plays on.'
    """
    return [*_basics(rules), *_melds(rules), *_house(rules), *_online(rules)]


def _basics(r: Rules) -> list[str]:
    jokers = f"{r.jokers_per_deck} joker{'s' if r.jokers_per_deck != 1 else ''}"
    decks = (
        "one deck at any table"
        if r.two_decks_from > 8
        else f"one deck, two from {r.two_decks_from} players"
    )
    deal = f"Deal {r.hand_size_two} cards each to two players, {r.hand_size} to three or more"
    if r.hand_size_five_plus is not None:
        deal += f", {r.hand_size_five_plus} to five or more"
    stock = (
        "When the stock runs out, the hand ends."
        if r.stock_out == "end"
        else "When the stock runs out, the discard pile (but its top card) is reshuffled."
    )
    return [
        f"The game is played to {r.target} points; the highest total then wins,"
        " and a tie plays on.",
        f"Cards: {decks}, with {jokers} per deck.",
        deal + ".",
        _VALUES[r.values].format(low=r.low_ace),
        stock,
    ]


def _melds(r: Rules) -> list[str]:
    sets = (
        "3 or 4 cards of a rank, all of different suits"
        if r.set_distinct_suits
        else ("3 or more cards of a rank, suits may repeat")
    )
    wraps = "runs may wrap around (K-A-2)" if r.run_wraps else "the ace is high or low, never both"
    out = [f"Sets are {sets}; runs are 3 or more in suit, and {wraps}."]
    if r.jokers_per_deck:
        out.append(f"A meld needs at least {r.min_naturals} natural card(s).")
    if r.no_rediscard_top:
        out.append("A player who took the top discard may not throw it back that turn.")
    return out


_HOUSE = {
    "must_discard_to_go_out": "Going out needs a final discard.",
    "top_discard_must_meld": "Even the top discard, once taken, must be melded at once.",
    "deep_pickup_new_meld": "A card taken from deeper in the pile must start a new meld.",
    "rummy_call": "Rummy! may be called on a meldable discard before the next player draws.",
    "winner_must_go_out": "Only a player who goes out can win the game.",
}


def _house(r: Rules) -> list[str]:
    return [text for name, text in _HOUSE.items() if getattr(r, name)]


def _online(r: Rules) -> list[str]:
    clock = f"Each turn has {r.turn_seconds} seconds"
    if r.time_bank_seconds:
        clock += f", plus a {r.time_bank_seconds}-second time bank per game"
    return [
        clock + ".",
        f"After {r.max_timeouts} timeouts in a row a player is marked absent.",
    ]
