"""Read .xlsx/.xlsm workbooks: every sheet, merges, styles, hidden rows, cached formula values.

openpyxl does the parsing, but not through `load_workbook`: its normal mode builds a Cell object
and a MergedCell for every slot of every merged range (a merge over a whole sheet is 17 billion
objects). We let openpyxl's `ExcelReader` read the workbook parts (strings, styles, sheet list) in
read-only mode; each sheet's cells are then found by `ingest.sheet_cells` (a regex over the XML
for the usual cell forms, openpyxl's `parse_cell` for the rest) and its merged ranges and column
attributes by openpyxl's `WorkSheetParser`, checked against the limits before they are indexed.
The archive is a `GuardedZipFile`, so nothing can decompress past the limit."""

from __future__ import annotations

import struct
import zipfile
import zlib
from collections.abc import Callable
from typing import Any, BinaryIO

from openpyxl.reader.excel import ExcelReader
from openpyxl.styles.numbers import BUILTIN_FORMATS, BUILTIN_FORMATS_MAX_SIZE
from openpyxl.utils.cell import range_boundaries
from openpyxl.worksheet._read_only import ReadOnlyWorksheet
from openpyxl.worksheet._reader import WorkSheetParser

from ingest import cancel
from ingest.cell_index import CellIndex
from ingest.errors import (
    CorruptFile,
    DecompressedTooLarge,
    EmptyFile,
    MergeTooLarge,
    TooManyCells,
)
from ingest.grid import PLAIN, Cell, Grid, Progress, Style
from ingest.limits import Limits
from ingest.numfmt import format_value
from ingest.sheet_cells import SheetCells
from ingest.zipguard import ExpansionLimit, GuardedZipFile

_SAVE_AGAIN = "Open it in Excel or LibreOffice, save it again as .xlsx, and upload that copy."


def read_xlsx(stream: BinaryIO, *, name: str, limits: Limits, progress: Progress) -> list[Grid]:
    """Read every worksheet of a workbook into a grid (empty sheets are skipped)."""
    try:
        return _read(stream, name, limits, progress)
    except ExpansionLimit as exc:
        how = "declares" if exc.declared else "expands to"
        raise DecompressedTooLarge(
            name, f"the workbook {how} more than {exc.limit:,} bytes of XML when unpacked.",
            "If it is a genuine workbook, split it or raise TABLELENS_MAX_UNZIPPED_BYTES.",
        ) from None
    except zipfile.BadZipFile:
        raise CorruptFile(name, "this is not a valid .xlsx file (it is not a zip archive, or "
                          "it is truncated or damaged).", _SAVE_AGAIN) from None
    except (zlib.error, struct.error, EOFError, zipfile.LargeZipFile):
        # A damaged deflate stream or zip record inside an archive whose directory is sound.
        raise CorruptFile(name, "this file is damaged: part of the workbook cannot be "
                          "unpacked.", _SAVE_AGAIN) from None
    except (KeyError, ValueError, TypeError, OSError, IndexError) as exc:
        # openpyxl reports damaged parts as ValueError/KeyError with internal wording, and a
        # cell naming a shared string past the end of the list as IndexError.
        raise CorruptFile(name, f"this file is damaged ({type(exc).__name__}: "
                          f"{_first_line(exc)}).", _SAVE_AGAIN) from None
    except Exception as exc:
        if type(exc).__module__.startswith(("xml.", "lxml.", "openpyxl.")):
            raise CorruptFile(name, f"the workbook's XML is damaged ({_first_line(exc)}).",
                              _SAVE_AGAIN) from None
        raise


def _first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0][:200]


def _read(stream: BinaryIO, name: str, limits: Limits, progress: Progress) -> list[Grid]:
    archive = GuardedZipFile(stream, limits.max_unzipped_bytes)
    reader = _SheetListReader(stream, read_only=True, data_only=True)
    reader.archive.close()
    reader.archive = archive
    reader.valid_files = archive.namelist()
    reader.read()
    workbook = reader.wb
    styles = _StyleCache(workbook)
    sheets = [ws for ws in workbook.worksheets if isinstance(ws, ReadOnlyWorksheet)]
    grids: list[Grid] = []
    total_cells = 0
    for number, ws in enumerate(sheets):
        stage = f"reading sheet {ws.title}"
        progress(number / max(len(sheets), 1), stage)

        def sheet_progress(fraction: float, number: int = number, stage: str = stage) -> None:
            progress((number + fraction) / len(sheets), stage)

        grid = _read_sheet(archive, ws, name, len(grids), styles, limits, total_cells,
                           sheet_progress)
        if grid is not None:
            total_cells += len(grid.cells)
            if ws.sheet_state != "visible":
                grid.warnings.append(f"sheet {ws.title!r} is {ws.sheet_state} in the workbook")
            grids.append(grid)
    archive.close()
    if not sheets:
        raise EmptyFile(name, "the workbook has no worksheets.", "Add a sheet with a table.")
    return grids


