"""The move log: a table's log rows told in words, for one reader (docs/tables.md, "Moves").

A move is one public happening: "bob took 3 from the pile (Q♠ J♠ 10♠)", "ann discarded 7♣",
"hand 2: ann went out (ann +85, bob -20)". One row may give several (an action that ends a hand
also gives the hand's end, and maybe the game's). A reader is a seated username, whose own moves
read "you ...", or None for the public.

A stock draw's card is the one hidden card a row holds (its event's ``_private`` part): it is
shown to its drawer alone while the game runs, and to everyone once it is over (``reveal``), the
rule of the log (``games.selectors.table_log``). Everything else a row says was seen by the
whole table: the pile, the melds, the cards taken from the pile, the scores of a hand ended.

Pure: it reads the rows it is given (their ``actor`` loaded with them) and nothing else, so one
read of the rows serves every reader of a push.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from games.models import TableEvent
from games.payloads import MoveKind, MoveOutput

SYMBOLS = {"S": "\u2660", "H": "\u2665", "D": "\u2666", "C": "\u2663"}
ORDINALS = {1: "1st", 2: "2nd", 3: "3rd"}

Kind = TableEvent.Kind


def card_words(card: str) -> str:
    """A card as a line shows it: ``10S`` is ``10♠``, ``*9S`` a joker declared as the nine of
    spades, ``*`` a joker.

    >>> card_words("10S"), card_words("*9S"), card_words("*")
    ('10♠', 'joker as 9♠', 'joker')
    """
    if card == "*":
        return "joker"
    if card.startswith("*"):
        return f"joker as {card_words(card[1:])}"
    return card[:-1] + SYMBOLS[card[-1]]


def card_phrase(card: str) -> str:
    """One card in a sentence: ``drew 7♣``, ``drew a joker``.

    >>> card_phrase("7C"), card_phrase("*")
    ('7♣', 'a joker')
    """
    return "a joker" if card == "*" else card_words(card)


def cards_words(cards: Sequence[str]) -> str:
    return " ".join(map(card_words, cards))


def plural(count: int, noun: str) -> str:
    """``count`` of ``noun``, the plural right.

    >>> plural(1, "card"), plural(31, "card")
    ('1 card', '31 cards')
    """
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def listing(items: Sequence[str]) -> str:
    """``items`` as a sentence lists them.

    >>> listing(["drew"]), listing(["drew", "melded", "discarded"])
    ('drew', 'drew, melded and discarded')
    """
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


def signed(n: int) -> str:
    return f"+{n}" if n > 0 else str(n)


def hand_before(rows: Sequence[TableEvent], current: int | None) -> int | None:
    """The hand in play before the first of ``rows``, a run of the log that ends at the table's
    present, whose hand is ``current``: a deal among them says which hand came before it."""
    for row in rows:
        if row.kind == Kind.START:
            return None
        if row.kind == Kind.DEAL:
            return int(row.data["hand"]) - 1
    return current


def table_moves(
    rows: Iterable[TableEvent], reader: str | None, *, reveal: bool, hand: int | None = None
) -> list[MoveOutput]:
    """The moves of ``rows`` (in version order) as ``reader`` may read them; ``hand`` is the
    hand in play before the first row (``hand_before``), ``reveal`` whether the game is over."""
    out: list[MoveOutput] = []
    for row in rows:
        if row.kind == Kind.START:
            hand = 1
        elif row.kind == Kind.DEAL:
            hand = int(row.data["hand"])
        out += _Teller(row, hand, reader, reveal).moves()
    return out


class _Teller:
    """The moves of one row for one reader."""

    def __init__(self, row: TableEvent, hand: int | None, reader: str | None, reveal: bool):
        self.row, self.hand, self.reader, self.reveal = row, hand, reader, reveal

    # --- words ---------------------------------------------------------------------------------

    def who(self, name: str | None) -> str:
        return "you" if name is not None and name == self.reader else str(name)

    def whose(self, name: str) -> str:
        return "your" if name == self.reader else f"{name}'s"

    def is_(self, name: str) -> str:
        return f"{self.who(name)} {'are' if name == self.reader else 'is'}"

    def sees_draw(self, event: dict[str, Any]) -> bool:
        """A stock draw's card: its drawer's alone while the game runs."""
        return "card" in event and (self.reveal or event["player"] == self.reader)

    def move(
        self,
        kind: MoveKind,
        text: str,
        *,
        player: str | None = None,
        cards: Sequence[str] = (),
        count: int | None = None,
        meld: int | None = None,
        hand: int | None = None,
    ) -> MoveOutput:
        # The organizer who paused, resumed, withdrew or decided; a player's own moves name
        # them as ``player`` only.
        actor = self.row.actor if kind in _ORGANIZED else None
        return {
            "version": self.row.version,
            "hand": self.hand if hand is None else hand,
            "kind": kind.value,
            "player": player,
            "actor": actor.username if actor is not None else None,
            "cards": list(cards),
            "count": count,
            "meld": meld,
            "text": text,
        }

    # --- rows ----------------------------------------------------------------------------------

    def moves(self) -> list[MoveOutput]:
        row = self.row
        if row.kind in (Kind.START, Kind.DEAL):
            players = row.data.get("players")
            to = f" to {listing([self.who(p) for p in players])}" if players else ""
            return [self.move(MoveKind.DEAL, f"hand {self.hand} dealt{to}")]
        if row.kind == Kind.TIMEOUT:
            return self.timeout()
        if row.kind in (Kind.PAUSE, Kind.RESUME):
            kind = MoveKind.PAUSE if row.kind == Kind.PAUSE else MoveKind.RESUME
            verb = "paused" if row.kind == Kind.PAUSE else "resumed"
            return [self.move(kind, f"the organizer {verb} the table")]
        if row.kind == Kind.WITHDRAW:
            return [self.withdraw(), *self.ends(row.events)]
        if row.kind == Kind.ADJUDICATE:
            return [self.adjudicate()]
        if row.kind == Kind.BACK:
            return [self.move(MoveKind.BACK, f"{self.is_(row.player)} back", player=row.player)]
        return self.actions(row.events)

    def actions(self, events: list[dict[str, Any]]) -> list[MoveOutput]:
        out: list[MoveOutput] = []
        note = ""  # a reshuffle, told with the draw it made possible
        for event in events:
            kind = event["type"]
            if kind == "reshuffled":
                stock = plural(event["stock"], "card")
                note = f"the pile was shuffled into a new stock ({stock}); "
            elif kind == "drew" and not event.get("empty"):
                out.append(self.drew(event, note))
                note = ""
            elif kind in _PLAYS:
                out.append(_PLAYS[kind](self, event))
        return out + self.ends(events)

    def drew(self, event: dict[str, Any], note: str) -> MoveOutput:
        name = event["player"]
        if event["source"] == "discard":
            cards, count = event["cards"], event["count"]
            what = (
                f"{card_phrase(cards[0])} from the pile"
                if count == 1
                else f"{count} from the pile ({cards_words(cards)})"
            )
            text = f"{self.who(name)} took {what}"
            return self.move(MoveKind.TAKE, text, player=name, cards=cards, count=count)
        if self.sees_draw(event):
            card = event["card"]
            text = f"{note}{self.who(name)} drew {card_phrase(card)}"
            return self.move(MoveKind.DRAW, text, player=name, cards=[card], count=1)
        text = f"{note}{self.who(name)} drew from the stock"
        return self.move(MoveKind.DRAW, text, player=name, count=1)

    def melded(self, event: dict[str, Any]) -> MoveOutput:
        name, cards = event["player"], event["cards"]
        text = f"{self.who(name)} melded {cards_words(cards)}"
        return self.move(MoveKind.MELD, text, player=name, cards=cards, meld=event["meld"])

    def laid_off(self, event: dict[str, Any]) -> MoveOutput:
        name, cards, meld = event["player"], event["cards"], event["meld"]
        text = f"{self.who(name)} laid off {cards_words(cards)} on meld {meld}"
        return self.move(MoveKind.LAYOFF, text, player=name, cards=cards, meld=meld)

    def discarded(self, event: dict[str, Any]) -> MoveOutput:
        name, card = event["player"], event["card"]
        text = f"{self.who(name)} discarded {card_phrase(card)}"
        return self.move(MoveKind.DISCARD, text, player=name, cards=[card])

    def rummy(self, event: dict[str, Any]) -> MoveOutput:
        name, cards, count = event["player"], event["cards"], event["count"]
        parts = [f"took {count} from the pile ({cards_words(cards)})"]
        parts += [f"melded {cards_words(m)}" for m in event["melds"]]
        parts += [
            f"laid off {cards_words(x['cards'])} on meld {x['meld']}" for x in event["layoffs"]
        ]
        text = f"{self.who(name)} called Rummy!: {listing(parts)}"
        return self.move(MoveKind.RUMMY, text, player=name, cards=cards, count=count)

    def timeout(self) -> list[MoveOutput]:
        """A turn the server played, its draw, plays and discard folded into one line."""
        row, events = self.row, self.row.events
        name = row.player
        parts: list[str] = []
        shown: list[str] = []
        for event in events:
            kind = event["type"]
            if kind == "reshuffled":
                stock = plural(event["stock"], "card")
                parts.append(f"shuffled the pile into a new stock ({stock})")
            elif kind == "drew" and event.get("empty"):
                parts.append("found the stock empty")
            elif kind == "drew":
                seen = self.sees_draw(event)
                parts.append(f"drew {card_phrase(event['card'])}" if seen else "drew")
                shown += [event["card"]] if seen else []
            elif kind in ("melded", "laid_off"):
                on = f" on meld {event['meld']}" if kind == "laid_off" else ""
                verb = "melded" if kind == "melded" else "laid off"
                parts.append(f"{verb} {cards_words(event['cards'])}{on}")
                shown += event["cards"]
            elif kind == "discarded":
                card = event["card"]
                if parts and parts[-1] == f"drew {card_phrase(card)}":
                    parts[-1] = "drew"  # "drew and discarded 7♣": the card it drew, shown once
                else:
                    shown.append(card)
                parts.append(f"discarded {card_phrase(card)}")
        played = f": the server {listing(parts)}" if parts else ""
        if row.data.get("absent"):
            head = f"the server played {self.whose(name)} turn"
            played = f": {listing(parts)}" if parts else ""
        else:
            head = f"{self.whose(name)} time ran out"
        out = [self.move(MoveKind.TIMEOUT, head + played, player=name, cards=shown)]
        gone = any(e["type"] == "timeout" and e["absent"] for e in events)
        if gone and not row.data.get("absent"):
            # This timeout made them absent (RULES.md: max_timeouts in a row).
            pronoun = "your" if name == self.reader else "their"
            text = f"{self.is_(name)} absent: the server plays {pronoun} turns"
            out.append(self.move(MoveKind.ABSENT, text, player=name))
        return out + self.ends(events)

    def withdraw(self) -> MoveOutput:
        name = self.row.player
        pronoun = "your" if name == self.reader else "their"
        reason = self.row.data.get("reason")
        why = f" ({reason})" if reason else ""
        text = f"the organizer withdrew {self.who(name)}{why}: the server plays {pronoun} turns"
        return self.move(MoveKind.WITHDRAW, text, player=name)

    def adjudicate(self) -> MoveOutput:
        places: dict[str, int] = self.row.data["placements"]
        order = sorted(places, key=lambda n: (places[n], n))
        ranked = ", ".join(
            f"{self.who(n)} {ORDINALS.get(places[n], f'{places[n]}th')}" for n in order
        )
        reason = self.row.data.get("reason")
        why = f" ({reason})" if reason else ""
        return self.move(MoveKind.ADJUDICATE, f"the organizer decided the game{why}: {ranked}")

    def ends(self, events: list[dict[str, Any]]) -> list[MoveOutput]:
        """The end of a hand, and of the game, a row's change brought."""
        out: list[MoveOutput] = []
        for event in events:
            if event["type"] == "hand_ended":
                number, went = event["number"], event["went_out"]
                scores = ", ".join(f"{n} {signed(s['net'])}" for n, s in event["scores"].items())
                how = f"{self.who(went)} went out" if went else "the stock ran out"
                text = f"hand {number}: {how} ({scores})"
                out.append(self.move(MoveKind.HAND_OVER, text, player=went, hand=number))
            elif event["type"] == "game_ended":
                winner = event["winner"]
                if winner is None:
                    text = "game over: no single winner"
                else:
                    text = (
                        f"game over: {self.who(winner)} win{'' if winner == self.reader else 's'}"
                    )
                if event.get("ended") == "abandoned":
                    text += " (abandoned: every player was absent)"
                out.append(self.move(MoveKind.GAME_OVER, text, player=winner))
        return out


_ORGANIZED = (MoveKind.PAUSE, MoveKind.RESUME, MoveKind.WITHDRAW, MoveKind.ADJUDICATE)

_PLAYS = {
    "melded": _Teller.melded,
    "laid_off": _Teller.laid_off,
    "discarded": _Teller.discarded,
    "rummy": _Teller.rummy,
}
