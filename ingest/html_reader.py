"""Read the tables of an HTML page into grids: one grid per <table> element.

The page is parsed with lxml's event interface (a parser *target*), which builds no tree:
a first pass measures how deeply elements nest and refuses pages deeper than the limit, a
second pass collects the tables. Without a tree, memory grows with the table cells only, and
nothing recurses over the document. lxml's tree builder is avoided on purpose: it silently
drops everything nested below depth 256 (2048 with huge_tree), while its event parser has no
depth limit of its own, so the depth measured is the depth of the document as parsed.

Numbering: every <table> outside <script>, <style>, <template> and <noscript> gets a number
k in document order (an outer table before the tables nested in it), and its grid is the
sheet "table<k>". Tables without any cell text are skipped but keep their number, so a
sheet name always points at the same table of the page. `Grid.index` is the grid's position
among the grids returned.

Nested tables: a table inside a cell becomes its own grid, and its text is not part of the
outer cell's text.

Hidden text: inside a cell or caption, an element a browser does not show (the `hidden`
attribute, or an inline style with `display: none` or `visibility: hidden`) is skipped with
everything in it, as for <script>: Wikipedia's sortable tables put sort keys in such spans
("<span style="display:none">7000243...</span>2.43%"). Text marked only `aria-hidden` is shown
by browsers and is kept. A table inside hidden cell content is not read and gets no number.

Cells are placed by the HTML table algorithm: a cell takes the first slot of its row that no
rowspan from an earlier row occupies. Spans are clamped (a warning on the grid says so) to the
limits, to the end of the row group (as browsers render them; thead, each tbody, tfoot and
each run of bare <tr> are row groups), and so that a colspan does not overlap a cell spanning
down from an earlier row.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import partial
from typing import BinaryIO, Protocol, TypeVar

from lxml import etree

from ingest import cancel
from ingest.errors import NestingTooDeep, TooManyCells
from ingest.grid import PLAIN, Cell, Grid, Progress, Style
from ingest.limits import Limits
from ingest.text_decode import decode_text

_IGNORED = frozenset({"script", "style", "template", "noscript"})
"""Elements whose content is not shown as page text."""
LEAD_CAPTION_CHARS = 150
"""The longest text right before a table taken as its caption: a title, not a paragraph."""
_SENTENCES = re.compile(r"[.!?]\s+\S")
"""A sentence ending inside a text: two sentences are prose ("Part-time staff are marked with
†. Call extensions ..."), whose words say nothing the table's cells hold."""

_ROW_GROUPS = frozenset({"thead", "tbody", "tfoot"})
_CELLS = frozenset({"td", "th"})
_BOLD = frozenset({"b", "strong"})
_ITALIC = frozenset({"i", "em"})

_INLINE = frozenset({
    "a", "abbr", "acronym", "b", "bdi", "bdo", "big", "cite", "code", "data", "del", "dfn",
    "em", "font", "i", "img", "ins", "kbd", "label", "mark", "nobr", "q", "s", "samp", "small",
    "span", "strike", "strong", "sub", "sup", "time", "tt", "u", "var", "wbr",
})
"""Elements that flow within a line: text on either side joins without a space, so
"1<sup>st</sup>" reads "1st" and "<span>1</span>,<span>000</span>" reads "1,000". Text on either
side of any other element (a <div>, a <p>) is separated by a space."""

_HIDDEN_STYLE = re.compile(r"(?<![\w-])(?:display\s*:\s*none|visibility\s*:\s*(?:hidden|collapse))"
                           r"(?![\w-])", re.IGNORECASE)
"""An inline style that hides an element from view."""

_BOLD_STYLE = re.compile(r"font-weight\s*:\s*(bold|bolder|[6-9]00)\b", re.IGNORECASE)
_ITALIC_STYLE = re.compile(r"font-style\s*:\s*(italic|oblique)\b", re.IGNORECASE)

_CHARSET_SNIFF_BYTES = 16384
# Bounded repetitions keep the search linear on hostile input such as "<meta<meta<meta...".
_META_CHARSET = re.compile(rb"<meta[^>]{0,1024}?charset\s*=\s*[\"']?\s*([\w.:-]+)", re.IGNORECASE)
_XML_ENCODING = re.compile(rb"\s*<\?xml[^>]{0,200}?encoding\s*=\s*[\"']([\w.:-]+)")

_SPAN_NUMBER = re.compile(r"\s*\+?(\d+)")
_HUGE_SPAN = 10**9
"""Stands in for span values too long to convert (they are clamped anyway)."""

_NO_ATTRIBUTES: Mapping[str, str] = {}

_OPEN_END = 2**62
"""The last row of a rowspan="0" cell until its row group ends."""


def read_html(stream: BinaryIO, *, name: str, limits: Limits,
              progress: Progress) -> list[Grid]:
    """Read the non-empty tables of an HTML page into grids, in document order.

    Raises `BinaryContent` for bytes that are not text, `NestingTooDeep` for elements nested
    deeper than `limits.max_html_depth`, and `TooManyCells` past `limits.max_cells`.
    """
    progress(0.0, "decoding HTML")
    data = stream.read()
    text = decode_text(data, name=name, kind="HTML", declared=_declared_charset(data))
    progress(0.1, "checking HTML nesting")
    _check_depth(text, name=name, limit=limits.max_html_depth)
    progress(0.3, "reading HTML tables")
    tables = _parse(text, _Collector(_Budget(name, limits.max_cells), limits))
    grids: list[Grid] = []
    for table in tables:
        cancel.check()
        if table.has_text:
            grids.append(table.to_grid(name, index=len(grids)))
    return grids


def _declared_charset(data: bytes) -> str | None:
    """Return the encoding label an HTML page declares near its start (<meta>, <?xml?>)."""
    head = data[:_CHARSET_SNIFF_BYTES]
    match = _XML_ENCODING.match(head) or _META_CHARSET.search(head)
    return match.group(1).decode("ascii") if match else None


_R_co = TypeVar("_R_co", covariant=True)


class _Target(Protocol[_R_co]):
    """The parser-target interface lxml calls (start, end and close; data is optional)."""

    def start(self, tag: str, attrib: Mapping[str, str]) -> None: ...

    def end(self, tag: str) -> None: ...

    def close(self) -> _R_co: ...


def _parse(text: str, target: _Target[_R_co]) -> _R_co:
    """Feed the page to lxml's HTML parser and return what the target's close() returns."""
    parser = etree.HTMLParser(target=target)
    parser.feed(text)
    return parser.close()


class _DepthProbe:
    """Measure the deepest element nesting of a page, without building a tree."""

    def __init__(self) -> None:
        self.depth = 0
        self.deepest = 0
        self.seen = 0

    def start(self, tag: str, attrib: Mapping[str, str]) -> None:
        self.depth += 1
        self.deepest = max(self.deepest, self.depth)
        self.seen += 1
        if not self.seen & 1023:
            cancel.check()  # raised out of lxml's feed(), which stops parsing

    def end(self, tag: str) -> None:
        self.depth -= 1

    def close(self) -> int:
        return self.deepest


def _check_depth(text: str, *, name: str, limit: int) -> None:
    """Raise `NestingTooDeep` when the page nests elements deeper than `limit`."""
    deepest = _parse(text, _DepthProbe())
    if deepest > limit:
        raise NestingTooDeep(
            name, f"its HTML elements are nested {deepest:,} levels deep; the limit is {limit:,}.",
            "Save just the tables as a simpler page, or raise TABLELENS_MAX_HTML_DEPTH.")


class _Budget:
    """Count the cells of one file against the per-file limit.

    Every slot a merged cell covers counts as a cell: each shows the anchor's value and costs
    an entry in the grid's merge index, so huge spans cannot exhaust memory.
    """

    def __init__(self, name: str, limit: int) -> None:
        self.name = name
        self.limit = limit
        self.used = 0

    def add(self, count: int) -> None:
        """Count `count` more cells; raise `TooManyCells` past the limit."""
        self.used += count
        if self.used > self.limit:
            raise TooManyCells(
                self.name, f"its tables hold more than {self.limit:,} cells (a merged cell "
                "counts every slot it covers).",
                "Split the page into smaller files, or raise TABLELENS_MAX_CELLS.")


class _Text:
    """Collect the visible text of a cell or caption, and whether all of it is bold or italic."""

    def __init__(self, *, bold: bool = False, italic: bool = False) -> None:
        self.lines: list[list[str]] = [[]]
        self.bold = int(bold)
        self.italic = int(italic)
        self.all_bold = True
        self.all_italic = True
        self.seen = False

    def add(self, data: str) -> None:
        """Append character data, noting its formatting if it is visible."""
        self.lines[-1].append(data)
        if not data.isspace():
            self.seen = True
            self.all_bold = self.all_bold and self.bold > 0
            self.all_italic = self.all_italic and self.italic > 0

    def enter(self, bold: bool, italic: bool, block: bool) -> None:
        """Start an element inside the text (a <b>, a <div>)."""
        self.bold += bold
        self.italic += italic
        if block:
            self.separate()

    def leave(self, bold: bool, italic: bool, block: bool) -> None:
        """End an element started with `enter`."""
        self.bold -= bold
        self.italic -= italic
        if block:
            self.separate()

    def separate(self) -> None:
        """Keep the text on either side of a block element apart."""
        self.lines[-1].append(" ")

    def line_break(self) -> None:
        """Start a new line (a <br>)."""
        self.lines.append([])

    def value(self) -> str:
        """Return the text with whitespace collapsed within lines, <br> lines kept."""
        lines = (" ".join("".join(parts).split()) for parts in self.lines)
        return "\n".join(lines).strip("\n")

    def style(self) -> Style:
        """Return bold/italic when all visible text is; indent from leading &nbsp;."""
        first = "".join(self.lines[0])
        leading = first[:len(first) - len(first.lstrip())]
        bold, italic = self.seen and self.all_bold, self.seen and self.all_italic
        indent = leading.count("\xa0")
        if not (bold or italic or indent):
            return PLAIN  # one shared object for the common case
        return Style(bold=bold, italic=italic, indent=indent)


@dataclass(slots=True)
class _Busy:
    """Columns start..end_col of later rows, occupied by a cell spanning down to last_row."""

    last_row: int
    end_col: int


@dataclass(slots=True)
class _Placed:
    """A cell whose slot is known and whose text is still being read."""

    row: int
    col: int
    rowspan: int
    colspan: int
    rowspan_attr: str
    text: _Text


class _Table:
    """Place the cells of one <table> as the parser reports them, and build its grid."""

    def __init__(self, number: int, limits: Limits, budget: _Budget) -> None:
        self.label = f"table{number}"
        self.limits = limits
        self.budget = budget
        self.cells: dict[tuple[int, int], Cell] = {}
        self.warnings: list[str] = []
        self.caption: str | None = None
        self.lead: str | None = None
        """The short block of text right before the table, its caption when it has none."""
        self.n_rows = 0
        self.n_cols = 0
        self.has_text = False
        self.text: _Text | None = None
        """Where character data goes now: the open cell or caption, if any."""
        self._row_open = False
        self._next_col = 1
        self._busy: dict[int, _Busy] = {}
        """Spans from earlier rows of the row group, by their first column."""
        self._spanning: list[tuple[Cell, str]] = []
        """Cells of the row group with rowspan != 1, with their rowspan attribute."""
        self._placed: _Placed | None = None

    def start_row(self) -> None:
        """Begin the next row; count the slots that spans from earlier rows cover in it."""
        cancel.check()  # once per row: lxml calls back into Python for every tag
        self.n_rows += 1
        self._row_open = True
        self._next_col = 1
        row = self.n_rows
        self._busy = {col: busy for col, busy in self._busy.items() if busy.last_row >= row}
        self.budget.add(sum(busy.end_col - col + 1 for col, busy in self._busy.items()))

    def end_row(self) -> None:
        self._row_open = False

    def start_cell(self, tag: str, attrib: Mapping[str, str]) -> None:
        """Place a <td>/<th> in the first free slot of the row and start reading its text."""
        if not self._row_open:  # a cell outside any <tr> starts an implied row
            self.start_row()
        row = self.n_rows
        col = self._next_col
        while (busy := self._busy.get(col)) is not None:
            col = busy.end_col + 1
        colspan = self._fit_colspan(row, col, self._colspan(row, attrib.get("colspan")))
        rowspan_attr = attrib.get("rowspan", "")
        rowspan = self._rowspan(row, rowspan_attr)
        if rowspan != 1:
            last = row + rowspan - 1 if rowspan else _OPEN_END
            self._busy[col] = _Busy(last_row=last, end_col=col + colspan - 1)
        self.budget.add(colspan - 1)
        self._next_col = col + colspan
        self.n_cols = max(self.n_cols, col + colspan - 1)
        style = attrib.get("style", "")
        text = _Text(bold=tag == "th" or bool(_BOLD_STYLE.search(style)),
                     italic=bool(_ITALIC_STYLE.search(style)))
        self._placed = _Placed(row, col, rowspan, colspan, rowspan_attr, text)
        self.text = text

    def end_cell(self) -> None:
        """Store the cell if it has text or spans more than one slot."""
        placed, self._placed, self.text = self._placed, None, None
        if placed is None:
            return
        value = placed.text.value()
        if not value and placed.rowspan == 1 and placed.colspan == 1:
            return
        self.budget.add(1)
        self.has_text = self.has_text or bool(value)
        cell = Cell(placed.row, placed.col, value or None, value, rowspan=placed.rowspan,
                    colspan=placed.colspan, style=placed.text.style())
        self.cells[(cell.row, cell.col)] = cell
        if cell.rowspan != 1:
            self._spanning.append((cell, placed.rowspan_attr))

    def start_caption(self) -> None:
        self.text = _Text()

    def end_caption(self) -> None:
        """Keep the first non-empty caption."""
        if self.text is not None and self.caption is None:
            self.caption = self.text.value() or None
        self.text = None

    def end_group(self) -> None:
        """End a row group: fit its rowspans to its last row; later rows start free."""
        last = self.n_rows
        for cell, attr in self._spanning:
            if cell.rowspan == 0:
                cell.rowspan = last - cell.row + 1
            elif cell.row + cell.rowspan - 1 > last:
                fitted = last - cell.row + 1
                self.warnings.append(f"{self.label}: rowspan {_shown(attr)} at row {cell.row} "
                                     f"clamped to {fitted} (its row group ends at row {last})")
                cell.rowspan = fitted
            if not cell.text and not cell.is_merged:
                del self.cells[(cell.row, cell.col)]
        self._spanning.clear()
        self._busy.clear()
        self._row_open = False

    def to_grid(self, source: str, *, index: int) -> Grid:
        """Return the table as a grid (call after the table has ended)."""
        return Grid(source, self.label, index, self.n_rows, self.n_cols, "html", self.cells,
                    caption=self.caption or self.lead, warnings=self.warnings)

    def _colspan(self, row: int, attr: str | None) -> int:
        """Return the colspan attribute's value: 1 when absent or invalid, clamped to the cap."""
        value = _span_value(attr) or 1
        cap = self.limits.max_html_span
        if value > cap:
            self.warnings.append(f"{self.label}: colspan {_shown(attr)} at row {row} "
                                 f"clamped to {cap}")
            return cap
        return value

    def _rowspan(self, row: int, attr: str) -> int:
        """Return the rowspan attribute's value: 1 when invalid, 0 for "to the group's end"."""
        value = _span_value(attr)
        if value is None:
            return 1
        cap = self.limits.max_html_rowspan
        if value > cap:
            self.warnings.append(f"{self.label}: rowspan {_shown(attr)} at row {row} "
                                 f"clamped to {cap}")
            return cap
        return value

    def _fit_colspan(self, row: int, col: int, colspan: int) -> int:
        """Shrink a colspan that would overlap a cell spanning down from an earlier row."""
        for other in range(col + 1, col + colspan):
            if other in self._busy:
                fitted = other - col
                self.warnings.append(f"{self.label}: colspan {colspan} at row {row} clamped to "
                                     f"{fitted} (a cell from an earlier row spans column "
                                     f"{other})")
                return fitted
        return colspan


def _span_value(attr: str | None) -> int | None:
    """Parse a span attribute by HTML's rules for non-negative integers (None when invalid)."""
    match = _SPAN_NUMBER.match(attr) if attr is not None else None
    if match is None:
        return None
    digits = match.group(1).lstrip("0") or "0"
    return int(digits) if len(digits) < 10 else _HUGE_SPAN


def _shown(attr: str | None) -> str:
    """Return an attribute value shortened for a warning."""
    value = (attr or "").strip()
    return value if len(value) <= 20 else value[:20] + "..."


class _Collector:
    """Receive lxml parser events and build a `_Table` for every <table>, in document order."""

    def __init__(self, budget: _Budget, limits: Limits) -> None:
        self.budget = budget
        self.limits = limits
        self.tables: list[_Table] = []
        self._open: list[_Table] = []
        self._undo: list[Callable[[], None] | None] = []
        """What ends each open element, innermost last (lxml reports balanced events)."""
        self._skipping = 0
        """How many open elements are inside an ignored one (<script>, <template>...)."""
        self._loose: list[str] = []
        """Text outside every table since the last block boundary."""
        self._lead: str | None = None
        """The last block of text before the next table ("Balance sheet (in millions)"): the
        caption of a table that has no <caption>, where a page states its title and unit."""

    def start(self, tag: str, attrib: Mapping[str, str]) -> None:
        if self._skipping or tag in _IGNORED or (attrib and self._hides_text(attrib)):
            self._skipping += 1
            return
        # lxml reports "no attributes" as a mapping whose lookups are slow Python code.
        self._undo.append(self._start_element(tag, attrib or _NO_ATTRIBUTES))

    def end(self, tag: str) -> None:
        if self._skipping:
            self._skipping -= 1
            return
        if self._undo and (undo := self._undo.pop()) is not None:
            undo()

    def data(self, data: str) -> None:
        if self._skipping:
            return
        if not self._open:
            self._loose.append(data)
        elif (text := self._open[-1].text) is not None:
            text.add(data)

    def _block_boundary(self) -> None:
        """End the block of loose text: a short one may title the table that follows."""
        text = " ".join("".join(self._loose).split())
        self._loose = []
        if text:
            self._lead = text if len(text) <= LEAD_CAPTION_CHARS \
                and not _SENTENCES.search(text) else None

    def close(self) -> list[_Table]:
        return self.tables

    def _hides_text(self, attrib: Mapping[str, str]) -> bool:
        """Whether an element inside a cell or caption is hidden from view, with its content."""
        if not self._open or self._open[-1].text is None:
            return False  # the structure (rows, cells) outside cell text is kept as it is
        if "hidden" in attrib:
            return True
        style = attrib.get("style")
        return bool(style) and _HIDDEN_STYLE.search(style) is not None

    def _start_element(self, tag: str, attrib: Mapping[str, str]) -> Callable[[], None] | None:
        """Act on an element's start; return what to do at its end."""
        table = self._open[-1] if self._open else None
        if tag == "table":
            return self._start_table(table)
        if table is None:
            if tag not in _INLINE:
                self._block_boundary()
                return self._block_boundary
            return None
        if tag in _ROW_GROUPS:
            table.end_group()
            return table.end_group
        if tag == "tr":
            table.start_row()
            return table.end_row
        if tag in _CELLS:
            table.start_cell(tag, attrib)
            return table.end_cell
        if tag == "caption":
            table.start_caption()
            return table.end_caption
        return _start_inner(table.text, tag, attrib)

    def _start_table(self, parent: _Table | None) -> Callable[[], None]:
        """Open a table (numbered in document order) inside `parent`, if any."""
        if parent is not None and parent.text is not None:
            parent.text.separate()
        table = _Table(len(self.tables) + 1, self.limits, self.budget)
        if parent is None:
            self._block_boundary()
            table.lead, self._lead = self._lead, None
        self.tables.append(table)
        self._open.append(table)
        return self._end_table

    def _end_table(self) -> None:
        self._open.pop().end_group()
        if not self._open:
            self._loose, self._lead = [], None  # text before a table titles that one only


def _start_inner(text: _Text | None, tag: str,
                 attrib: Mapping[str, str]) -> Callable[[], None] | None:
    """Start an element inside a cell's text (<b>, <br>, <div>); return what ends it."""
    if text is None:
        return None
    if tag == "br":
        text.line_break()
        return None
    style = attrib.get("style", "")
    bold = tag in _BOLD or bool(style and _BOLD_STYLE.search(style))
    italic = tag in _ITALIC or bool(style and _ITALIC_STYLE.search(style))
    block = tag not in _INLINE
    text.enter(bold, italic, block)
    return partial(text.leave, bold, italic, block)
