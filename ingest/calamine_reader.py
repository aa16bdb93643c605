"""Read legacy Excel 97-2003 (.xls) and OpenDocument (.ods) workbooks with python-calamine.

UK government statistics, and many other publishers, ship these formats. calamine (Rust)
reads both: every sheet's typed values (numbers, dates, booleans, text) and, for .xls, its
merged ranges. Each sheet becomes the same `Grid` the .xlsx reader builds: anchor cells at
their source coordinates (so refs are the A1 refs a person sees in Excel or LibreOffice),
merges as spans with the values under them dropped, hidden sheets kept with a warning, empty
sheets skipped.

What is lost, and said so in every grid's warnings: calamine reads no styles and no number
formats. Without bold and indentation, structure detection finds headers from what values and
merges show (text over numbers, merged header bands), as it does for CSV. Display text is
built from the value, as faithfully as that allows: integers without ".0", other floats in
Python's shortest repr (all the digits the file stores, never a rounding it may not show),
dates as ISO dates, booleans as TRUE/FALSE. An .ods also stores the text LibreOffice showed
beside each value ("1,250.50", "12.5%"), and that text is used (`ods_layout`), as are its
merges and hidden rows and columns, which calamine does not report for OpenDocument. Hidden
rows and columns of an .xls are not known.
"""

from __future__ import annotations

import datetime as dt
import os
import tempfile
import zipfile
import zlib
from collections.abc import Callable
from typing import BinaryIO

import python_calamine as calamine
from lxml import etree

from ingest import cancel
from ingest.cell_index import CellIndex
from ingest.errors import (
    CorruptFile,
    DecompressedTooLarge,
    EmptyFile,
    MergeTooLarge,
    PasswordProtected,
    TooManyCells,
)
from ingest.grid import Cell, Grid, Progress, Value
from ingest.limits import Limits
from ingest.numfmt import format_value
from ingest.ods_layout import SheetLayout, read_layout
from ingest.zipguard import ExpansionLimit

XLS_AGAIN = "Open it in Excel or LibreOffice, save it as .xlsx, and upload that copy."
_ODS_AGAIN = "Open it in LibreOffice, save it again (as .ods or .xlsx), and upload that copy."

_ROWS_PER_CHECK = 255
"""Rows between two cancel checks and progress reports, less one (a mask)."""

Merge = tuple[int, int, int, int]
"""(first row, first column, rows, columns), 1-based."""


def read_xls(stream: BinaryIO, *, name: str, limits: Limits, progress: Progress) -> list[Grid]:
    """Read every worksheet of an Excel 97-2003 workbook into a grid (empty sheets skipped)."""
    workbook = _open(stream, name, ".xls")
    with workbook:
        return _read(workbook, name, "xls", None, limits, progress)


def read_ods(stream: BinaryIO, *, name: str, limits: Limits, progress: Progress) -> list[Grid]:
    """Read every sheet of an OpenDocument spreadsheet into a grid (empty sheets skipped)."""
    try:
        layouts = read_layout(stream, name=name, limits=limits)
    except ExpansionLimit as exc:
        how = "declares" if exc.declared else "expands to"
        raise DecompressedTooLarge(
            name, f"the spreadsheet {how} more than {exc.limit:,} bytes of XML when unpacked.",
            "If it is a genuine spreadsheet, split it or raise TABLELENS_MAX_UNZIPPED_BYTES.",
        ) from None
    except zipfile.BadZipFile:
        raise CorruptFile(name, "this is not a valid .ods file (it is not a zip archive, or "
                          "it is truncated or damaged).", _ODS_AGAIN) from None
    except KeyError:
        raise CorruptFile(name, "this is not an OpenDocument spreadsheet: it has no "
                          "content.xml.", _ODS_AGAIN) from None
    except (zlib.error, EOFError, etree.XMLSyntaxError) as exc:
        raise CorruptFile(name, f"the spreadsheet is damaged ({_first_line(exc)}).",
                          _ODS_AGAIN) from None
    stream.seek(0)
    workbook = _open(stream, name, ".ods")
    with workbook:
        return _read(workbook, name, "ods", layouts, limits, progress)


