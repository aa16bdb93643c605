"""Text of a document (the prose beside its tables) as paragraphs, and paragraphs as chunks.

Readers of prose formats (`.txt`, Markdown, HTML, `.docx`, `.pdf`) return a `Document`: the
grids of the tables found in it, and its text as `Paragraph`s in reading order, each with where
it is (page for a pdf, the heading it sits under). `chunk_paragraphs` cuts them into `Chunk`s
by structure: one chunk per paragraph, a long paragraph cut at sentence ends into windows of
at most `MAX_CHUNK_CHARS` that overlap by one sentence (about `OVERLAP_CHARS`). A chunk's
location is its paragraph's index in the document and its character span in that paragraph's
text, so a citation of a sentence inside a chunk stays a span of the same paragraph
(CONTRACTS.md "Evidence kinds", `"kind": "text"`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ingest.grid import Grid

CHUNK_SCHEMA_VERSION = 1
MAX_CHUNK_CHARS = 1_000
"""Longest chunk: about 200 WordPiece tokens, so a few fit a small context budget."""
OVERLAP_CHARS = 200
"""At most this much of a window's end starts the next window (whole sentences only)."""

_SENTENCE_END = re.compile(r"(?<=[.!?;:])[\"')\]]*\s+(?=[\"'(\[]?[A-Z0-9(])")
"""Where a sentence ends: after . ! ? ; : (and closing quotes), before a capital or a digit."""
_ABBREVIATED = re.compile(
    r"(?<![\w.])(?:(?P<title>Mr|Mrs|Ms|Mx|Dr|Prof|Rev|Hon|Messrs|Mt|St|Gen|Col|Capt|Lt|Sgt|"
    r"Sen|Rep|Gov|Fr|[A-Z])|(?P<number>No|Nos|Vol|Fig|approx)|(?P<latin>e\.g|i\.e|vs|cf|viz))"
    r"\.$")
"""The end of a text cut at an abbreviation: a title or an initial (before a name), a word
that stands before a number ("No. 5"), or a Latin one that never ends a sentence."""
_LONGEST_ABBREVIATION = len("approx.")
_NAME_NEXT = re.compile(r"(?!(?:The|This|That|These|Those|There|Then|It|Its|He|She|His|Her|"
                        r"They|Their|We|Our|I|In|On|At|As|For|From|After|Before|But|And|A|An|"
                        r"If|When|While|However|Since|During|Next|Also)\b(?!\.))[A-Z]")
"""The start of a name: a capital, but not of a word that opens a sentence ("Plan B. The
plan ..." is two sentences, "J. A. Smith" one)."""
LABEL = r"[A-Z][\w&/()'’-]*(?: [\w&/()'’-]+){0,4}"
"""The label of a "Label: value" line ("Affected customers: 312"): a capitalised word and at
most four more."""
_LABEL = re.compile(LABEL)


@dataclass(frozen=True, slots=True)
class Paragraph:
    """One block of text of a document, in reading order."""

    index: int
    """0-based position among the document's paragraphs (headings included)."""
    text: str
    page: int | None = None
    """1-based page (pdf)."""
    section: str | None = None
    """The nearest heading above it (its own text for a heading)."""
    heading: bool = False


@dataclass(frozen=True, slots=True)
class Chunk:
    """One retrievable piece of a document's text and where it is."""

    index: int
    """0-based position among the document's chunks."""
    text: str
    paragraph: int
    start: int
    """Character span [start, end) of `text` in its paragraph's text."""
    end: int
    page: int | None = None
    section: str | None = None

    def location(self) -> dict[str, Any]:
        """The Evidence location of the whole chunk (keys absent when empty)."""
        out: dict[str, Any] = {}
        if self.page is not None:
            out["page"] = self.page
        if self.section:
            out["section"] = self.section
        out.update(paragraph=self.paragraph, start=self.start, end=self.end)
        return out

    def to_dict(self) -> dict[str, Any]:
        return {"schema_version": CHUNK_SCHEMA_VERSION, "index": self.index, "text": self.text,
                **self.location()}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Chunk:
        return cls(data["index"], data["text"], data["paragraph"], data["start"], data["end"],
                   data.get("page"), data.get("section"))


