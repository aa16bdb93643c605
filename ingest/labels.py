"""Header label text: the footnote markers a label may end with.

A header cell keeps its text as displayed ("Total area[2]", "Defence(1)", "Revenue*"); the words
used to match a question against it leave the marker out, so "total area" names "Total area[2]".
This is the one definition of a footnote marker: every part that matches header words uses it.
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
