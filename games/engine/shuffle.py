"""The fair, verifiable shuffle.

Anyone can re-implement it from this description and check a deal:

1. A hand's seed is a string (an integer seed in a replay file is its decimal string). Its public
   commitment is ``sha256(seed.encode("utf-8")).hexdigest()``, published when the hand starts; the
   seed itself is revealed when the hand ends.
2. The byte stream for hand ``h`` is
   ``HMAC-SHA256(key=seed.encode("utf-8"), msg=f"rummy500:hand:{h}:block:{i}".encode("utf-8"))``
   (the 32-byte digest) for ``i = 0, 1, 2, ...``, concatenated. It is read 8 bytes at a time as
   big-endian unsigned 64-bit integers.
3. Start from the canonical deck: for each deck in turn, suits ``S H D C``, each ``A 2 ... K``, then
   that deck's jokers. Fisher-Yates: for ``i`` from ``n - 1`` down to ``1``, draw ``x``; while
   ``x >= 2**64 - (2**64 % (i + 1))`` draw again (rejection, so there is no modulo bias); swap
   positions ``i`` and ``x % (i + 1)``. The result, from index 0, is the dealing order.
4. A reshuffle of the stock (``stock_out: reshuffle``) shuffles the discard pile without its top
   card, taken bottom first, with the same method and the stream
   ``msg=f"rummy500:hand:{h}:reshuffle:{k}:block:{i}"`` (``k`` counts reshuffles in the hand
   from 1); index 0 of the result is the new top of the stock.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterator, Sequence
from typing import TypeVar

from .cards import Card, canonical_deck

T = TypeVar("T")
_TWO64 = 2**64


def commitment(seed: str) -> str:
    """The published commitment of a seed: its SHA-256 in hex.

    >>> commitment("7")[:16]
    '7902699be42c8a8e'
    """
    return hashlib.sha256(seed.encode("utf-8")).hexdigest()


def _stream(seed: str, label: str) -> Iterator[int]:
    key = seed.encode("utf-8")
    block = 0
    while True:
        msg = f"{label}:block:{block}".encode()
        digest = hmac.new(key, msg, hashlib.sha256).digest()
        for at in range(0, 32, 8):
            yield int.from_bytes(digest[at : at + 8], "big")
        block += 1


def shuffle_with[T](items: Sequence[T], seed: str, label: str) -> list[T]:
    """Fisher-Yates over ``items`` with the stream of ``seed`` and ``label`` (see module doc).

    >>> a = shuffle_with([1, 2, 3], "x", "rummy500:hand:1")
    >>> a == shuffle_with([1, 2, 3], "x", "rummy500:hand:1"), sorted(a)
    (True, [1, 2, 3])
    """
    out = list(items)
    numbers = _stream(seed, label)
    for i in range(len(out) - 1, 0, -1):
        bound = i + 1
        limit = _TWO64 - (_TWO64 % bound)
        x = next(numbers)
        while x >= limit:
            x = next(numbers)
        j = x % bound
        out[i], out[j] = out[j], out[i]
    return out


def shuffled_deck(seed: str, hand_number: int, decks: int, jokers_per_deck: int) -> list[Card]:
    """The dealing order of hand ``hand_number`` for ``seed``.

    >>> [str(c) for c in shuffled_deck("7", 1, 1, 2)[:3]] == [
    ...     str(c) for c in shuffled_deck("7", 1, 1, 2)[:3]]
    True
    >>> len(shuffled_deck("7", 1, 2, 2))
    108
    """
    return shuffle_with(
        canonical_deck(decks, jokers_per_deck), seed, f"rummy500:hand:{hand_number}"
    )


def reshuffled_stock(seed: str, hand_number: int, k: int, cards: Sequence[Card]) -> list[Card]:
    """The new stock (top first) from the pile ``cards`` (bottom first) at reshuffle ``k``."""
    return shuffle_with(cards, seed, f"rummy500:hand:{hand_number}:reshuffle:{k}")