class _UnsizedWorksheet(ReadOnlyWorksheet):
    """A read-only sheet that does not scan itself for its size on creation: openpyxl parses
    the whole sheet looking for a <dimension> element when there is none (files written in
    openpyxl's write-only mode, some exporters), a second full read, with no way to stop it,
    of a size this reader never uses."""

    def _get_size(self) -> None:
        return None


class _SheetListReader(ExcelReader):
    """openpyxl's workbook reader, with worksheets listed as `_UnsizedWorksheet`s (the
    read-only branch of `read_worksheets`; chartsheets hold no cells and are skipped)."""

    def read_worksheets(self) -> None:
        for sheet, rel in self.parser.find_sheets():
            if rel.target not in self.valid_files or "chartsheet" in rel.Type:
                continue
            ws = _UnsizedWorksheet(self.wb, sheet.name, rel.target, self.shared_strings)
            ws.sheet_state = sheet.state
            self.wb._sheets.append(ws)


def _read_sheet(archive: GuardedZipFile, ws: ReadOnlyWorksheet, name: str, index: int,
                styles: _StyleCache, limits: Limits, cells_before: int,
                progress: Callable[[float], None]) -> Grid | None:
    workbook = ws.parent
    by_row: dict[int, dict[int, Cell]] = {}  # the grid's `CellIndex`, filled without a call
    count = 0
    budget = limits.max_cells - cells_before
    # Read through the archive's byte counter, so a sheet that unpacks past the limit stops
    # there.
    with archive.open(ws._worksheet_path) as src:
        sheet = SheetCells(src, archive.getinfo(ws._worksheet_path).file_size,
                           ws._shared_strings, epoch=workbook.epoch,
                           date_formats=workbook._date_formats,
                           timedelta_formats=workbook._timedelta_formats)
        line: dict[int, Cell] = {}
        line_number = 0
        for row in sheet.rows(progress):
            for r, c, value, style_id in row:
                style, number_format = styles[style_id]
                # A General number (most cells of a big sheet) is given no text: the cell
                # writes it out when it is read (`ingest.grid._text`), rather than hold it.
                text = None if number_format is None and value.__class__ in _NUMBERS \
                    else _display(value, number_format)
                if r != line_number:  # a row's cells come together
                    line = by_row.get(r) or by_row.setdefault(r, {})
                    line_number = r
                count += c not in line
                # Spans and style given in place, not by keyword: a third of the call's cost.
                line[c] = Cell(r, c, value, text, 1, 1, style)
            if count > budget:
                raise TooManyCells(name, f"the workbook has more than {limits.max_cells:,} "
                                   "filled cells.", "Split it, or raise TABLELENS_MAX_CELLS.")
    cells = CellIndex.from_rows(by_row)
    for r, c in sheet.uncached:
        cells[(r, c)] = Cell(r, c, None, "", formula_uncached=True,
                             style=styles[0][0], flags=("formula_uncached",))
    merged = _apply_merges(cells, sheet.outside, ws.title, name, limits, styles)
    if not cells:
        return None
    _apply_hidden(cells, sheet.hidden_rows, sheet.outside)
    n_rows, n_cols = _extent(cells, merged)
    return Grid(name, ws.title, index, n_rows, n_cols, "xlsx", cells)


def _extent(cells: CellIndex, merged: list[Cell]) -> tuple[int, int]:
    """The last row and column a cell reaches: from the row dicts' keys, and from the spans
    of the merged anchors (the only cells with any), rather than two walks over every cell
    (0.05 s at 1M cells)."""
    spans = [cell for cell in merged if cells.get((cell.row, cell.col)) is cell]
    n_rows = max(max(cells.by_row), max((c.row + c.rowspan - 1 for c in spans), default=0))
    n_cols = max(max(map(max, cells.by_row.values())),
                 max((c.col + c.colspan - 1 for c in spans), default=0))
    return n_rows, n_cols


_NUMBERS = (int, float)  # exactly these: a bool is shown TRUE/FALSE, not as a number


def _display(value: object, number_format: str | None) -> str:
    """Return display text (a General number's is left to the cell: `_read_sheet`)."""
    if isinstance(value, str):
        return value
    return format_value(value, number_format)


