"""Intermediate tables as data frames (for display) and as CSV or xlsx files (for download).

A step event carries at most 50 rows of its table; the download holds the whole step table,
read from the workspace database on a read-only connection when the table is a stored step
table (`step_<run>_<n>`), else the rows the event carries.
"""

from __future__ import annotations

import csv
import io
import json
import re
import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd
from openpyxl import Workbook
from openpyxl.cell.cell import ILLEGAL_CHARACTERS_RE

from agent.steptables import load_step_table
from storage.slug import unique_labels

MAX_EXPORT_ROWS = 1_000_000
_STEP_TABLE = re.compile(r"step_[A-Za-z0-9_]+_[0-9]+")
_UNSAFE_FILE = re.compile(r"[^A-Za-z0-9._-]+")
_UNSAFE_SHEET = re.compile(r"[\[\]:*?/\\]")


def unique_columns(columns: Sequence[Any]) -> list[str]:
    """Return column names made non-empty and unique ("x", "x (2)", "col_3")."""
    return unique_labels(columns)


def _cell(value: Any) -> Any:
    """A value a data frame, CSV or xlsx cell can hold (lists and dicts become JSON text)."""
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    if isinstance(value, bytes):
        return value.hex()
    return json.dumps(value, ensure_ascii=False, default=str)


def table_frame(columns: Sequence[Any], rows: Sequence[Sequence[Any]]) -> pd.DataFrame:
    """Return a data frame for display; a column mixing numbers and text becomes text."""
    names = unique_columns(columns)
    data = [[_cell(v) for v in row] for row in rows]
    frame = pd.DataFrame(data, columns=names)
    for i, name in enumerate(names):
        kinds = {type(row[i]) for row in data if row[i] is not None}
        if len(kinds) > 1 and not kinds <= {int, float}:
            frame[name] = [None if row[i] is None else str(row[i]) for row in data]
    return frame


def csv_bytes(columns: Sequence[Any], rows: Sequence[Sequence[Any]]) -> bytes:
    """Return the table as CSV, UTF-8 with a byte-order mark (so Excel reads accents)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(unique_columns(columns))
    writer.writerows([_cell(v) for v in row] for row in rows)
    return out.getvalue().encode("utf-8-sig")


def xlsx_bytes(columns: Sequence[Any], rows: Sequence[Sequence[Any]], sheet: str = "table"
               ) -> bytes:
    """Return the table as an .xlsx workbook with one sheet (openpyxl, in memory)."""
    return sheets_xlsx([(sheet, columns, rows)])


def sheets_xlsx(sheets: Sequence[tuple[str, Sequence[Any], Sequence[Sequence[Any]]]]) -> bytes:
    """Return an .xlsx workbook with one sheet per (name, columns, rows), in order."""
    book = Workbook(write_only=True)
    for sheet, columns, rows in sheets or [("table", [], [])]:
        title = _UNSAFE_SHEET.sub("_", sheet).strip("'")[:31] or "table"
        ws = book.create_sheet(title)
        ws.append([_xlsx_value(c) for c in unique_columns(columns)])
        for row in rows:
            ws.append([_xlsx_value(_cell(v)) for v in row])
    buffer = io.BytesIO()
    book.save(buffer)
    return buffer.getvalue()


def _xlsx_value(value: Any) -> Any:
    if isinstance(value, str):
        return ILLEGAL_CHARACTERS_RE.sub("", value)
    return value


def file_stem(name: str) -> str:
    """Return a safe file name stem for a table name."""
    return _UNSAFE_FILE.sub("_", name).strip("._") or "table"


def full_table(db_path: str | Path, name: str, columns: Sequence[Any],
               rows: Sequence[Sequence[Any]]) -> tuple[list[Any], list[list[Any]]]:
    """Return all the rows of a stored step table, or the given columns and rows when `name`
    is not a step table or it is gone."""
    if _STEP_TABLE.fullmatch(name) and Path(db_path).exists():
        try:
            conn = sqlite3.connect(f"{Path(db_path).resolve().as_uri()}?mode=ro", uri=True)
        except sqlite3.Error:
            return list(columns), [list(r) for r in rows]
        try:
            found_columns, found, _ = load_step_table(conn, name, MAX_EXPORT_ROWS)
            return found_columns, found
        except (KeyError, sqlite3.Error):
            pass
        finally:
            conn.close()
    return list(columns), [list(r) for r in rows]
