"""Read a plain-text document (`.txt`) into paragraphs: blocks separated by blank lines.

A block's line breaks are spaces when its lines are wrapped prose, and paragraph ends when its
lines are units of their own, as in a report of short lines (`line_units`): "Affected
customers: 312" under "Date: 12 March 2023" is a paragraph, not the middle of one.

A one-line block, or the first line of a block read line by line, that is short and does not
end like a sentence ("Results of operations", "2. Revenue") is a heading: the section of the
paragraphs under it; a "Label: value" line is not. A plain-text file has no
tables; a table written as text with a delimiter belongs in a `.csv`.
"""

from __future__ import annotations

import re
from typing import BinaryIO

from ingest import cancel
from ingest.grid import Progress
from ingest.limits import Limits
from ingest.text_chunks import LABEL, Document, ParagraphList
from ingest.text_decode import decode_text

HEADING_MAX_CHARS = 80
_BLANK = re.compile(r"\n[ \t\f\v]*\n")
_UNDERLINE = re.compile(r"[=\-~]{3,}")
_FIELD = re.compile(LABEL + r": +\S")
"""A "Label: value" line: a capitalised label of at most five words, a colon, a value."""
_LIST_ITEM = re.compile(r"(?:[-*•▪◦‣]|\(?\d{1,2}[.)]|\(?[a-z][.)]) +\S")
"""A list item: a bullet, "1." / "1)" / "(1)", or "a)" before its text."""
_SENTENCE_END = ".!?:;"
_JOINING_END = ",-/(&+"
"""Line ends that say the text goes on ("apples,", "follow-")."""
_JOINING_WORDS = frozenset(("a", "an", "and", "as", "at", "by", "for", "from", "in", "into", "of",
                            "on", "or", "than", "that", "the", "to", "with", "per", "via", "is",
                            "are", "was", "were"))
"""Words a line ending mid-sentence ends with ("... managed by" / "Maria Lopez")."""


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
        lines = [line.rstrip() for line in block.strip().split("\n") if line.strip()]
        if len(lines) == 2 and _UNDERLINE.fullmatch(lines[1].strip()):  # Setext-style heading
            out.add(lines[0], heading=True)
            continue
        units = line_units(lines)
        # A block's first line heads the lines under it ("Incident report - Data center
        # outage" over "Date: 12 March 2023"), not when the next is of its kind: in
        # "Maria Lopez" over "John Smith" each is a line of a list, and no section.
        heads = _heading_line(units[0]) and (len(units) == 1 or not _heading_line(units[1]))
        for k, unit in enumerate(units):
            out.add(" ".join(unit), heading=k == 0 and heads)
    return out


def _heading_line(unit: list[str]) -> bool:
    return len(unit) == 1 and is_heading(unit[0]) and not is_field(unit[0])


def line_units(lines: list[str]) -> list[list[str]]:
    """A block's lines in the units they make: one for wrapped prose, one per line for a
    report of short lines (`hard_break`)."""
    width = max((len(line) for line in lines), default=0)
    units = [[lines[0]]] if lines else []
    for before, line in zip(lines, lines[1:], strict=False):
        if hard_break(before, line, width):
            units.append([line])
        else:
            units[-1].append(line)
    return units


def hard_break(before: str, line: str, width: int) -> bool:
    """Whether a line break ends a unit, by the text's own evidence (`width` is the block's
    longest line):

    - a break inside a sentence is a space: the next line starts in lower case (and is no
      list item), or the line ends with a comma, a hyphen or a word such as "of" or "by";
    - a line that ends without sentence punctuation, though the next line's first word would
      have fit on it, was ended by hand (a wrapping editor breaks only where the word does not
      fit): a heading, a "Key: value" line, a list item;
    - a "Label: value" line or a list item starts a unit of its own after a line that ended
      a sentence, or after another such line.

    So wrapped prose stays one paragraph, as does a short line that ends a sentence before the
    next ("It grew.")."""
    stripped = before.strip()
    unit = is_field(line) or is_list_item(line)
    if (line.lstrip()[:1].islower() and not unit) or stripped[-1:] in _JOINING_END \
            or stripped.rsplit(" ", 1)[-1].lower() in _JOINING_WORDS:
        return False
    ends_sentence = stripped.rstrip("\"')]’”")[-1:] in _SENTENCE_END
    fits = len(before) + 1 + len(line.split()[0]) <= width
    return (fits and (not ends_sentence or unit)) or (
        unit and (ends_sentence or is_field(before) or is_list_item(before)))


def is_field(line: str) -> bool:
    """A "Label: value" line ("Affected customers: 312", "Root cause: a failed PDU.")."""
    return bool(_FIELD.match(line.strip()))


def is_list_item(line: str) -> bool:
    return bool(_LIST_ITEM.match(line.strip()))


def is_heading(line: str) -> bool:
    """A short line that does not end like a sentence and has a letter in it."""
    line = line.strip()
    return (0 < len(line) <= HEADING_MAX_CHARS and line[-1] not in ".,;:!?)\"'"
            and any(ch.isalpha() for ch in line) and len(line.split()) <= 10)