def _apply_merges(cells: CellIndex, parser: WorkSheetParser, sheet: str,
                  name: str, limits: Limits, styles: _StyleCache) -> list[Cell]:
    """Turn merged ranges into spans on their anchor cells; values under a merge are dropped.
    Return the anchors given a span (a later overlapping range may have dropped one)."""
    anchors: list[Cell] = []
    if not parser.merged_cells:
        return anchors
    for merged in parser.merged_cells.mergeCell:
        cancel.check()  # a merge clears up to max_merge_cells slots
        min_col, min_row, max_col, max_row = range_boundaries(merged.ref)
        if min_col is None or min_row is None:
            continue  # whole-row/column refs are invalid in mergeCell; Excel ignores them too
        rows, cols = max_row - min_row + 1, max_col - min_col + 1
        if rows * cols > limits.max_merge_cells:
            raise MergeTooLarge(name, f"sheet {sheet!r} has a merged range {merged.ref} of "
                                f"{rows * cols:,} cells; the limit is {limits.max_merge_cells:,}.",
                                "Unmerge it in Excel, or raise TABLELENS_MAX_MERGE_CELLS.")
        if rows == 1 and cols == 1:
            continue
        anchor = cells.get((min_row, min_col)) or Cell(min_row, min_col, None, "",
                                                      style=styles[0][0])
        anchor.rowspan, anchor.colspan = rows, cols
        cells[(min_row, min_col)] = anchor
        anchors.append(anchor)
        # Excel shows only the top-left value of a merge; others are hidden leftovers.
        for r in range(min_row, max_row + 1):
            for c in range(min_col, max_col + 1):
                if (r, c) != (min_row, min_col):
                    cells.pop((r, c), None)
    return anchors


def _apply_hidden(cells: CellIndex, hidden_rows: set[int],
                  parser: WorkSheetParser) -> None:
    hidden_cols: set[int] = set()
    for attrs in parser.column_dimensions.values():
        if attrs.get("hidden") in ("1", "true"):
            hidden_cols.update(range(int(attrs["min"]), int(attrs.get("max", attrs["min"])) + 1))
    if hidden_rows or hidden_cols:
        for cell in cells.values():
            if cell.row in hidden_rows or cell.col in hidden_cols:
                cell.hidden = True


class _StyleCache(dict[int, tuple[Style, str | None]]):
    """A style id's `Style` and number format, resolved once per id, not once per cell: a
    dict, so the lookup of an id seen before (every cell but a few) runs no Python code."""

    def __init__(self, workbook: Any) -> None:
        super().__init__()
        self._wb = workbook

    def __missing__(self, style_id: int) -> tuple[Style, str | None]:
        hit = self[style_id] = self._resolve(style_id)
        return hit

    def _resolve(self, style_id: int) -> tuple[Style, str | None]:
        wb = self._wb
        try:
            array = wb._cell_styles[style_id]
        except IndexError:
            return PLAIN, None
        font = _item(wb._fonts, array.fontId)
        fill = _item(wb._fills, array.fillId)
        border = _item(wb._borders, array.borderId)
        alignment = _item(wb._alignments, array.alignmentId)
        number_format = _number_format(wb, array.numFmtId)
        style = Style(
            bold=bool(font is not None and font.b),
            italic=bool(font is not None and font.i),
            fill=_fill_colour(fill),
            indent=int(alignment.indent or 0) if alignment is not None else 0,
            borders=_border_sides(border),
            number_format=number_format,
        )
        return (PLAIN if style == PLAIN else style), number_format


def _item(collection: Any, idx: int) -> Any:
    try:
        return collection[idx]
    except (IndexError, TypeError):
        return None


def _number_format(wb: Any, fmt_id: int) -> str | None:
    if fmt_id < BUILTIN_FORMATS_MAX_SIZE:
        code = BUILTIN_FORMATS.get(fmt_id, "General")
    else:
        code = _item(wb._number_formats, fmt_id - BUILTIN_FORMATS_MAX_SIZE) or "General"
    return None if code == "General" else code


def _fill_colour(fill: Any) -> str | None:
    if fill is None or getattr(fill, "patternType", None) != "solid":
        return None
    colour = fill.fgColor
    if colour is None:
        return None
    if colour.type == "rgb" and isinstance(colour.rgb, str):
        return colour.rgb[-6:].upper()
    if colour.type == "theme":
        return f"theme{colour.theme}"
    if colour.type == "indexed":
        return f"indexed{colour.indexed}"
    return None


def _border_sides(border: Any) -> str:
    if border is None:
        return ""
    return "".join(flag for flag, side in (("T", border.top), ("B", border.bottom),
                                          ("L", border.left), ("R", border.right))
                   if side is not None and side.style)

