"""The grid: one sheet (or HTML/Markdown table, or CSV file) as cells with source coordinates.

Every reader in `ingest/` returns `Grid` objects. A grid stores *anchor* cells only, by row
(`ingest.cell_index`): a merged range is one `Cell` at its top-left corner with
`rowspan`/`colspan`; the slots it covers are indexed once in `covered` (slot -> anchor
position), so merge lookup is O(1) per cell instead of a scan over all merged ranges.

Rows and columns are 1-based, as in a spreadsheet; `ref` is the A1 reference on the grid's sheet
for every format (CONTRACTS.md: "Table and cell identity").
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from openpyxl.utils.cell import get_column_letter

from ingest.cell_index import CellIndex
from ingest.numfmt import general

GRID_SCHEMA_VERSION = 1

Value = str | int | float | bool | dt.datetime | dt.date | dt.time | None
Progress = Callable[[float, str], None]
"""A progress callback: fraction done in [0, 1] and a short description of the stage."""


def no_progress(fraction: float, stage: str) -> None:
    """Ignore progress reports (the default callback)."""


def a1(row: int, col: int) -> str:
    """Return the A1 reference of a 1-based (row, col)."""
    return f"{get_column_letter(col)}{row}"


SHEET_FORMATS = (".xlsx", ".xlsm", ".xls", ".ods")
"""File endings whose grids are a workbook's sheets, named by the workbook's author."""
_NAMED_BY_READER = re.compile(r"(?:table|image)(\d+)|page(\d+)-table(\d+)")
"""The sheet ids readers give the tables of a page, a document or an image (`Grid.sheet`)."""


def named_by_reader(sheet: str) -> bool:
    """Whether a sheet id is one a reader gave ("table1", "image1", "page3-table2"), which
    tells a person nothing without its file's name."""
    return _NAMED_BY_READER.fullmatch(sheet) is not None


def sheet_words(file_name: str, sheet: str) -> str:
    """Where a table is in its file, in the words a person knows it by: "sheet P&L" of a
    workbook; "table 2" of a page, a Markdown or Word file or an image (the second table
    found); "page 3, table 1" of a pdf; nothing of a CSV, whose one table is the file. The
    grid's sheet id ("table2", "page3-table1") stays what data and refs use."""
    ext = Path(file_name).suffix.lower()
    if ext in SHEET_FORMATS:
        return f"sheet {sheet}"
    if ext in (".csv", ".tsv") and sheet == Path(file_name).stem:
        return ""
    named = _NAMED_BY_READER.fullmatch(sheet)
    if named is None:
        return f"sheet {sheet}"
    number, page, on_page = named.groups()
    return f"table {number}" if number else f"page {page}, table {on_page}"


def table_place(file_name: str, sheet: str) -> str:
    """A table as people know it: "financial.xlsx, sheet P&L", "ops_report.docx, table 1",
    "annual.pdf, page 3, table 1", "sales.csv" (`sheet_words`), not its id."""
    words = sheet_words(file_name, sheet)
    return f"{file_name}, {words}" if words else file_name


@dataclass(frozen=True, slots=True)
class Style:
    """Formatting hints that carry meaning in reports (bold headers, indented children, bands)."""

    bold: bool = False
    italic: bool = False
    fill: str | None = None
    """Solid fill colour as "RRGGBB", None when unfilled."""
    indent: int = 0
    """Indent level (Excel's alignment indent, or leading-space depth for text formats)."""
    borders: str = ""
    """Sides that carry a border, a subset of "TBLR" in that order."""
    number_format: str | None = None
    """The source's number format when it is not "General"."""

    def to_dict(self) -> dict[str, Any]:
        """Return the non-default fields only (compact JSON)."""
        out: dict[str, Any] = {}
        for name in ("bold", "italic", "fill", "indent", "borders", "number_format"):
            value = getattr(self, name)
            if value != getattr(PLAIN, name):
                out[name] = value
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any] | None) -> Style:
        """Rebuild a style from `to_dict` output."""
        if not data:
            return PLAIN
        return cls(**data)


PLAIN = Style()


@dataclass(slots=True)
class Cell:
    """One anchor cell: its position, raw value, displayed text, span and hints."""

    row: int
    col: int
    raw: Value
    """The value as the source stores it (a number, a date, text; None for an empty merge).
    For a cell read from an image: the text as OCR read it, before any correction."""
    text: str
    """The text a person sees in the source (number formats applied). A reader may give None
    for a number shown in the General format: it is then built when read (`_text`)."""
    rowspan: int = 1
    colspan: int = 1
    style: Style = PLAIN
    hidden: bool = False
    """In a hidden row or column of the source."""
    formula_uncached: bool = False
    """A formula whose result the file does not store: its value is unknown, not empty."""
    box: tuple[int, int, int, int] | None = None
    """Pixel box [x0, y0, x1, y1] for cells read from images."""
    confidence: float | None = None
    """Recognition confidence in [0, 1] for cells read from images."""
    flags: tuple[str, ...] = ()
    """For cells read from images: "corrected" (digit look-alikes or separators fixed),
    "low_confidence", "not_a_number" (in a numeric column, still no number)."""

    @property
    def ref(self) -> str:
        return a1(self.row, self.col)

    @property
    def range_ref(self) -> str:
        """"B1:C1" for a merged cell, "B1" otherwise."""
        if self.rowspan == 1 and self.colspan == 1:
            return self.ref
        return f"{self.ref}:{a1(self.row + self.rowspan - 1, self.col + self.colspan - 1)}"

    @property
    def is_merged(self) -> bool:
        return self.rowspan > 1 or self.colspan > 1


