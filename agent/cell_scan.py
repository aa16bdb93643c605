"""Set-based reads over a whole table's stored cells, for the facts of a table
(`agent/table_profile.py`): SQLite filters, groups and counts the cells, so a fact of a tall
table costs its distinct texts in Python, not a `Value` per cell (a 6.4M-cell CSV's facts,
built from whole columns, took 385 s and 4 GB).

A scan reads the cells `Frame.column` reads: cells of the table with a kind, not merged, on
its data rows. `scan_of` gives None for a table whose cells cannot be read so (merged data
cells, which the frame repeats over the rows they span; two attributes of one key), and the
facts are then computed from the frame.
"""

from __future__ import annotations

import sqlite3
import sys
from collections.abc import Iterable, Iterator
from typing import Any, Literal

import orjson

from agent import stop
from agent.frame import DERIVABLE_KINDS, NUMERIC_KINDS, Frame, Value
from storage.plain_cells import BLOCK_ROWS

WHITESPACE = "".join(c for c in map(chr, range(sys.maxunicode + 1)) if c.isspace())
"""The characters `str.strip()` removes: SQLite's `trim(text, WHITESPACE)` is `text.strip()`."""

_KINDS = ", ".join(f"'{k}'" for k in sorted(NUMERIC_KINDS))
NOT_NUMERIC = f"(number IS NULL OR kind NOT IN ({_KINDS}))"
"""A cell that is no number (`not Value.numeric`), as `Frame.text_cells` reads."""
MEASURABLE = ("(number IS NOT NULL AND kind IN (" +
              ", ".join(f"'{k}'" for k in sorted(NUMERIC_KINDS | DERIVABLE_KINDS)) + "))")
"""`Value.measurable` in SQL."""
_WHOLE = ("(typeof(number) = 'integer' OR (number = round(number) "
          "AND abs(number) <= 1.7976931348623157e308))")
"""`float(number).is_integer()` in SQL (infinity is not whole)."""
_FIELDS = "text, number, kind, unit, ref, date, scale, scale_source"
SHAPE = "text"
for _digit in "012345678":
    SHAPE = f"replace({SHAPE}, '{_digit}', '9')"
"""A cell's text with its digits as 9, in SQL: its shape, as `display.cell_form` reads it."""


def at_most(chars: int) -> tuple[str, list[Any]]:
    """An SQL test (and its parameters) that every cell whose `text.strip()` has at most
    `chars` characters passes: a text that is longer has a space at an end. (Cheaper than
    `trim(text, WHITESPACE)` on every cell; the caller tests what passes.)"""
    return ("length(text) <= ? OR instr(?, substr(text, 1, 1)) > 0 "
            "OR instr(?, substr(text, -1)) > 0", [chars, WHITESPACE, WHITESPACE])


