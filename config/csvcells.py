"""Cells of the CSV files the service hands out, safe to open in a spreadsheet.

A spreadsheet runs a cell that starts with ``=``, ``+``, ``-`` or ``@`` as a formula, and some
also one that starts with a tab or a carriage return (OWASP, "CSV Injection"), so text that
players or organizers typed (usernames, round names, reasons) could run there. Such text is
written with a leading ``'``, which the spreadsheet shows as text and hides. Numbers are written
as they are: a negative score is a number, not a formula.

>>> spreadsheet_safe("+1+2"), spreadsheet_safe("=HYPERLINK(\\"x\\")"), spreadsheet_safe("ann")
("'+1+2", '\\'=HYPERLINK("x")', 'ann')
>>> spreadsheet_safe(-3), safe_row(["-x", 2, None])
(-3, ["'-x", 2, None])
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def spreadsheet_safe(value: Any) -> Any:
    """``value`` with a leading ``'`` if it is text a spreadsheet would run as a formula."""
    if isinstance(value, str) and value.startswith(FORMULA_START):
        return "'" + value
    return value


def safe_row(row: Iterable[Any]) -> list[Any]:
    return [spreadsheet_safe(v) for v in row]