_TEXT_SLOT = Cell.text  # the slot's own descriptor, before the property below takes its name
given_text = _TEXT_SLOT.__get__
"""`given_text(cell)`: the text its reader gave, None for a General number (never blank).
For the loops over every cell that only ask whether a cell is blank: reading `cell.text`
there would write out each number's text only to test it (0.4 s a pass at 1M cells)."""


def _text(cell: Cell) -> str:
    """A cell's display text: the one the reader gave, else its General number written out.

    Most cells of a big sheet are General numbers; holding each one's text beside its value was
    a sixth of a 1M-cell upload's peak (52 MB), for texts that are read about once each (when
    the cell is stored)."""
    text = given_text(cell)
    return general(cell.raw) if text is None else text  # type: ignore[arg-type]


Cell.text = property(_text, _TEXT_SLOT.__set__)  # type: ignore[assignment]


def shows_text(cell: Cell) -> bool:
    """Whether the cell shows any text, as `bool(cell.text.strip())`, without writing out a
    General number's text."""
    text = given_text(cell)
    return text is None or bool(text.strip())


@dataclass
class Grid:
    """One rectangular table of anchor cells, from one sheet or table of a source file.

    `cells` maps (row, col) to anchor cells; empty, unmerged slots are absent. A reader may
    pass a dict; it is held as a `CellIndex`. Grids read from
    large CSV files are *streamed*: they hold no cells and `rows_source` re-reads the file, so a
    60 MB file never becomes millions of Python objects at once.
    """

    source: str
    """The original file name, as uploaded."""
    sheet: str
    """Sheet name; an HTML/Markdown page's k-th table is "table<k>"; a CSV is its file stem;
    the k-th table found in an image is "image<k>"."""
    index: int
    """0-based position of this grid among the grids of its source."""
    n_rows: int
    n_cols: int
    kind: str
    """"xlsx", "xls", "ods", "csv", "html", "markdown" or "image"."""
    cells: CellIndex = field(default_factory=CellIndex)
    caption: str | None = None
    """A caption the source gives the table (HTML <caption>)."""
    warnings: list[str] = field(default_factory=list)
    """Things the reader changed to make the grid sane (a clamped span), in plain words."""
    rows_source: Callable[[], Iterator[list[Cell]]] | None = None
    """For streamed grids: re-reads the source and yields its rows of anchor cells."""
    streamed_cell_count: int = 0
    """For streamed grids: the anchor cells counted while validating the source."""
    text_rows: Callable[[], Iterator[list[str]]] | None = None
    """For streamed CSV grids: re-reads the source and yields every record (blank ones too,
    so the k-th is sheet row k) as its list of field texts, without building cells."""
    covered: dict[tuple[int, int], tuple[int, int]] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        if not isinstance(self.cells, CellIndex):
            self.cells = CellIndex(self.cells)
        if not self.covered:
            self.index_merges()

    def index_merges(self) -> None:
        """Build the slot -> anchor map once (merged ranges only)."""
        covered: dict[tuple[int, int], tuple[int, int]] = {}
        for cell in self.cells.values():
            if cell.rowspan > 1 or cell.colspan > 1:
                r, c = cell.row, cell.col
                for rr in range(r, r + cell.rowspan):
                    for cc in range(c, c + cell.colspan):
                        if (rr, cc) != (r, c):
                            covered[(rr, cc)] = (r, c)
        self.covered = covered

    @property
    def streamed(self) -> bool:
        return self.rows_source is not None

    @property
    def cell_count(self) -> int:
        """Number of anchor cells (for streamed grids, counted while reading)."""
        return self.streamed_cell_count if self.streamed else len(self.cells)

    def get(self, row: int, col: int) -> Cell | None:
        """Return the anchor cell at exactly (row, col), or None."""
        line = self.cells.by_row.get(row)
        return None if line is None else line.get(col)

    def anchor_of(self, row: int, col: int) -> Cell | None:
        """Return the cell whose value shows at (row, col): itself or the merge covering it."""
        line = self.cells.by_row.get(row)
        cell = None if line is None else line.get(col)
        if cell is not None:
            return cell
        pos = self.covered.get((row, col))
        return self.cells[pos] if pos is not None else None

    def merges(self) -> list[Cell]:
        """Return the merged anchor cells in reading order."""
        return sorted((c for c in self.cells.values() if c.is_merged), key=lambda c: (c.row, c.col))

    def rows(self) -> Iterator[list[Cell]]:
        """Yield the anchor cells row by row (rows without anchors are skipped)."""
        if self.rows_source is not None:
            yield from self.rows_source()
            return
        by_row = self.cells.by_row
        for r in sorted(by_row):
            yield [cell for _, cell in sorted(by_row[r].items())]

    def iter_cells(self) -> Iterator[Cell]:
        """Yield every anchor cell in reading order (row, then column)."""
        for row in self.rows():
            yield from row

    def materialize(self) -> Grid:
        """Return an in-memory copy of a streamed grid (for small files and tests)."""
        if not self.streamed:
            return self
        cells = CellIndex(((c.row, c.col), c) for c in self.iter_cells())
        return Grid(self.source, self.sheet, self.index, self.n_rows, self.n_cols, self.kind,
                    cells, self.caption, list(self.warnings))
