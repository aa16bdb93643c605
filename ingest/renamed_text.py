"""What a text file saved under a workbook's name (.xlsx, .xlsm, .ods) holds, and the name to
give it.

A CSV export renamed to .xlsx, or a web page or Markdown table saved as one, is no zip
archive, and the workbook reader can only call it damaged and advise saving it again from
Excel. Its text says what it is: delimited rows, a web page, a Markdown table, each of which
Tablelens reads under its own ending. So the message says what the file is and what to rename
it to.
"""

from __future__ import annotations

import csv
import re
from collections import Counter
from pathlib import Path
from typing import BinaryIO

from ingest.errors import CorruptFile
from ingest.text_decode import head_text, looks_like_html

_ROWS_READ = 20
"""Lines looked at to decide whether the text is delimited rows."""
_ROWS_SHARE = 0.8
"""Of those, the share that must be rows of one width."""

_DELIMITED = (
    (",", "a text file of comma-separated rows", ".csv"),
    ("\t", "a text file of tab-separated rows", ".tsv"),
    (";", "a text file of semicolon-separated rows", ".csv"),
)
_MARKDOWN_RULE = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(?:\|\s*:?-{3,}:?\s*)+\|?\s*$", re.MULTILINE)
"""The line under a Markdown table's header ("| --- | ---: |")."""


def refuse_renamed_text(stream: BinaryIO, name: str, ext: str) -> None:
    """Raise `CorruptFile` saying what a text file under a workbook's name `ext` holds and
    the name to give it. Return when its bytes are not text, or text of no kind read here
    (the workbook reader then says the file is damaged). The stream is left at its start."""
    text = head_text(stream, name=name)
    kind = None if text is None else text_kind(text)
    if kind is None:
        return
    what, ending = kind
    renamed = Path(name).stem + ending
    raise CorruptFile(name, f"this is {what}, not a workbook (its name ends in {ext}).",
                      f"Rename it to {renamed} and upload it again.")


def text_kind(text: str) -> tuple[str, str] | None:
    """What a text is, in words, and the file ending that reads it: ("a text file of
    comma-separated rows", ".csv"), ("a web page (HTML)", ".html"), ("a Markdown table",
    ".md"); None for other text."""
    if looks_like_html(text):
        return "a web page (HTML)", ".html"
    if _MARKDOWN_RULE.search(text):
        return "a Markdown table", ".md"
    return _delimited(text)


def _delimited(text: str) -> tuple[str, str] | None:
    """The delimiter's words and ending when most of the first lines are rows of one width
    (two fields at least) split by it, the widest such split first; else None."""
    lines = [line for line in text.splitlines() if line.strip()][:_ROWS_READ]
    if not lines:
        return None
    best: tuple[int, str, str] | None = None
    for delimiter, what, ending in _DELIMITED:
        try:
            widths = Counter(len(row) for row in csv.reader(lines, delimiter=delimiter))
        except csv.Error:  # a NUL byte, or an unclosed quote over a very long field
            continue
        width, count = widths.most_common(1)[0]
        # A title line or a short last row of an export leaves the rest its rows.
        if width >= 2 and count >= _ROWS_SHARE * len(lines) and (best is None or width > best[0]):
            best = (width, what, ending)
    return None if best is None else (best[1], best[2])
