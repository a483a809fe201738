"""Command line: ``python -m games.engine replay FILE|-`` and
``python -m games.engine verify-deal SEED PLAYERS HAND_NUMBER [--preset NAME] [--rules JSON]``.

``PLAYERS`` is a comma-separated list of names (``ann,bob,cid``) or a number of players, who are
then named ``p1``, ``p2``, ... . ``verify-deal`` prints the deal of that hand as JSON: the seed
and its commitment, the dealer, each player's hand, the first discard and the stock (top first).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from .cards import format_card
from .errors import ConfigError
from .replay import ScenarioError, run_scenario
from .rules import Rules
from .shuffle import commitment, shuffled_deck
from .state import check_names, deal


def verify_deal(seed: str, players: list[str], hand_number: int, rules: Rules) -> dict[str, Any]:
    """The deal of hand ``hand_number`` for ``seed``, as the replay tool deals it.

    >>> d = verify_deal("7", ["ann", "bob"], 1, Rules())
    >>> d["dealer"], len(d["hands"]["ann"]), len(d["stock"])
    ('bob', 13, 27)
    """
    names = check_names(players)
    rules.check_players(len(names))
    dealer = (len(names) - 1 + hand_number - 1) % len(names)
    cards = shuffled_deck(seed, hand_number, rules.decks_for(len(names)), rules.jokers_per_deck)
    hands, discard, stock = deal(rules, names, dealer, cards)
    return {
        "seed": seed,
        "commitment": commitment(seed),
        "hand_number": hand_number,
        "dealer": names[dealer],
        "hands": {n: [format_card(c) for c in h] for n, h in zip(names, hands, strict=True)},
        "discard": [format_card(c) for c in discard],
        "stock": [format_card(c) for c in stock],
    }


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _strict_json(text: str) -> Any:
    """Parse JSON strictly: ``NaN``, ``Infinity`` and ``-Infinity`` are not JSON.

    >>> _strict_json('{"a": NaN}')
    Traceback (most recent call last):
    ...
    ValueError: NaN is not JSON
    """
    return json.loads(text, parse_constant=_no_constant)


def _players(text: str) -> list[str]:
    if text.isdigit():
        n = int(text)
        if n > 8:  # refused before building a list of names, however large the number
            raise ConfigError("players", f"{n} players; a table seats 2 to 8")
        return [f"p{i}" for i in range(1, n + 1)]
    return text.split(",")


def _rules(args: argparse.Namespace) -> Rules:
    data: dict[str, Any] = _strict_json(args.rules) if args.rules else {}
    if not isinstance(data, dict):
        raise ConfigError("rules", "must be a JSON object")
    if args.preset:
        data = {"preset": args.preset, **data}
    return Rules.from_dict(data)


def main(argv: list[str] | None = None) -> int:
    """Run the command line; the exit status."""
    parser = argparse.ArgumentParser(prog="python -m games.engine")
    sub = parser.add_subparsers(dest="command", required=True)
    replay = sub.add_parser("replay", help="run a scenario file (- for standard input)")
    replay.add_argument("file")
    verify = sub.add_parser("verify-deal", help="print the deal of a hand for a seed")
    verify.add_argument("seed")
    verify.add_argument("players", help="comma-separated names, or a number of players")
    verify.add_argument("hand_number", type=int)
    verify.add_argument("--preset", default=None)
    verify.add_argument("--rules", default=None, help="rule overrides as a JSON object")
    args = parser.parse_args(argv)
    try:
        if args.command == "replay":
            if args.file == "-":
                text = sys.stdin.read()
            else:
                with open(args.file, encoding="utf-8") as f:
                    text = f.read()
            out = run_scenario(_strict_json(text))
        else:
            if args.hand_number < 1:
                raise ScenarioError("HAND_NUMBER must be at least 1")
            out = verify_deal(args.seed, _players(args.players), args.hand_number, _rules(args))
    except (OSError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except RecursionError:
        print("error: the JSON is nested too deeply", file=sys.stderr)
        return 1
    json.dump(out, sys.stdout)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
