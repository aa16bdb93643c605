"""The rows a table's stated scale leaves out: "($ in thousands, except per share data)".

A title's scale multiplies every amount of the table, but its exception names rows whose
numbers are as written (earnings per share, headcount): 1.86 there is $1.86, not $1,860.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from ingest.values import OWN_UNIT

_EXCEPTION = re.compile(r"\b(?:except|excluding|other than)\s+(?:for\s+)?([^);]+)",
                        re.IGNORECASE)
_FILLER = frozenset(("data", "amounts", "amount", "figures", "figure", "information",
                     "values", "value", "items", "the", "which", "are", "is", "in"))
_WORD = re.compile(r"[^\W_]+")


def _words(text: str) -> set[str]:
    return {w.lower().removesuffix("s") for w in _WORD.findall(text)}


def exception_phrases(context: str) -> list[set[str]]:
    """The word sets of what the scale statement excepts ("per share data and headcount"
    gives {"per", "share"} and {"headcount"})."""
    found = []
    for m in _EXCEPTION.finditer(context):
        for part in re.split(r",|\band\b|\bor\b", m.group(1)):
            words = {w for w in _words(part) if w not in {f.removesuffix("s") for f in _FILLER}}
            if words:
                found.append(words)
    return found


def excepted_rows(context: str, row_paths: Mapping[int, Iterable[str]],
                  rows: Iterable[int]) -> set[int]:
    """The rows whose path has every word of one excepted phrase ("Diluted earnings per
    share" for "except per share data")."""
    phrases = exception_phrases(context)
    if not phrases:
        return set()
    out = set()
    for r in rows:
        said = _words(" ".join(row_paths.get(r, ())))
        if any(p <= said for p in phrases):
            out.add(r)
    return out


def rows_of_own_unit(row_paths: Mapping[int, Iterable[str]], rows: Iterable[int]) -> set[int]:
    """The rows whose own label states a unit no amount scale multiplies (`OWN_UNIT`:
    "Solvency ratio (%)", "Effective tax rate"): a title's scale leaves them as written (169
    is a solvency ratio of 169%, not GBP 169 million)."""
    out = set()
    for r in rows:
        path = [p for p in row_paths.get(r, ()) if p]
        if path and OWN_UNIT.search(path[-1].strip()):
            out.add(r)
    return out
