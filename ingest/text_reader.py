"""Read a plain-text document (`.txt`) into paragraphs: blocks separated by blank lines.

A one-line block that is short and does not end like a sentence ("Results of operations",
"2. Revenue") is a heading: the section of the paragraphs under it. A plain-text file has no
tables; a table written as text with a delimiter belongs in a `.csv`.
"""

from __future__ import annotations

import re
from typing import BinaryIO

from ingest import cancel
from ingest.grid import Progress
from ingest.limits import Limits
from ingest.text_chunks import Document, ParagraphList
from ingest.text_decode import decode_text

HEADING_MAX_CHARS = 80
_BLANK = re.compile(r"\n[ \t\f\v]*\n")
_UNDERLINE = re.compile(r"[=\-~]{3,}")


def read_text(stream: BinaryIO, *, name: str, limits: Limits, progress: Progress) -> Document:
    """Read a text file's paragraphs (raises `BinaryContent` for bytes that are not text)."""
    progress(0.0, "decoding text")
    text = decode_text(stream.read(), name=name, kind="text")
    progress(0.3, "reading paragraphs")
    return Document(paragraphs=text_paragraphs(text).items)


def text_paragraphs(text: str) -> ParagraphList:
    """Split text at blank lines into paragraphs and headings."""
    out = ParagraphList()
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    for n, block in enumerate(_BLANK.split(text)):
        if not n & 1023:
            cancel.check()
        lines = [line for line in block.strip().split("\n") if line.strip()]
        if len(lines) == 2 and _UNDERLINE.fullmatch(lines[1].strip()):  # Setext-style heading
            out.add(lines[0], heading=True)
            continue
        joined = " ".join(lines)
        out.add(joined, heading=len(lines) == 1 and is_heading(joined))
    return out


def is_heading(line: str) -> bool:
    """A short line that does not end like a sentence and has a letter in it."""
    line = line.strip()
    return (0 < len(line) <= HEADING_MAX_CHARS and line[-1] not in ".,;:!?)\"'"
            and any(ch.isalpha() for ch in line) and len(line.split()) <= 10)