class CellScan:
    """Reads over one table's data cells, column by column (`column_cells`: its rows through
    `cells_by_column`)."""

    def __init__(self, db: Any, grid: str, table: str, rows: list[int]) -> None:
        self._db = db
        self._key = [grid, table]
        self.row_count = len(rows)
        # The data rows as a range less the rows inside it that are not data rows (blank
        # records, a band): one comparison per cell instead of a lookup in 640,000 rows.
        lo, hi = rows[0], rows[-1]
        # (Rows come sorted, each once: as many as the range holds leave no gap.)
        gaps = [] if hi - lo + 1 == len(rows) else sorted(set(range(lo, hi + 1)).difference(rows))
        self._rows = "row BETWEEN ? AND ?" + (" AND row NOT IN (SELECT value FROM json_each(?))"
                                               if gaps else "")
        self._row_params: list[Any] = [lo, hi, *([orjson.dumps(gaps).decode()] if gaps else [])]

    def _where(self, col: int, extra: str = "") -> tuple[str, list[Any]]:
        sql = ("FROM column_cells WHERE grid = ? AND table_id = ? "
               "AND col = ? AND kind IS NOT NULL AND rowspan = 1 AND colspan = 1 AND "
               f"{self._rows}" + (f" AND ({extra})" if extra else ""))
        return sql, [*self._key, col, *self._row_params]

    def texts(self, col: int, where: str = "", params: Iterable[Any] = ()) -> set[str]:
        """The distinct texts of a column's cells that meet `where` (SQL on the cell)."""
        sql, key = self._where(col, where)
        stop.check()
        return {t for (t,) in self._db.execute(f"SELECT DISTINCT text {sql}", [*key, *params])}

    def rows_holding(self, col: int, texts: Iterable[str]) -> list[int]:
        """The rows (one per cell, so a row may repeat) whose cell in a column has one of
        these texts."""
        found = sorted(texts)
        if not found:
            return []
        sql, key = self._where(col, "text IN (SELECT value FROM json_each(?))")
        stop.check()
        return [r for (r,) in self._db.execute(f"SELECT row {sql}",
                                               [*key, orjson.dumps(found).decode()])]

    def number_facts(self, col: int) -> tuple[int, int, Any, Any, int]:
        """Of a column's measurable cells: how many, how many whole, the least and greatest
        whole number, and how many different whole numbers."""
        sql, key = self._where(col, MEASURABLE)
        stop.check()
        whole = f"CASE WHEN {_WHOLE} THEN number END"
        return self._db.execute(f"SELECT count(*), count({whole}), min({whole}), max({whole}), "
                                f"count(DISTINCT {whole}) {sql}", key).fetchone()

    def extreme(self, col: int, op: Literal["max", "min"]) -> tuple[Any, int]:
        """Of a column's measurable cells: the greatest ("max") or least ("min") number, and
        how many there are."""
        sql, key = self._where(col, MEASURABLE)
        stop.check()
        return self._db.execute(f"SELECT {op}(number), count(*) {sql}", key).fetchone()

    def rows_equal(self, col: int, number: float | int) -> set[int]:
        """The rows whose measurable cell in a column holds this number."""
        sql, key = self._where(col, f"{MEASURABLE} AND number = ?")
        stop.check()
        return {r for (r,) in self._db.execute(f"SELECT row {sql}", [*key, number])}

    def whole_sum(self, col: int) -> tuple[int, int | None]:
        """Of a column's measurable cells: how many, and the sum of their numbers when every
        one is stored as an integer (exact, as Python adds them), else None."""
        sql, key = self._where(col, MEASURABLE)
        stop.check()
        integer = "typeof(number) = 'integer'"
        try:
            count, whole, total = self._db.execute(
                f"SELECT count(*), count(CASE WHEN {integer} THEN 1 END), "
                f"sum(CASE WHEN {integer} THEN number END) {sql}", key).fetchone()
        except sqlite3.OperationalError:  # past 64 bits ("integer overflow")
            return self.count(col, MEASURABLE), None
        return count, total if whole == count and count else None

    def numbers(self, col: int) -> dict[int, Any]:
        """The numbers of a column's measurable cells by row, in row order."""
        sql, key = self._where(col, MEASURABLE)
        stop.check()
        return dict(self._db.execute(f"SELECT row, number {sql}", key).fetchall())

    def forms(self, col: int) -> list[tuple[str, Value]]:
        """Of a column's measurable cells: each shape of text (`SHAPE`) with each kind, unit
        and scale it comes with, as the value of its first cell, in the order of those."""
        sql, key = self._where(col, MEASURABLE)
        stop.check()
        # The bare columns are the first row's: SQLite reads them from the row of the min().
        return [(shape, tuple.__new__(Value, found)) for _, shape, *found in self._db.execute(
            f"SELECT min(row) AS first, {SHAPE} AS shape, {_FIELDS} {sql} "
            "GROUP BY shape, kind, unit, scale, scale_source ORDER BY first", key)]

    def refs(self, col: int) -> dict[int, str]:
        """The refs of a column's cells by row."""
        sql, key = self._where(col)
        stop.check()
        return dict(self._db.execute(f"SELECT row, ref {sql}", key).fetchall())

    def refs_of_letters(self, col: int, letters: str) -> tuple[int, int]:
        """How many cells a column has, and how many of them have for ref these letters and
        their row ("D" and row 3: "D3")."""
        sql, key = self._where(col)
        stop.check()
        return self._db.execute(f"SELECT count(*), count(CASE WHEN ref = ? || row THEN 1 END) "
                                f"{sql}", [letters, *key]).fetchone()

    def count(self, col: int, where: str) -> int:
        """How many of a column's cells meet `where` (SQL on the cell)."""
        sql, key = self._where(col, where)
        stop.check()
        return self._db.execute(f"SELECT count(*) {sql}", key).fetchone()[0]

    def text_groups(self, col: int) -> Iterator[tuple[str, int, list[int]]]:
        """Each distinct text of a column's cells that are no numbers, with its first row and
        all its rows."""
        sql, key = self._where(col, NOT_NUMERIC)
        stop.check()
        for n, (text, first, rows) in enumerate(self._db.execute(
                f"SELECT text, min(row), json_group_array(row) {sql} GROUP BY text", key)):
            if not n & 1023:
                stop.check()
            yield text, first, orjson.loads(rows)

    def stripped_kinds(self, col: int, skip: Iterable[int]
                       ) -> list[tuple[str, str, int, int]]:
        """A column's cells not on the `skip` rows, grouped by stripped text and kind: (text
        stripped, kind, count, first row)."""
        sql, key = self._where(col, "row NOT IN (SELECT value FROM json_each(?))")
        stop.check()
        return self._db.execute(
            f"SELECT trim(text, ?) AS t, kind, count(*), min(row) {sql} GROUP BY t, kind",
            [WHITESPACE, *key, orjson.dumps(sorted(skip)).decode()]).fetchall()

    def row_values(self, rows: Iterable[int]) -> Iterator[tuple[int, dict[int, Value]]]:
        """Each of these rows with its cells' values by column."""
        grid, table = self._key
        for r in rows:
            stop.check()
            yield r, {found[8]: tuple.__new__(Value, found[:8]) for found in self._db.execute(
                f"SELECT {_FIELDS}, col FROM cells WHERE grid = ? AND row_block = ? AND row = ? "
                "AND table_id = ? AND kind IS NOT NULL AND rowspan = 1 AND colspan = 1",
                [grid, r // BLOCK_ROWS, r, table])}


def scan_of(frame: Frame, rows: list[int] | None = None) -> CellScan | None:
    """A scan of the frame's table (of these of its data rows, in sheet order, when given),
    None when its cells are not read one per data cell."""
    source = frame.source
    if source is None or not frame.rows or source.merged_cells() \
            or len({a.key for a in frame.attrs}) != len(frame.attrs):
        return None
    return CellScan(source.db, source.grid, frame.table, frame.rows if rows is None else rows)


def column_scan(frame: Frame, key: str, rows: Iterable[int]) -> tuple[CellScan, int] | None:
    """A scan of a data column the frame has not read, on these of its data rows, with the
    column's number: an aggregate's 20,000 cells are read by SQLite without a `Value` each.
    None when the frame holds the column, or no row or the table cannot be scanned."""
    if key in frame.columns or frame.source is None:
        return None
    attr = next((a for a in frame.data_attrs if a.key == key), None)
    if attr is None or attr.col is None:
        return None
    data = frame.side.row_set
    found = sorted({r for r in rows if r in data})
    scan = scan_of(frame, found) if found else None
    return None if scan is None else (scan, attr.col)


def text_values(frame: Frame, *, by_sql: bool = True) -> set[str]:
    """The distinct texts of `Frame.text_cells`: by SQL when the table can be scanned (and
    `by_sql`), else from the frame."""
    scan = scan_of(frame) if by_sql else None
    if scan is None:
        return {value.text for _, value in frame.text_cells()}
    depth = len(frame.levels)
    found = {t for path in frame.side.path_groups() for t in path[:depth]}  # the row labels
    for attr in frame.data_attrs:
        if attr.col is not None:
            found |= scan.texts(attr.col, NOT_NUMERIC)
    return found


def text_groups(frame: Frame, *, by_sql: bool = True
                ) -> Iterator[tuple[str, str, list[int]]]:
    """The cells of `Frame.text_cells` grouped by column key and text: each (key, text, rows),
    in the order `text_cells` first meets them (row labels first, then the data row by row,
    column by column). By SQL when the table can be scanned (and `by_sql`)."""
    scan = scan_of(frame) if by_sql else None
    if scan is None:
        grouped: dict[tuple[str, str], list[int]] = {}
        for (row, key), value in frame.text_cells():
            grouped.setdefault((key, value.text), []).append(row)
        yield from ((key, text, rows) for (key, text), rows in grouped.items())
        return
    found: list[tuple[tuple[int, int, int], str, str, list[int]]] = []
    groups = frame.side.path_groups()
    for place, attr in enumerate(frame.levels):
        # A row label is its path's text at the level (`RowSide.tree`).
        by_text: dict[str, list[int]] = {}
        for path, rows in stop.checked(groups.items()):
            if place < len(path):
                by_text.setdefault(path[place], []).extend(rows)
        found += [((0, min(rows), place), attr.key, text, rows)
                  for text, rows in stop.checked(by_text.items())]
    for attr in frame.data_attrs:
        if attr.col is not None:
            found += [((1, first, attr.index), attr.key, text, rows)
                      for text, first, rows in scan.text_groups(attr.col)]
    found.sort(key=lambda group: group[0])
    yield from ((key, text, rows) for _, key, text, rows in found)