@dataclass
class Document:
    """What a reader found in one file: its tables' grids and its text's paragraphs."""

    grids: list[Grid] = field(default_factory=list)
    paragraphs: list[Paragraph] = field(default_factory=list)

    def chunks(self) -> list[Chunk]:
        return chunk_paragraphs(self.paragraphs)


class ParagraphList:
    """Collects a reader's paragraphs: numbers them, tracks the current heading, drops blanks."""

    def __init__(self) -> None:
        self.items: list[Paragraph] = []
        self.section: str | None = None

    def add(self, text: str, *, page: int | None = None, heading: bool = False) -> None:
        text = clean(text)
        if not text:
            return
        if heading:
            self.section = text[:200]
        self.items.append(Paragraph(len(self.items), text, page, self.section, heading))


def clean(text: str) -> str:
    """Collapse runs of white space (a paragraph's line breaks become spaces)."""
    return " ".join(text.replace("\xad", "").split())


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """The [start, end) spans of the sentences of a paragraph. The colon after a label that
    opens a sentence ends nothing: "Affected customers: 312" is one sentence; nor does the
    period of a title or an initial before a name: "The head of sales is Mr. John Smith." is
    one sentence, not one that ends "is Mr."."""
    spans, start = [], 0
    for match in _SENTENCE_END.finditer(text):
        if text[match.start() - 1] == ":" and _LABEL.fullmatch(text, start, match.start() - 1):
            continue
        if _abbreviation_goes_on(text, start, match.start(), match.end()):
            continue
        spans.append((start, match.start()))
        start = match.end()
    if start < len(text):
        spans.append((start, len(text)))
    return [(s, e) for s, e in spans if text[s:e].strip()]


def _abbreviation_goes_on(text: str, start: int, end: int, after: int) -> bool:
    """Whether the period that ends text[start:end] is an abbreviation's and the sentence
    goes on at `after`: a title or an initial before a name, "No." before a number, "e.g."
    before anything."""
    # Only the end is searched: a sentence that goes on past many abbreviations ("No. 1,
    # No. 2, ...") would otherwise be read again from its start at each one.
    m = _ABBREVIATED.search(text, max(start, end - _LONGEST_ABBREVIATION), end)
    if m is None:
        return False
    if m.group("latin"):
        return True
    if m.group("number"):
        return text[after:after + 1].isdigit()
    return _NAME_NEXT.match(text, after) is not None


def chunk_paragraphs(paragraphs: Iterable[Paragraph], *, max_chars: int = MAX_CHUNK_CHARS,
                     overlap: int = OVERLAP_CHARS) -> list[Chunk]:
    """Cut paragraphs into chunks (see the module's docstring). A heading is not a chunk of
    its own: it is the `section` of the chunks under it."""
    chunks: list[Chunk] = []
    for para in paragraphs:
        if para.heading:
            continue
        for start, end in windows(para.text, max_chars, overlap):
            chunks.append(Chunk(len(chunks), para.text[start:end], para.index, start, end,
                                para.page, para.section))
    return chunks


def windows(text: str, max_chars: int, overlap: int) -> list[tuple[int, int]]:
    """Spans of at most `max_chars` (a longer sentence is cut at a space), each starting with
    the last sentences of the one before that fit in `overlap`."""
    if len(text) <= max_chars:
        return [(0, len(text))]
    pieces: list[tuple[int, int]] = []
    for s, e in sentence_spans(text):
        while e - s > max_chars:  # a sentence longer than a window: cut at a space
            cut = text.rfind(" ", s + 1, s + max_chars) if " " in text[s + 1:s + max_chars] \
                else s + max_chars
            pieces.append((s, cut))
            s = cut + 1 if text[cut:cut + 1] == " " else cut
        pieces.append((s, e))
    out: list[tuple[int, int]] = []
    i = 0
    while i < len(pieces):
        start, end = pieces[i][0], pieces[i][1]
        j = i + 1
        while j < len(pieces) and pieces[j][1] - start <= max_chars:
            end = pieces[j][1]
            j += 1
        out.append((start, end))
        if j >= len(pieces):
            break
        # The next window starts with the last sentences of this one that fit in `overlap`.
        k = j
        while k - 1 > i and end - pieces[k - 1][0] <= overlap:
            k -= 1
        i = k
    return out
