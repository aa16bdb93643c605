"""Read an OpenDocument spreadsheet's layout: merged ranges, hidden rows and columns, and how
many cells hold a value, sheet by sheet, in one streaming pass over `content.xml`.

python-calamine reads an .ods's values but not its merges (`merged_cell_ranges` is None for
OpenDocument) nor which rows are hidden. Both live in `content.xml` as attributes of the
`table:table-cell` / `table:table-row` / `table:table-column` elements, so one iterparse over
it, clearing each row once read, finds them in bounded memory. The pass runs before calamine
touches the file, through a `GuardedZipFile`, so a zip bomb or a sheet of billions of repeated
cells is refused by our limits before anything expands it.

Positions follow the ODF rules calamine follows too: `number-rows-repeated` and
`number-columns-repeated` stand for that many rows or cells, and a `covered-table-cell` (a slot
under a merge) takes one column like any other cell.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import BinaryIO

from lxml import etree

from ingest import cancel
from ingest.errors import MergeTooLarge, PasswordProtected, TooManyCells
from ingest.limits import Limits
from ingest.zipguard import GuardedZipFile

_TABLE = "urn:oasis:names:tc:opendocument:xmlns:table:1.0"
_OFFICE = "urn:oasis:names:tc:opendocument:xmlns:office:1.0"
_TEXT = "urn:oasis:names:tc:opendocument:xmlns:text:1.0"
_T = f"{{{_TABLE}}}"
_SHEET, _ROW, _COLUMN = f"{_T}table", f"{_T}table-row", f"{_T}table-column"
_CELL, _COVERED = f"{_T}table-cell", f"{_T}covered-table-cell"
_VALUE_TYPE = f"{{{_OFFICE}}}value-type"
_STRING_VALUE = f"{{{_OFFICE}}}string-value"
_COLUMNS_REPEATED, _ROWS_REPEATED = f"{_T}number-columns-repeated", f"{_T}number-rows-repeated"
_COLUMNS_SPANNED, _ROWS_SPANNED = f"{_T}number-columns-spanned", f"{_T}number-rows-spanned"
_PARAGRAPH = f"{{{_TEXT}}}p"
_HIDDEN = ("collapse", "filter")
"""`table:visibility` values that hide a row or column (`visible` is the default)."""

_MAX_REPEAT = 1 << 20
"""Repeats counted per element: ODF writers pad a sheet to its full 1,048,576 rows and 16,384
(or 1,024) columns with one repeated empty element; past that nothing can be shown."""


@dataclass
class SheetLayout:
    """What `content.xml` says about one sheet beyond its values (1-based positions)."""

    name: str
    merges: list[tuple[int, int, int, int]] = field(default_factory=list)
    """(first row, first column, rows, columns) of every range larger than one cell."""
    hidden_rows: list[range] = field(default_factory=list)
    hidden_cols: list[range] = field(default_factory=list)
    """Runs of hidden rows and columns: kept as ranges, since writers hide the million empty
    rows past a table with one repeated element."""
    filled: int = 0
    """Cells holding a value or text, repeats counted."""
    shown: dict[tuple[int, int], str] = field(default_factory=dict)
    """The text the spreadsheet showed for each number, date, time, percentage, currency,
    boolean or error cell: ODF stores it beside the value (`<text:p>1,250.50</text:p>` for
    `office:value="1250.5"`), so the number format's rendering survives though calamine
    does not read formats."""


def read_layout(stream: BinaryIO, *, name: str, limits: Limits) -> list[SheetLayout]:
    """Return the layout of every sheet, in workbook order.

    Raises `PasswordProtected` for an encrypted file, `TooManyCells` / `MergeTooLarge` past the
    limits; zip and XML damage propagate as `zipfile.BadZipFile`, `ExpansionLimit` and
    `etree.XMLSyntaxError` for the caller to word.
    """
    archive = GuardedZipFile(stream, limits.max_unzipped_bytes)
    try:
        _refuse_encrypted(archive, name)
        with archive.open("content.xml") as content:
            return _parse(content, name, limits)
    finally:
        archive.close()


def _refuse_encrypted(archive: GuardedZipFile, name: str) -> None:
    # An encrypted ODF package declares it in its manifest; content.xml is then ciphertext.
    if "META-INF/manifest.xml" not in archive.namelist():
        return
    with archive.open("META-INF/manifest.xml") as manifest:
        if b"encryption-data" in manifest.read():
            raise PasswordProtected(name, "the spreadsheet is password-protected.",
                                    "Open it in LibreOffice with its password, save a copy "
                                    "without one (File > Save As, untick 'Save with "
                                    "password'), and upload that copy.")


def _parse(content: BinaryIO, name: str, limits: Limits) -> list[SheetLayout]:
    sheets: list[SheetLayout] = []
    sheet: SheetLayout | None = None
    row = col = 0  # the next row (1-based) and the last column placed
    total = 0
    for event, element in etree.iterparse(content, events=("start", "end"),
                                          tag=(_SHEET, _ROW, _COLUMN),
                                          resolve_entities=False, no_network=True,
                                          huge_tree=True):
        tag = element.tag
        if tag == _SHEET:
            if event == "start":
                sheet = SheetLayout(element.get(f"{_T}name", f"Sheet{len(sheets) + 1}"))
                row, col = 1, 0
            else:
                assert sheet is not None
                total += sheet.filled
                sheets.append(sheet)
                element.clear()
            continue
        if event == "start" or sheet is None:
            continue
        if tag == _COLUMN:
            repeat = _repeat(element, _COLUMNS_REPEATED)
            if element.get(f"{_T}visibility") in _HIDDEN:
                sheet.hidden_cols.append(range(col + 1, col + 1 + repeat))
            col += repeat
            continue
        # A finished row: its cells are its children, placed left to right.
        cancel.check()
        repeat = _repeat(element, _ROWS_REPEATED)
        filled = _row(element, sheet, row, repeat, name, limits)
        if filled and total + sheet.filled > limits.max_cells:
            raise TooManyCells(name, f"the workbook has more than {limits.max_cells:,} filled "
                               "cells.", "Split it, or raise TABLELENS_MAX_CELLS.")
        if element.get(f"{_T}visibility") in _HIDDEN:
            sheet.hidden_rows.append(range(row, row + repeat))
        row += repeat
        col = 0
        element.clear()
        # iterparse keeps finished siblings referenced from their parent: drop them.
        while element.getprevious() is not None:
            del element.getparent()[0]
    return sheets


def _row(element: etree._Element, sheet: SheetLayout, row: int, row_repeat: int, name: str,
         limits: Limits) -> int:
    """Record the row's merges and shown texts and count its filled cells; return that count.

    This loop runs once per cell (most of an .ods's read time), so the common cell (no
    repeat, no span) takes the short path: attribute lookups in C, no helper calls.
    """
    col = 1
    filled = 0
    shown = sheet.shown
    for cell in element.iterchildren(_CELL, _COVERED):
        get = cell.get
        repeat = 1 if get(_COLUMNS_REPEATED) is None else _repeat(cell, _COLUMNS_REPEATED)
        if cell.tag == _COVERED:
            col += repeat
            continue
        value_type = get(_VALUE_TYPE)
        # A cell's paragraph is nearly always its first child (an annotation can come first);
        # indexing is a third of the cost of find().
        paragraph = cell[0] if len(cell) else None
        if paragraph is not None and paragraph.tag != _PARAGRAPH:
            paragraph = cell.find(_PARAGRAPH)
        if value_type or paragraph is not None:
            filled += repeat * row_repeat
            # A string's text is its value, which calamine reads; but a formula's error
            # ("#DIV/0!") is a string whose value is empty and whose text is the error.
            if paragraph is not None and filled <= limits.max_cells and (
                    value_type != "string" or get(_STRING_VALUE) == ""):
                text = _shown(cell, paragraph)
                if text and repeat == row_repeat == 1:
                    shown[(row, col)] = text
                elif text:
                    for r in range(row, row + row_repeat):
                        for c in range(col, col + repeat):
                            shown[(r, c)] = text
        if get(_ROWS_SPANNED) is not None or get(_COLUMNS_SPANNED) is not None:
            rows, cols = _repeat(cell, _ROWS_SPANNED), _repeat(cell, _COLUMNS_SPANNED)
            if rows * cols > limits.max_merge_cells:
                raise MergeTooLarge(name, f"sheet {sheet.name!r} has a merged range of "
                                    f"{rows * cols:,} cells; the limit is "
                                    f"{limits.max_merge_cells:,}.",
                                    "Unmerge it in LibreOffice, or raise "
                                    "TABLELENS_MAX_MERGE_CELLS.")
            if rows > 1 or cols > 1:
                # A repeated merged cell would overlap itself; the first copy is the one shown.
                sheet.merges.append((row, col, rows, cols))
        col += repeat
    sheet.filled += filled
    return filled


def _shown(cell: etree._Element, paragraph: etree._Element) -> str:
    """The cell's text: one plain paragraph (nearly every number) read directly; spans,
    spaces (`<text:s/>`) and several paragraphs joined as LibreOffice shows them."""
    if len(paragraph) == 0 and paragraph.getnext() is None:
        return paragraph.text or ""
    return "\n".join("".join(p.itertext()) for p in cell.iterchildren(_PARAGRAPH))


def _repeat(element: etree._Element, attribute: str) -> int:
    try:
        return min(max(int(element.get(attribute, "1")), 1), _MAX_REPEAT)
    except ValueError:
        return 1
