"""Header label text: the footnote markers a label may end with, and the numbering it may start
with.

A header cell keeps its text as displayed ("Total area[2]", "Defence(1)", "7. Health"); the
words used to match a question against it leave the marker and the numbering out, so "total
area" names "Total area[2]" and "health" names "7. Health". This is the one definition of
both: every part that matches header words uses `matching_label`.
"""

from __future__ import annotations

import re
from functools import lru_cache

_MARKER = (
    r"\[\s*(?:(?:note|notes|nb|n|fn)\s*)?\d{1,3}[a-z]?\s*\]"  # [2], [12a], [note 3], [nb 1]
    r"|\[\s*[a-z]\s*\]"  # [a]; two letters may be a unit ("Distance [km]")
    r"|\[\s*[ivx]{2,5}\s*\]"  # [ii], [viii]
    r"|\(\s*\d{1,2}\s*\)"  # (1), (12): a year such as (2020) is part of the name
    r"|[*\u2020\u2021\u00a7\u00b6]+"  # * † ‡ § ¶, alone or repeated
    r"|(?<!\S)(?:[a-z]|\d{1,2})/"  # 1/, p/, r/: US statistical tables' notes, after a space
    # Superscript letters and digits ("Eventᵃ", "db-01¹"); not ² and ³, which square and cube
    # a unit ("km²").
    r"|[\u00b9\u2070\u2071\u2074-\u207f\u1d43-\u1d5b\u1d9c-\u1dbf]+"
)
_TRAILING_MARKERS = re.compile(rf"(?:\s*(?:{_MARKER}))+\s*$", re.IGNORECASE)
_WORD_CHAR = re.compile(r"[^\W_]")
_TAIL = 48
"""Markers are looked for in a label's last characters only, so a long text costs no more."""


@lru_cache(maxsize=65536)
def strip_footnote_markers(text: str) -> str:
    """Return a label without the footnote markers it ends with ("Total area[2]" -> "Total area").

    Only bracketed or parenthesised markers and the symbols * † ‡ § ¶ count: a number that is
    part of the name ("Q1", "Region 3", "2024") stays. A label that is nothing but markers
    ("(1)", a column number) is returned as it is.
    """
    start = max(0, len(text) - _TAIL)
    match = _TRAILING_MARKERS.search(text, start)
    if match is None:
        return text
    head = text[:match.start()]
    return head.rstrip() if _WORD_CHAR.search(head) else text


_ENUMERATION = re.compile(r"^\s*\(?(?:\d{1,3}|[a-z]|[ivx]{2,5})[.)]\s+(?=[^\W\d_])",
                          re.IGNORECASE)
"""A leading "7. ", "7) ", "(a) ", "iv. " before a word: a list number, not a word of the name
("1.5 litres" and "2024 budget" keep theirs)."""


def strip_enumeration(text: str) -> str:
    """Return a label without the list number it starts with ("7. Health" -> "Health")."""
    match = _ENUMERATION.match(text)
    return text[match.end():] if match else text


@lru_cache(maxsize=65536)
def matching_label(text: str) -> str:
    """Return the part of a label a question's words are matched against: no trailing
    footnote markers, no leading list number ("7. Health[2]" -> "Health"), and a word a
    narrow header cell breaks across lines at a hyphen written whole ("Agri-\nculture")."""
    if "-" in text and "\n" in text:
        text = _LINE_BREAK_HYPHEN.sub(_joined_at_line_break, text)
    # Most labels end in a letter or digit and hold no "." or ")": no marker can end them
    # (each ends in a bracket, a symbol or "/") and no list number start them, so neither
    # regex runs (a 640,000-row table's labels took 2 s through both).
    if text[-1:].isascii() and text[-1:].isalnum() and "." not in text and ")" not in text:
        return text
    return strip_enumeration(strip_footnote_markers(text))


_LINE_BREAK_HYPHEN = re.compile(r"([^\W\d_]+)-[ \t]*\r?\n[ \t]*([^\W\d_])")
"""A word, a hyphen ending its line, and the next line's first letter."""

_COMPOUND_HEADS = frozenset(("self", "ex", "all", "well", "half", "full", "part", "cross"))
"""Words that head a hyphenated compound ("Self-employed"): their hyphen is the compound's,
wherever the line breaks."""


def _joined_at_line_break(m: re.Match[str]) -> str:
    """ "Agri-" + "culture": one word, as the reader of the narrow column reads it. Not before
    a capital ("2023-\nApr", "Sales-\nNorth": two names) nor after a compound's head."""
    head, first = m.group(1), m.group(2)
    if not first.islower() or head.casefold() in _COMPOUND_HEADS:
        return m.group(0)
    return head + first


_DOTTED = re.compile(r"(?<![^\W\d_])([^\W\d_]{2,})\.(?![^\W_])")
"""A word written with a full stop after it and no word character following ("Feb.",
"Dept. of", "No."): the stop marks a short form, not a decimal or an internal dot."""


def dotted_words(text: str) -> frozenset[str]:
    """The casefolded words a label writes with an abbreviation dot ("Qty. sold" -> {"qty"})."""
    if "." not in text:  # (the common case, without the regex)
        return frozenset()
    return frozenset(m.group(1).casefold() for m in _DOTTED.finditer(text))


_QUALIFIED = re.compile(r"^(?P<head>.*?[^\W_].*?)\s*\((?P<qual>[^()]*[^\W\d_][^()]*)\)\s*$")
"""A name followed by a parenthesised qualifier holding a letter: "Methane (CH4)",
"Revenue (adjusted)". A qualifier of digits only is a footnote or a year, handled apart."""


def qualified_parts(text: str) -> tuple[str, str] | None:
    """Split "Methane (CH4)" into ("Methane", "CH4"): either part alone may name the label
    (a question says "methane" or "CH4"); None when the label has no such qualifier."""
    match = _QUALIFIED.match(matching_label(text))
    if match is None:
        return None
    return match.group("head").strip(), match.group("qual").strip()