def _open(stream: BinaryIO, name: str, ext: str) -> calamine.CalamineWorkbook:
    """Open the workbook, turning calamine's errors into ours."""
    try:
        return calamine.CalamineWorkbook.from_filelike(stream)
    except BaseException as exc:
        if not isinstance(exc, calamine.CalamineError) and not _is_panic(exc):
            raise
        # From a stream calamine guesses the format, and any failure reads "Cannot detect
        # file format"; opened by path it trusts the file ending and says what is wrong.
        # Only a failed upload pays for the temporary copy.
        stream.seek(0)
        raise _diagnose(stream, name, ext) from None


def _diagnose(stream: BinaryIO, name: str, ext: str) -> Exception:
    again = XLS_AGAIN if ext == ".xls" else _ODS_AGAIN
    fd, path = tempfile.mkstemp(suffix=ext, prefix="tablelens-")
    try:
        with os.fdopen(fd, "wb") as copy:
            while chunk := stream.read(1 << 20):
                copy.write(chunk)
        calamine.CalamineWorkbook.from_path(path).close()
    except calamine.PasswordError:
        if ext == ".xls":
            return PasswordProtected(name, "the workbook is password-protected.",
                                     "Open it in Excel with its password, remove the password "
                                     "(File > Info > Protect Workbook), save it as .xlsx, and "
                                     "upload that copy.")
        return PasswordProtected(name, "the spreadsheet is password-protected.",
                                 "Open it in LibreOffice with its password, save a copy "
                                 "without one, and upload that copy.")
    except BaseException as exc:
        if not isinstance(exc, calamine.CalamineError) and not _is_panic(exc):
            raise
        kind = "Excel 97-2003 (.xls) workbook" if ext == ".xls" else ".ods spreadsheet"
        # calamine's own words ("Cfb error: Invalid sector shift, expecting 0x09 or 0x0C
        # found 9AD7") mean nothing to the person who uploaded the file: they are left out.
        return CorruptFile(name, f"this is not a readable {kind}: it is damaged, or another "
                           "kind of file.", again)
    finally:
        os.unlink(path)
    return CorruptFile(name, "the workbook could not be read.", again)


def _is_panic(exc: BaseException) -> bool:
    """A Rust panic inside calamine (pyo3's PanicException, a BaseException so that `except
    Exception` misses it): a damaged file, to be refused like any other, not a crash."""
    return type(exc).__name__ == "PanicException"


def _first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0][:200]


def _read(workbook: calamine.CalamineWorkbook, name: str, kind: str,
          layouts: list[SheetLayout] | None, limits: Limits, progress: Progress) -> list[Grid]:
    sheets = [m for m in workbook.sheets_metadata
              if m.typ == calamine.SheetTypeEnum.WorkSheet]
    if not sheets:
        raise EmptyFile(name, "the workbook has no worksheets.", "Add a sheet with a table.")
    by_name = {layout.name: layout for layout in layouts or []}
    grids: list[Grid] = []
    total = 0
    for number, meta in enumerate(sheets):
        stage = f"reading sheet {meta.name}"
        progress(number / len(sheets), stage)

        def sheet_progress(fraction: float, number: int = number, stage: str = stage) -> None:
            progress((number + fraction) / len(sheets), stage)

        try:
            sheet = workbook.get_sheet_by_name(meta.name)
            rows = sheet.to_python(skip_empty_area=True)
        except BaseException as exc:
            if not isinstance(exc, calamine.CalamineError) and not _is_panic(exc):
                raise
            raise CorruptFile(name, f"sheet {meta.name!r} is damaged ({_first_line(exc)}).",
                              XLS_AGAIN if kind == "xls" else _ODS_AGAIN) from None
        layout = by_name.get(meta.name)
        if layout is not None:
            merges = layout.merges
        else:
            merges = [(r0 + 1, c0 + 1, r1 - r0 + 1, c1 - c0 + 1)
                      for (r0, c0), (r1, c1) in sheet.merged_cell_ranges or []]
        cells = _cells(rows, sheet.start or (0, 0), layout, name, limits, total, sheet_progress)
        _apply_merges(cells, merges, meta.name, name, limits)
        if not cells:
            continue
        total += len(cells)
        n_rows = max(c.row + c.rowspan - 1 for c in cells.values())
        n_cols = max(c.col + c.colspan - 1 for c in cells.values())
        if layout is not None:
            _apply_hidden(cells, layout, n_rows, n_cols)
        grid = Grid(name, meta.name, len(grids), n_rows, n_cols, kind, cells)
        if meta.visible != calamine.SheetVisibleEnum.Visible:
            state = "very hidden" if meta.visible == calamine.SheetVisibleEnum.VeryHidden \
                else "hidden"
            grid.warnings.append(f"sheet {meta.name!r} is {state} in the workbook")
        grid.warnings.append(f"bold, indentation and number formats are not read from .{kind} "
                             "files: headers are found from the values and merged cells"
                             + (", and numbers show every digit the file stores."
                                if kind == "xls" else "."))
        grids.append(grid)
    return grids


