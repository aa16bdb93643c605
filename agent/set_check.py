"""Validate's check of evidence sets: every cell of every set is re-read from the cells in SQL.

A set can hold a million cells, so it is checked by one aggregate query per set over its
ranges (bound as one JSON parameter, whatever their number), never cell by cell in Python:
the cells must all be there, be data cells of the set's table, and their typed numbers must
give the answer again (the sum, average, highest or lowest; the count of rows or of different
values). The cells' own texts are checked one by one only for the single cells the answer
lists, as for any answer.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from agent.events import EvidenceSet
from agent.evidence_sets import boxes
from agent.text import plural
from storage.plain_cells import BLOCK_ROWS, PLAIN_COLUMNS, PLAIN_WHERE, ROW_TABLE

_SQL = """
WITH box(r0, c0, r1, c1) AS (
    SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]'),
           json_extract(value, '$[2]'), json_extract(value, '$[3]') FROM json_each(:boxes)),
hit(row, text, number) AS (
    SELECT c.row, c.text, c.number
    FROM box CROSS JOIN {rows} c {index} ON c.grid = :grid AND c.row BETWEEN box.r0 AND box.r1
         AND {columns} AND {table} = :table
    UNION ALL
    SELECT {plain_row}, {plain_text}, {plain_number}
    FROM box CROSS JOIN plain_cells b {plain_index} JOIN json_each(b.raws) e
         ON b.grid = :grid AND b.row_block BETWEEN box.r0 / {block} AND box.r1 / {block}
         AND {plain_columns} AND b.table_id = :table AND {plain_where}
         AND {plain_row} BETWEEN box.r0 AND box.r1)
SELECT COUNT(*) AS cells, COUNT(c.number) AS numbers, {arithmetic} FROM hit c
"""
"""Each box's cells, of both stores (`storage.plain_cells`): a UNION ALL of two joins, which
SQLite runs as two loops over the boxes. A join of the boxes to the `cells` view would
materialize the table's every cell first."""
_PLAIN = {"rows": ROW_TABLE, "block": BLOCK_ROWS, "plain_row": PLAIN_COLUMNS["row"],
          "plain_number": PLAIN_COLUMNS["number"], "plain_where": PLAIN_WHERE}
_READS = {"total": "SUM(c.number)", "low": "MIN(c.number)", "high": "MAX(c.number)",
          "texts": "COUNT(DISTINCT c.text)", "rows": "COUNT(DISTINCT c.row)"}
_NEEDS = {"sum": ("total",), "avg": ("total",), "max": ("low", "high"), "min": ("low", "high"),
          "count": ("texts", "rows"), "count_distinct": ("texts", "rows")}
"""What each operation's check reads of the cells besides their counts, and only that (the
rest is NULL): a sum of 20,000 cells costs as much again as their count, their highest and
lowest twice as much, and counting different texts and rows sorts every cell."""

# CROSS JOIN keeps the ranges the outer loop (SQLite does not reorder it); left to itself, the
# planner walked every cell of the grid and, for each, every range: hours for a scattered set
# at 1M cells. Each range is then read by the primary key (grid, row, col) when it is wider
# than tall, else down its columns (`cells_by_column`): by rows, a column of 20,000 cells on
# a 50-column sheet read all million cells of its rows. The plain cells alike, by their
# blocks of rows or down their columns. By rows, the table id is compared as an expression
# (`+`): compared as a column, it let `cells_by_column` match one more term than the key,
# and SQLite took that index with a range of columns, which reads every row of those columns
# for each box: 137,511 cells of a 550k-row CSV's column, scattered, one box each, were
# still being checked after half an hour.
_BY_ROWS = {"index": "", "columns": "c.col BETWEEN box.c0 AND box.c1", "table": "+c.table_id",
            "plain_index": "INDEXED BY plain_cells_by_row",
            "plain_columns": "b.col BETWEEN box.c0 AND box.c1"}
_BY_COLUMNS = {"index": "INDEXED BY cells_by_column", "columns": "c.col = box.c0",
               "table": "c.table_id", "plain_index": "INDEXED BY plain_cells_by_column",
               "plain_columns": "b.col = box.c0"}
"""Each box one column wide: with the column fixed, the index also narrows to the rows."""


def set_sql(op: str, tall: bool) -> str:
    """The check's query for an operation, its boxes read down their columns when `tall`."""
    # A plain number's text is SQLite's CAST of it when read, most of the plain side's time:
    # made only for a count's different texts, the one read of them.
    text = PLAIN_COLUMNS["text"] if "texts" in _NEEDS.get(op, ()) else "NULL"
    return _SQL.format(**_PLAIN, plain_text=text, **(_BY_COLUMNS if tall else _BY_ROWS),
                       arithmetic=_arithmetic_sql(op))


