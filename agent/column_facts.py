"""A numeric column's counts and extremes over the whole table's rows, facts of the column.

An aggregate over a whole column of a tall table read the column's 20,000 cells in SQL three
or four times on every question: its sum, or its highest and the rows holding it (the
walk); how many cells have their row's ref (the citation); how many are no numbers (the
answer's features). Over `whole_rows` each is a fact of the column: computed after an
upload with its doubts and written forms (`prepare_doubts`), stored with the table's other
facts (a workspace stored before this fills them a column at a time, on its first
question), and a question then reads one stored row instead of the cells. The SQL step and
validate still read the cells (over the wide view, over the cited ranges): they check the
answer against the source, not against these facts.
"""

from __future__ import annotations

from dataclasses import dataclass
from operator import itemgetter
from typing import Any, Literal

from openpyxl.utils.cell import get_column_letter

from agent import cell_scan
from agent.cell_scan import NOT_NUMERIC, CellScan, scan_of
from agent.column_cells import ColumnCells
from agent.column_doubts import are_whole_rows, whole_rows
from agent.frame import Frame
from agent.row_runs import distinct_count
from agent.table_profile import table_fact

MAX_HELD_ROWS = 1_000
"""Rows holding an extreme stored with it; past this (a column of zeros) they are found in
SQL when asked for."""


@dataclass(frozen=True)
class Counts:
    """What `CellScan` reads of one column over `whole_rows`."""

    cells: int
    own_refs: int
    """Cells whose ref is the column's letters and their row ("D3")."""
    not_numeric: int
    whole_sum: tuple[int, int | None]
    """`CellScan.whole_sum`: how many measurable cells, their sum when all are integers."""
    extremes: dict[str, tuple[Any, list[int] | None]]
    """"max" and "min": the number (None without one) and the rows holding it (None past
    MAX_HELD_ROWS)."""


def column_counts(frame: Frame, key: str) -> Counts | None:
    """A measurable column's `Counts`: kept, stored, else computed (None when the table
    cannot be scanned in SQL, `scan_of`)."""
    return table_fact(frame, f"counts:{key}", lambda f: _count(f, key), _dump, _load)


def column_scan(frame: Frame, key: str, rows: list[int]) -> tuple[CellScan, int] | None:
    """`cell_scan.column_scan`, whose reads the column's stored counts answer when the rows
    are `whole_rows` (without a step per row either: they are data rows already)."""
    attr = next((a for a in frame.data_attrs if a.key == key), None)
    if key not in frame.columns and frame.source is not None and attr is not None \
            and attr.col is not None and attr.measurable and are_whole_rows(frame, rows):
        counts = column_counts(frame, key)
        if counts is not None:
            return _StoredScan(frame, whole_rows(frame), attr.col, counts), attr.col
    return cell_scan.column_scan(frame, key, rows)


def cells_scan(frame: Frame, cells: list[tuple[int, str]], fewest: int
               ) -> tuple[CellScan, int] | None:
    """`column_scan` of these cells when there are more than `fewest`, each once, all of one
    column (an aggregate's cited cells); else None."""
    if len(cells) <= fewest:
        return None
    if isinstance(cells, ColumnCells):
        return column_scan(frame, cells.key, cells.rows)
    key = cells[0][1]
    # By map, without a Python step per cell (an aggregate cites 20,000).
    if len(set(map(itemgetter(1), cells))) > 1:
        return None
    rows = list(map(itemgetter(0), cells))
    if distinct_count(rows) < len(rows):
        return None
    return column_scan(frame, key, rows)


class _StoredScan(CellScan):
    """A scan of `whole_rows` whose reads of one column its `Counts` answer; any other read
    goes to SQL."""

    def __init__(self, frame: Frame, rows: list[int], col: int, counts: Counts) -> None:
        assert frame.source is not None
        super().__init__(frame.source.db, frame.source.grid, frame.table, rows)
        self._col = col
        self._counts = counts

    def whole_sum(self, col: int) -> tuple[int, int | None]:
        return self._counts.whole_sum if col == self._col else super().whole_sum(col)

    def extreme(self, col: int, op: Literal["max", "min"]) -> tuple[Any, int]:
        if col != self._col:
            return super().extreme(col, op)
        return self._counts.extremes[op][0], self._counts.whole_sum[0]

    def rows_equal(self, col: int, number: float | int) -> set[int]:
        if col == self._col:
            for value, held in self._counts.extremes.values():
                if held is not None and value is not None and value == number:
                    return set(held)
        return super().rows_equal(col, number)

    def refs_of_letters(self, col: int, letters: str) -> tuple[int, int]:
        if col == self._col and letters == get_column_letter(col):
            return self._counts.cells, self._counts.own_refs
        return super().refs_of_letters(col, letters)

    def count(self, col: int, where: str) -> int:
        if col == self._col and where == NOT_NUMERIC:
            return self._counts.not_numeric
        return super().count(col, where)


def _count(frame: Frame, key: str) -> Counts | None:
    rows = whole_rows(frame)
    scan = scan_of(frame, rows) if rows else None
    col = frame.attr(key).col
    if scan is None or col is None:
        return None
    cells, own = scan.refs_of_letters(col, get_column_letter(col))
    extremes: dict[str, tuple[Any, list[int] | None]] = {}
    for op in ("max", "min"):
        value, count = scan.extreme(col, op)
        held = sorted(scan.rows_equal(col, value)) if count else []
        extremes[op] = (value, held if len(held) <= MAX_HELD_ROWS else None)
    return Counts(cells, own, scan.count(col, NOT_NUMERIC), scan.whole_sum(col), extremes)


def _dump(found: Counts | None) -> dict[str, Any] | None:
    if found is None:
        return None
    return {"cells": found.cells, "own_refs": found.own_refs, "not_numeric": found.not_numeric,
            "whole_sum": list(found.whole_sum), "extremes": found.extremes}


def _load(found: dict[str, Any] | None) -> Counts | None:
    if found is None:
        return None
    count, total = found["whole_sum"]
    return Counts(found["cells"], found["own_refs"], found["not_numeric"], (count, total),
                  {op: (value, held) for op, (value, held) in found["extremes"].items()})