def _cells(rows: list[list[object]], start: tuple[int, int], layout: SheetLayout | None,
           name: str, limits: Limits, cells_before: int,
           progress: Callable[[float], None]) -> CellIndex:
    """Build the anchor cells of one sheet's values (calamine gives "" for an empty slot)."""
    shown = layout.shown if layout is not None else {}
    budget = limits.max_cells - cells_before
    top, left = start[0] + 1, start[1] + 1
    by_row: dict[int, dict[int, Cell]] = {}  # the grid's `CellIndex`, filled without a call
    count = 0
    for i, values in enumerate(rows):
        if not i & _ROWS_PER_CHECK:
            cancel.check()
            progress(i / len(rows))
        r = top + i
        line: dict[int, Cell] = {}
        for j, value in enumerate(values):
            c = left + j
            if type(value) is str and (r, c) in shown:
                # An .ods error ("#DIV/0!", an empty value) or a duration calamine leaves as
                # its ISO form ("PT36H"): the shown text is the value a person reads.
                value = shown[(r, c)]
            elif value == "" and type(value) is str:
                continue
            raw, text = _typed(value)
            line[c] = Cell(r, c, raw, shown.get((r, c), text))
        if line:
            by_row[r] = line
            count += len(line)
        if count > budget:
            raise TooManyCells(name, f"the workbook has more than {limits.max_cells:,} filled "
                               "cells.", "Split it, or raise TABLELENS_MAX_CELLS.")
    return CellIndex.from_rows(by_row)


def _typed(value: object) -> tuple[Value, str]:
    """Return the value as the grid stores it and its display text (no number format)."""
    cls = type(value)
    if cls is str:
        return value, value  # type: ignore[return-value]
    if cls is int:
        return value, str(value)  # type: ignore[return-value]
    if cls is float:
        number: float = value  # type: ignore[assignment]
        if number.is_integer() and abs(number) < 1e15:
            return int(number), str(int(number))  # .ods stores every number as a float
        return number, repr(number)
    if cls is bool:
        return value, "TRUE" if value else "FALSE"  # type: ignore[return-value]
    if isinstance(value, dt.timedelta):
        # A duration (an .ods "time" value, an .xls [h]:mm cell) has no grid type: its text
        # is what is kept.
        text = format_value(value, None)
        return text, text
    if isinstance(value, (dt.datetime, dt.date, dt.time)):
        return value, format_value(value, None)
    text = str(value)
    return text, text


def _apply_merges(cells: CellIndex, merges: list[Merge], sheet: str,
                  name: str, limits: Limits) -> None:
    """Turn merged ranges into spans on their anchor cells; values under a merge are dropped,
    as Excel and LibreOffice show only the top-left one."""
    for r0, c0, rows, cols in merges:
        cancel.check()  # a merge clears up to max_merge_cells slots
        if rows * cols > limits.max_merge_cells:
            raise MergeTooLarge(name, f"sheet {sheet!r} has a merged range of {rows * cols:,} "
                                f"cells; the limit is {limits.max_merge_cells:,}.",
                                "Unmerge it, or raise TABLELENS_MAX_MERGE_CELLS.")
        if rows == 1 and cols == 1:
            continue
        anchor = cells.get((r0, c0)) or Cell(r0, c0, None, "")
        anchor.rowspan, anchor.colspan = rows, cols
        cells[(r0, c0)] = anchor
        for r in range(r0, r0 + rows):
            for c in range(c0, c0 + cols):
                if (r, c) != (r0, c0):
                    cells.pop((r, c), None)


def _apply_hidden(cells: CellIndex, layout: SheetLayout, n_rows: int,
                  n_cols: int) -> None:
    rows = _within(layout.hidden_rows, n_rows)
    cols = _within(layout.hidden_cols, n_cols)
    if rows or cols:
        for cell in cells.values():
            if cell.row in rows or cell.col in cols:
                cell.hidden = True


def _within(runs: list[range], last: int) -> set[int]:
    """The positions of `runs` up to `last` (the runs past a table can be a million long)."""
    return {n for run in runs for n in range(run.start, min(run.stop, last + 1))}
