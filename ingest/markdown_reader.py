"""Read the tables of a Markdown document into grids: one grid per pipe table (GFM syntax).

Numbering follows the HTML reader: every table gets a number k in document order and its grid
is the sheet "table<k>"; tables without any cell text are skipped but keep their number.
The header row is row 1. Rows with fewer cells than the header are padded with empty cells and
extra cells are dropped, as GitHub renders them.

Cell text is the cell's inline content as plain text: emphasis markers dropped, code kept,
links as their text, images as their alt text, <br> as a line break. A cell is bold when all its
text is **strong** (header cells always are, as rendered), italic when all of it is *emphasised*,
and indented by the number of leading non-breaking spaces (&nbsp;).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from functools import cache
from typing import TYPE_CHECKING, Any, BinaryIO

from ingest import cancel
from ingest.errors import TooManyCells
from ingest.grid import PLAIN, Cell, Grid, Progress, Style
from ingest.limits import Limits
from ingest.text_decode import decode_text

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.token import Token

_BR = re.compile(r"<br\s*/?>", re.IGNORECASE)

_Row = "list[tuple[bool, list[Token]]]"
"""One table row: per cell, whether it is a header cell and its inline tokens."""


def read_markdown(stream: BinaryIO, *, name: str, limits: Limits,
                  progress: Progress) -> list[Grid]:
    """Read the non-empty tables of a Markdown document into grids, in document order.

    Raises `BinaryContent` for bytes that are not text and `TooManyCells` past
    `limits.max_cells`.
    """
    progress(0.0, "decoding Markdown")
    text = decode_text(stream.read(), name=name, kind="Markdown")
    progress(0.1, "parsing Markdown")
    tokens = _parser().parse(text)
    progress(0.6, "reading Markdown tables")
    grids: list[Grid] = []
    cell_count = 0
    for number, rows in enumerate(_tables(tokens), start=1):
        cells = _cells(rows)
        cell_count += len(cells)
        if cell_count > limits.max_cells:
            raise TooManyCells(
                name, f"its tables hold more than {limits.max_cells:,} cells.",
                "Split the document into smaller files, or raise TABLELENS_MAX_CELLS.")
        if cells:
            grids.append(Grid(name, f"table{number}", len(grids), len(rows),
                              max(len(row) for row in rows), "markdown", cells))
    return grids


@cache
def _parser() -> MarkdownIt:
    """Return the CommonMark parser with GitHub's tables and ~~strikethrough~~ (built once)."""
    # Imported here: 4 MB of every upload's peak, for Markdown files alone.
    from markdown_it import MarkdownIt

    parser = MarkdownIt("commonmark").enable(["table", "strikethrough"])
    # The block parser tries its rules at the start of every block, and a table's or a
    # paragraph's "terminator" rules (alt) on each of its lines: this one only checks for Stop
    # (a 20,000-row table is a second of pure Python in one rule) and matches nothing.
    parser.block.ruler.before("table", "tablelens_stop", _check_stop,
                              {"alt": ["paragraph", "reference", "blockquote"]})
    # A table is one block, read in one go; its cells' text is parsed inline one by one.
    parser.inline.ruler.before("text", "tablelens_stop", _check_stop_inline)
    return parser


def _check_stop(state: Any, start_line: int, end_line: int, silent: bool) -> bool:
    """A block rule that raises when the ingest was stopped, and otherwise never matches."""
    cancel.check()
    return False


def _check_stop_inline(state: Any, silent: bool) -> bool:
    """The inline form of `_check_stop`."""
    cancel.check()
    return False


def _tables(tokens: Sequence[Token]) -> Iterator[list[_Row]]:
    """Yield each table's rows, in document order."""
    rows: list[_Row] = []
    header = False
    for n, token in enumerate(tokens):
        if not n & 4095:
            cancel.check()
        if token.type == "table_open":
            rows = []
        elif token.type == "tr_open":
            rows.append([])
        elif token.type in ("th_open", "td_open"):
            header = token.type == "th_open"
        elif token.type == "inline" and rows:
            rows[-1].append((header, token.children or []))
        elif token.type == "table_close":
            yield rows
            rows = []


def _cells(rows: list[_Row]) -> dict[tuple[int, int], Cell]:
    """Return the table's cells that have text, keyed by 1-based (row, col)."""
    cells: dict[tuple[int, int], Cell] = {}
    for r, row in enumerate(rows, start=1):
        cancel.check()
        for c, (header, children) in enumerate(row, start=1):
            text, style = _plain_text(children, header=header)
            if text:
                cells[(r, c)] = Cell(r, c, text, text, style=style)
    return cells


def _plain_text(children: list[Token], *, header: bool) -> tuple[str, Style]:
    """Render a cell's inline tokens as plain text, and its bold/italic/indent style."""
    lines: list[list[str]] = [[]]
    bold, italic = int(header), 0
    all_bold = all_italic = True
    seen = False
    for token in children:
        kind = token.type
        if kind in ("strong_open", "strong_close"):
            bold += 1 if kind == "strong_open" else -1
        elif kind in ("em_open", "em_close"):
            italic += 1 if kind == "em_open" else -1
        elif kind == "hardbreak" or (kind == "html_inline" and _BR.fullmatch(token.content)):
            lines.append([])
        elif kind == "softbreak":
            lines[-1].append(" ")
        elif kind in ("text", "code_inline", "image"):  # an image's content is its alt text
            lines[-1].append(token.content)
            if token.content and not token.content.isspace():
                seen = True
                all_bold = all_bold and bold > 0
                all_italic = all_italic and italic > 0
    text = "\n".join(" ".join("".join(parts).split()) for parts in lines).strip("\n")
    first = "".join(lines[0])
    indent = first[:len(first) - len(first.lstrip())].count("\xa0")
    bold_cell, italic_cell = seen and all_bold, seen and all_italic
    if not (bold_cell or italic_cell or indent):
        return text, PLAIN  # one shared object for the common case
    return text, Style(bold=bold_cell, italic=italic_cell, indent=indent)