def _arithmetic_sql(op: str) -> str:
    return ", ".join(f"{_READS[name] if name in _NEEDS.get(op, ()) else 'NULL'} AS {name}"
                     for name in _READS)


ARITHMETIC = {"sum": "sum", "avg": "average", "max": "highest value", "min": "lowest value",
              "count": "count of rows", "count_distinct": "count of different values"}
"""The operations whose answer the set's cells give again, in words for the trace."""


@dataclass(frozen=True)
class SetCheck:
    problems: list[str]
    summary: str
    """What was checked, for the trace ("re-read 2,000 cells of 1 range in SQL; sum matches")."""


@dataclass(frozen=True)
class _Read:
    cells: int
    numbers: int
    total: float
    low: float | None
    high: float | None
    texts: int | None
    rows: int | None
    """Counted only for a count's check."""


def check_sets(db: Any, grids: dict[str, str], sets: Sequence[EvidenceSet], op: str,
               values: Sequence[Any], uses: int) -> SetCheck:
    """Re-read every set (`grids`: table id -> grid id) and check it against the answer.

    `op` and `values` are the plan's operation and answer; `uses` is how many times cells
    entered the computation: more than the sets' cells when a merged cell counted for each
    row it spans, and then a sum or average cannot be re-derived from the distinct cells.
    """
    problems: list[str] = []
    reads: list[_Read] = []
    for s in sets:
        shapes = boxes(s.ranges)
        params = {"boxes": json.dumps(shapes), "grid": grids[s.table], "table": s.table}
        tall = sum(r1 - r0 for r0, _, r1, _ in shapes) > sum(c1 - c0 for _, c0, _, c1 in shapes)
        if tall:
            params["boxes"] = json.dumps([(r0, c, r1, c) for r0, c0, r1, c1 in shapes
                                          for c in range(c0, c1 + 1)])
        row = dict(next(iter(db.query(set_sql(op, tall), params))))
        read = _Read(row["cells"], row["numbers"], row["total"] or 0, row["low"], row["high"],
                     row["texts"], row["rows"])
        reads.append(read)
        if read.cells != s.count:
            problems.append(f"{s.sheet}!{', '.join(s.ranges[:3])}"
                            f"{' ...' if len(s.ranges) > 3 else ''} holds "
                            f"{plural(read.cells, 'cell')} of the table, not {s.count:,}")
    cells = sum(r.cells for r in reads)
    ranges = sum(len(s.ranges) for s in sets)
    summary = f"re-read {plural(cells, 'cell')} of {plural(ranges, 'range')} in SQL"
    if problems:
        return SetCheck(problems, summary)
    what = ARITHMETIC.get(op)
    if what is None or len(values) != 1 or not isinstance(values[0], (int, float)):
        return SetCheck([], f"{summary}; every cell is there")
    if op in ("sum", "avg") and uses != cells:
        return SetCheck([], f"{summary}; every cell is there (merged cells count once per row "
                            f"they span, so the {what} is not re-derived from the set)")
    if op in ("count", "count_distinct") and len(reads) > 1:
        return SetCheck([], f"{summary}; every cell is there (a count across tables is not "
                            "re-derived from the sets)")
    got = _arithmetic(op, reads)
    if got is None or not _close(got, values[0]):
        found = f"; they give {got:,.6g}" if got is not None else ""
        return SetCheck([f"the cells of the set do not give the {what} {values[0]:,}{found}"],
                        summary)
    return SetCheck([], f"{summary}; {what} matches")


def _arithmetic(op: str, reads: list[_Read]) -> float | None:
    numbers = sum(r.numbers for r in reads)
    lows = [r.low for r in reads if r.low is not None]
    highs = [r.high for r in reads if r.high is not None]
    if op in ("sum", "avg", "max", "min") and numbers != sum(r.cells for r in reads):
        return None  # a cell computed on no longer holds a number
    if op == "sum":
        return sum(r.total for r in reads)
    if op == "avg":
        return sum(r.total for r in reads) / numbers if numbers else None
    if op in ("max", "min"):
        # Every cell of a highest or lowest value's set holds that value.
        return lows[0] if lows and min(lows) == max(highs) else None
    return reads[0].rows if op == "count" else reads[0].texts


def _close(a: float, b: float) -> bool:
    """Equal but for float rounding: the walk rounds to 6 decimals, and a sum of a million
    floats drifts far less than a billionth; one unit off a total of millions is a mismatch."""
    return abs(a - b) <= max(1e-6, 1e-9 * max(abs(a), abs(b)))
