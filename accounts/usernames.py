"""One key for a username, used wherever names are compared: registration, every log-in door,
the log-in guard's count.

``canonical`` is the key: NFKC, case folded, NFKC again (Unicode's NFKC_Casefold, less its
removal of invisible characters, which usernames cannot hold), so ``Admin``, a fullwidth
``ADMIN`` and ``admin`` are one name. It is stored on the user (``User.username_key``, unique)
and a log-in finds the account by it.

``skeleton`` goes further, for registration only: two names whose canonical forms look alike on a
screen (``admin`` with a Cyrillic ``a`` and the Latin one, ``bobl`` and ``bob1``) have one skeleton,
and a new name whose skeleton is taken is refused. It follows UTS #39's skeleton with the confusable
pairs of Unicode's ``confusables.txt`` as the ``confusable_homoglyphs`` package ships them: each
character is replaced by the smallest character it is confusable with. The pairs there come without
their direction, but they form stars (every character confusable with a prototype, and a prototype
with each of them), so two hops reach every member of a character's group and every member gets one
representative. Pairs whose other side is several characters (``m`` and ``rn``) are left out.

>>> canonical("\uff21\uff24\uff2d\uff29\uff2e") == canonical("Admin") == "admin"  # fullwidth
True
>>> skeleton("\u0430dmin") == skeleton("admin")  # a Cyrillic a
True
>>> skeleton("bob") == skeleton("rob")
False
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache

from confusable_homoglyphs import confusables

# Direction marks the data wraps right-to-left characters in; they are not part of the glyph.
_MARKS = str.maketrans("", "", "\u200e\u200f")


def canonical(name: str) -> str:
    """The key a username is stored, found and counted under."""
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold())


def _homoglyphs(char: str) -> set[str]:
    found = confusables.is_confusable(char, greedy=True) or []
    glyphs = (entry["c"].translate(_MARKS) for item in found for entry in item["homoglyphs"])
    return {glyph for glyph in glyphs if len(glyph) == 1}


@lru_cache(maxsize=4096)
def _representative(char: str) -> str:
    group = {char} | _homoglyphs(char)
    for near in list(group):
        group |= _homoglyphs(near)
    return min(group)


def skeleton(name: str) -> str:
    """What the canonical form of ``name`` looks like: equal for names a reader could mistake
    for each other."""
    return "".join(_representative(char) for char in canonical(name))
