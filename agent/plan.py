"""The plan vocabulary: every computation the engine can run over a table, one class each.

A `Plan` is one of the operations below (a closed, discriminated union keyed by `op`). Each
operation holds its typed arguments and both of its forms side by side: `walk`, the tree
operation over the frame in memory, and `sql`, the same computation as one SELECT over the
table's wide view. `validate` compares the two, and `tests/test_plan_forms.py` proves they
agree on generated tables. A new operation is one class here (added to `Plan`) and the rule in
`agent/solver.py` that chooses it.

Plans are plain data: they name their table by id and version (`TableRef`) and cells by
(row, column), so a plan is kept in the graph state and its checkpoints. Both forms take
`frames`, which turns a `TableRef` into the live `Frame`.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from itertools import pairwise
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from agent.cell_scan import CellScan
from agent.column_cells import ColumnCells
from agent.column_doubts import are_whole_rows
from agent.column_facts import column_scan
from agent.column_forms import column_forms
from agent.display import answer_unit, cell_form, one_text_tells, read_as_written, shown
from agent.durations import ended_word
from agent.frame import Frame, TableRef, Value
from agent.grounding import naming_path
from agent.moments import Moments, Unit, elapsed, in_words, point, sql_elapsed, sql_point
from agent.results import Cell, Result, Walk, cells_unit, computed, fmt, number, walked
from agent.sqltext import SqlStep, is_number, numeric, quote, rows_clause, where
from agent.table_facts import distinct_row_paths
from agent.text import ordinal, plural
from storage.views import long_name

Frames = Callable[[TableRef], Frame]
"""Where a plan's forms find the live frame of a table it names."""


@dataclass(frozen=True)
class Refusal:
    """Why the offline engine will not answer, in words for the user."""

    reason: str


class Filter(BaseModel):
    """A condition the question states, as the SQL form restates it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    column: str
    op: Literal["=", "in", "between", ">", ">=", "<", "<="]
    value: str | float | None = None
    """For "=": the named text (or number); for a comparison: the number; for "between": the
    low end."""
    values: list[str] | list[int] = Field(default_factory=list)
    """For "in": the named texts, or the listed rows when the column is `_row`."""
    high: float | None = None
    """For "between": the high end."""
    other: str | None = None
    """For a comparison of two columns of one row ("more visits in 2023 than in 2022"): the
    column compared against, in place of a number."""

    @property
    def columns(self) -> list[str]:
        """The columns the condition reads."""
        return [self.column, self.other] if self.other else [self.column]


class _Operation(BaseModel):
    """What every operation has: its table, the rows it reads, how it is described."""

    model_config = ConfigDict(extra="forbid")

    table: TableRef
    description: str
    rows: list[int]
    """The data rows the operation reads (sheet rows), in table order."""
    filters: list[Filter] = Field(default_factory=list)
    """The question's conditions, restated by the SQL form."""
    confidence: float = 0.9

    @property
    def measure(self) -> list[str]:
        """The data columns computed on."""
        return []

    @property
    def answer_column(self) -> str | None:
        """The column whose cells are the answer, when that is not a computed number."""
        return None

    @property
    def operand_cells(self) -> list[Cell]:
        """The two cells of a difference or a comparison, in order."""
        return []

    @property
    def columns_read(self) -> list[str]:
        """Every column computed on: the measure and the operands' columns, once each."""
        return list(dict.fromkeys([*self.measure, *(k for _, k in self.operand_cells)]))

    def derived_columns(self, frame: Frame) -> list[str]:
        """The columns computed on whose numbers come from text (durations, ordinals): the
        column step writes them as numbers before the SQL form reads them."""
        return [k for k in self.columns_read
                if not frame.attr(k).numeric and frame.attr(k).derivable]

    def _walked(self, frame: Frame, values: list[str | float | int], display: str,
                cited: list[Cell], unit: str | None = None) -> Walk:
        return walked(values, display, cited, frame, self.measure, self.rows, unit)

    def _computed(self, frame: Frame, value: float | int, cells: list[Cell],
                  extra_decimals: int = 0) -> Walk:
        return computed(value, cells, frame, self.measure, self.rows, extra_decimals)

    def _ahead_by(self, frame: Frame, best: int, cells: list[Cell], answer: str
                  ) -> Walk | Refusal:
        """The name (in column `answer`) of row `best`, the one ahead of two compared cells,
        and how far ahead it is: "2019, 4085". The size is written as the cells are."""
        name = frame.value(best, answer)
        if name is None or not name.text.strip():
            return Refusal(f"the row ahead has no {frame.attr(answer).label} to name it by")
        first, second = (frame.value(*c) for c in cells)
        if first is None or second is None or first.number is None or second.number is None:
            return Refusal("one of the two compared cells is not a number")
        margin = number(round(abs(first.number - second.number), 6))
        size = self._computed(frame, margin, cells).result
        return self._walked(frame, [name.text, margin], f"{name.text}, {size.display}",
                            [*cells, (best, answer)], unit=size.unit)

    def _source(self, frames: Frames, source: str | None) -> str | None:
        """The quoted table the SQL form reads: `source` (an intermediate table with the same
        column names, e.g. the column step's), else the wide view; None without one."""
        wide = frames(self.table).wide
        return quote(source or wide) if source or wide else None

    def _condition(self, params: list[object]) -> str:
        # The filters restate the question; the row list pins the rows the plan chose (stated
        # totals left out), so both must hold.
        clauses = where(self.filters, params)
        rows = rows_clause(self.rows, params) if self.rows else "0"
        return f"{clauses} AND {rows}" if clauses else rows


NO_FIGURE = re.compile(r"[-–—‐‒―.:…*/\\x\s]+|n/?a|n\.a\.|nil|null|not (?:available|applicable)"
                       r"|tba|tbd|tbc|to be (?:announced|determined|confirmed)"
                       r"|\[(?:c|x|z|u|w|low|d|k|v)\]", re.IGNORECASE)
"""A cell that marks a figure as missing rather than giving one (also the bracketed marks of
UK official statistics: "[c]" confidential, "[x]" not available, "[z]" not applicable)."""


def _read_sql(table: str, key: str, rows: list[int]) -> SqlStep:
    params: list[object] = []
    clause = rows_clause(rows, params)
    return SqlStep(f'SELECT "_row", {quote(key)} FROM {table} WHERE {clause} ORDER BY "_row"',
                   params, [key])


# --- reading cells ------------------------------------------------------------------------------

class _ManyColumns(_Operation):
    """An operation over several named columns, which are what it computes on."""

    columns: list[str]

    @property
    def measure(self) -> list[str]:
        return self.columns


class Lookup(_Operation):
    """Read one cell: a row and a column the question names."""

    op: Literal["lookup"] = "lookup"
    column: str

    @property
    def measure(self) -> list[str]:
        return [self.column]

    def walk(self, frames: Frames) -> Walk | Refusal:
        frame = frames(self.table)
        [row] = self.rows
        key = self.column
        value = frame.value(row, key)
        if value is None or not value.text.strip():
            return Refusal(f"the cell for {frame.attr(key).label} is empty")
        mark = value.text.strip()
        if NO_FIGURE.fullmatch(mark) and (frame.attr(key).measurable
                                          or not any(ch.isalnum() for ch in mark)):
            # "–", "..", "n/a": the report's mark for a figure it does not give (suppressed,
            # not applicable, not yet there), which is no answer to read out. (In a column
            # of text, only a mark without letters: "NA" or "X" there is a name, North
            # America; a dash is a date or name the table does not give.)
            return Refusal(f"the cell for {frame.attr(key).label} holds "
                           f"\"{value.text.strip()}\", a mark for no figure")
        if not value.numeric:
            return self._walked(frame, [value.text], value.text, [(row, key)])
        display = read_as_written(value, frame.attr(key))
        return self._walked(frame, [number(value.number)], display, [(row, key)],
                            unit=cells_unit(frame, [(row, key)]))

    def sql(self, frames: Frames, source: str | None = None) -> SqlStep | None:
        table = self._source(frames, source)
        return None if table is None else _read_sql(table, self.column, self.rows)


class ReadCells(_ManyColumns):
    """Read several cells of one row ("the revenue in 2019 and 2018")."""

    op: Literal["multi"] = "multi"

    def walk(self, frames: Frames) -> Walk | Refusal:
        frame = frames(self.table)
        [row] = self.rows
        values = [frame.value(row, k) for k in self.columns]
        if any(v is None or not v.text.strip() for v in values):
            return Refusal("one of the cells to read is empty")
        answers = [number(v.number) if v.numeric else v.text for v in values]
        return self._walked(frame, answers, ", ".join(v.text for v in values),
                            [(row, k) for k in self.columns])

    def sql(self, frames: Frames, source: str | None = None) -> SqlStep | None:
        table = self._source(frames, source)
        if table is None:
            return None
        params: list[object] = []
        clause = rows_clause(self.rows, params)
        cols = ", ".join(quote(k) for k in self.columns)
        return SqlStep(f'SELECT "_row", {cols} FROM {table} WHERE {clause}', params,
                       self.columns)


class ReadRows(_Operation):
    """Read a column in the first, the last or every one of the matching rows."""

    op: Literal["first", "last", "list"]
    column: str

    @property
    def answer_column(self) -> str | None:
        return self.column

    def answer_rows(self) -> list[int]:
        """The rows whose cells are the answer."""
        if self.op == "list":
            return self.rows
        return [self.rows[0] if self.op == "first" else self.rows[-1]]

    def walk(self, frames: Frames) -> Walk | Refusal:
        frame = frames(self.table)
        rows = self.answer_rows()
        values = frame.values_of(self.column, rows)
        present = [(r, v) for r, v in zip(rows, values, strict=True) if v and v.text.strip()]
        if not present:
            return Refusal("the rows have no value to report")
        texts = [number(v.number) if v.numeric else v.text for _, v in present]
        return self._walked(frame, texts, ", ".join(v.text for _, v in present),
                            [(r, self.column) for r, _ in present])

    def sql(self, frames: Frames, source: str | None = None) -> SqlStep | None:
        table = self._source(frames, source)
        return None if table is None else _read_sql(table, self.column, self.answer_rows())


# --- aggregates over rows -----------------------------------------------------------------------

_SQL_AGGREGATE = {"sum": "SUM", "avg": "AVG", "max": "MAX", "min": "MIN"}


_AGGREGATE: dict[str, Callable[[list], float | int]] = {
    "sum": sum, "avg": lambda xs: sum(xs) / len(xs), "max": max, "min": min}


def _aggregate(op: str, numbers: list) -> float | int:
    """An aggregate of numbers, rounded to 6 places (a whole float as an int)."""
    return number(round(_AGGREGATE[op](numbers), 6))


def _extreme(scan: CellScan, col: int, op: Literal["max", "min"], key: str, rows: list[int]
             ) -> tuple[float | int | None, list[Cell]]:
    """The highest or lowest number of a column over the scan's rows, and the cells in
    `rows` that hold it (in their order); None when there is no number."""
    found, count = scan.extreme(col, op)
    if not count:
        return None, []
    # The cells equal to the extreme as stored: its rounded form (0.731543 of 0.7315426687,
    # a percent cell of a workbook) equals none of them.
    held = scan.rows_equal(col, found)
    return number(round(found, 6)), [(r, key) for r in rows if r in held]


def _sum_or_average(scan: CellScan, col: int, op: str, key: str, rows: list[int]
                    ) -> tuple[float | int | None, list[Cell]]:
    """The sum or average of a column's numbers over the scan's rows, and the cells in `rows`
    that hold one (in their order); None when there is none. Whole numbers are added by
    SQLite (exactly); any other is added in Python in row order, as a walk adds them."""
    count, total = scan.whole_sum(col)
    if total is not None and count == scan.row_count == len(rows):
        # Every row holds a number (each row once): they are all cited.
        return _aggregate(op, [total] if op == "sum" else [total / count]), \
            ColumnCells(rows, key)
    by_row = scan.numbers(col)
    cells = [(r, key) for r in rows if r in by_row]
    return (_aggregate(op, [by_row[r] for r, _ in cells]) if cells else None), cells


class Aggregate(_Operation):
    """Sum, average, highest or lowest of one column over the matching rows."""

    op: Literal["sum", "avg", "max", "min"]
    column: str

    @property
    def measure(self) -> list[str]:
        return [self.column]

    def walk(self, frames: Frames) -> Walk | Refusal:
        frame = frames(self.table)
        key = self.column
        named = any(f.op == "in" for f in self.filters)
        # A column the frame has not read is computed on in SQL over the stored cells: reading
        # its 20,000 cells into the frame was most of a 1M-cell table's aggregate.
        scanned = None if named else column_scan(frame, key, self.rows)
        forms = None
        if scanned is not None and self.op in ("max", "min"):
            value, cells = _extreme(*scanned, self.op, key, self.rows)
        elif scanned is not None and (forms := self._forms(frame, *scanned)) is not None:
            value, cells = _sum_or_average(*scanned, self.op, key, self.rows)
        else:
            values = frame.values_of(key, self.rows)
            cells = [(r, key) for r, v in zip(self.rows, values, strict=True)
                     if v is not None and v.measurable]
            if named and cells and len(cells) < len(self.rows):
                # The question named these rows one by one: a blank or non-number is not a
                # zero.
                missing = [frame.row_label(r) for r in self.rows if (r, key) not in cells]
                return Refusal(f"{frame.attr(key).label} has no number for "
                               f"{', '.join(missing)}")
            numbers = [v.number for v in values if v is not None and v.measurable]
            value = _aggregate(self.op, numbers) if numbers else None
            if self.op in ("max", "min") and numbers:
                # The cells equal to the extreme itself, not to its form rounded to 6 places.
                extreme = _AGGREGATE[self.op](numbers)
                cells = [c for c, n in zip(cells, numbers, strict=True) if n == extreme]
        if value is None:
            return Refusal("no numbers to aggregate in the matching rows")
        if self.op in ("max", "min"):
            texts = {frame.value(*c).text for c in cells}
            if not frame.attr(key).numeric and len(texts) == 1:
                # The fastest "1:44.24" or the best "1st": a cell, shown as written, not as
                # the seconds or the rank number it was compared by.
                return walked([value], texts.pop(), cells, frame, self.measure, self.rows)
        return computed(value, cells, frame, self.measure, self.rows,
                        extra_decimals=1 if self.op == "avg" else 0, values=forms)

    def _forms(self, frame: Frame, scan: CellScan, col: int) -> list[Value] | None:
        """Values that stand for the column's measurable cells where `computed` reads their
        written form and unit (`column_forms`): a stored fact of the column over the whole
        table's rows, else found in SQL. None when a shape's texts must all be read."""
        if are_whole_rows(frame, self.rows):
            return column_forms(frame, self.column)
        found = scan.forms(col)
        return [v for _, v in found] if all(one_text_tells(s) for s, _ in found) else None

    def sql(self, frames: Frames, source: str | None = None) -> SqlStep | None:
        table = self._source(frames, source)
        if table is None:
            return None
        params: list[object] = []
        condition = self._condition(params)
        fn, q = _SQL_AGGREGATE[self.op], quote(self.column)
        # The rows without a number are left out once, in the WHERE clause, not by a CASE in
        # each of the two aggregates (a seventh of the query over 20,000 rows); a column of
        # the wide view that holds numbers only needs no such test.
        if source is not None or self.column not in frames(self.table).number_columns:
            condition = f"{condition} AND {is_number(self.column)}"
        return SqlStep(f'SELECT {fn}({q}) AS "{self.op}", COUNT({q}) AS "n" '
                       f"FROM {table} WHERE {condition}", params, [self.op])


class Count(_Operation):
    """Count the matching rows; the cells of the filtered columns are cited."""

    op: Literal["count"] = "count"
    held: str | None = None
    """A column each counted row holds a value in ("how many parties have a *leader*"): its
    cells are cited too, as the filtered columns' are."""

    def walk(self, frames: Frames) -> Walk | Refusal:
        frame = frames(self.table)
        n = len(self.rows)
        columns = [k for f in self.filters for k in f.columns] + ([self.held] if self.held else [])
        cells = [(r, c) for r in self.rows for c in dict.fromkeys(columns)
                 if frame.value(r, c)]
        return self._walked(frame, [n], f"{n:,}", cells)

    def sql(self, frames: Frames, source: str | None = None) -> SqlStep | None:
        table = self._source(frames, source)
        if table is None:
            return None
        params: list[object] = []
        condition = self._condition(params)
        return SqlStep(f'SELECT COUNT(*) AS "count" FROM {table} WHERE {condition}', params,
                       ["count"])


class CountDistinct(_Operation):
    """Count the different values of a column in the matching rows ("how many drivers")."""

    op: Literal["count_distinct"] = "count_distinct"
    column: str

    @property
    def answer_column(self) -> str | None:
        return self.column

    def walk(self, frames: Frames) -> Walk | Refusal:
        frame = frames(self.table)
        key = self.column
        values = {frame.value(r, key).text for r in self.rows if frame.value(r, key) is not None}
        cited = [(r, key) for r in self.rows if frame.value(r, key)]
        return self._walked(frame, [len(values)], f"{len(values):,}", cited)

    def sql(self, frames: Frames, source: str | None = None) -> SqlStep | None:
        table = self._source(frames, source)
        if table is None:
            return None
        params: list[object] = []
        condition = self._condition(params)
        return SqlStep(f'SELECT COUNT(DISTINCT {quote(self.column)}) AS "count" FROM {table} '
                       f"WHERE {condition}", params, ["count"])


class Mode(_Operation):
    """The most frequent value of a column over the matching rows ("the most common
    nationality"); a tie for the most is refused rather than broken by sheet order."""

    op: Literal["mode"] = "mode"
    column: str

    @property
    def answer_column(self) -> str | None:
        return self.column

    def walk(self, frames: Frames) -> Walk | Refusal:
        frame = frames(self.table)
        groups: dict[object, list[int]] = {}
        for r in self.rows:
            v = frame.value(r, self.column)
            if v is not None and v.text.strip():
                groups.setdefault(number(v.number) if v.numeric else v.text, []).append(r)
        if not groups:
            return Refusal("the rows have no values to compare")
        ranked = sorted(groups.items(), key=lambda kv: -len(kv[1]))
        if len(ranked) > 1 and len(ranked[1][1]) == len(ranked[0][1]):
            return Refusal("several values are equally frequent")
        value, rows = ranked[0]
        if len(rows) < 2:
            return Refusal("no value occurs more than once")
        text = frame.value(rows[0], self.column).text
        return self._walked(frame, [value], text, [(r, self.column) for r in rows])

    def sql(self, frames: Frames, source: str | None = None) -> SqlStep | None:
        table = self._source(frames, source)
        if table is None:
            return None
        params: list[object] = []
        condition = self._condition(params)
        col = quote(self.column)
        return SqlStep(f'SELECT {col}, COUNT(*) AS "n" FROM {table} WHERE {condition} AND '
                       f"{col} IS NOT NULL AND TRIM(CAST({col} AS TEXT)) <> '' GROUP BY {col} "
                       'ORDER BY "n" DESC LIMIT 1', params, [self.column])


# --- across the columns of one row --------------------------------------------------------------

class GroupSum(_ManyColumns):
    """Add several columns of one row (a column group such as "H2 2024")."""

    op: Literal["group_sum"] = "group_sum"

    def walk(self, frames: Frames) -> Walk | Refusal:
        frame = frames(self.table)
        [row] = self.rows
        cells = [(row, k) for k in self.columns if frame.value(row, k) is not None]
        numbers = [frame.value(r, k).number for r, k in cells if frame.value(r, k).measurable]
        if len(numbers) != len(self.columns):
            return Refusal("some of the cells to add are empty or not numbers")
        return self._computed(frame, number(sum(numbers)), cells)

    def sql(self, frames: Frames, source: str | None = None) -> SqlStep | None:
        table = self._source(frames, source)
        if table is None:
            return None
        params: list[object] = []
        total = " + ".join(f"COALESCE({numeric(k)}, 0)" for k in self.columns)
        clause = rows_clause(self.rows, params)
        cols = ", ".join(quote(k) for k in self.columns)
        return SqlStep(f'SELECT "_row", {cols}, {total} AS "total" FROM {table} WHERE {clause}',
                       params, ["total"])


class RowAverage(_ManyColumns):
    """Average several columns of one row."""

    op: Literal["row_avg"] = "row_avg"

    def walk(self, frames: Frames) -> Walk | Refusal:
        frame = frames(self.table)
        [row] = self.rows
        cells = [(row, k) for k in self.columns if (v := frame.value(row, k)) and v.measurable]
        if len(cells) != len(self.columns):
            return Refusal("one of the cells to average is not a number")
        value = number(round(sum(frame.value(*c).number for c in cells) / len(cells), 6))
        return self._computed(frame, value, cells, extra_decimals=1)

    def sql(self, frames: Frames, source: str | None = None) -> SqlStep | None:
        table = self._source(frames, source)
        if table is None:
            return None
        params: list[object] = []
        total = " + ".join(numeric(k) for k in self.columns)
        clause = rows_clause(self.rows, params)
        return SqlStep(f'SELECT "_row", ({total}) * 1.0 / {len(self.columns)} AS "avg" '
                       f"FROM {table} WHERE {clause}", params, ["avg"])


AGGREGATES_ACROSS_COLUMNS = frozenset({"group_sum", "row_avg"})
"""Operations that combine several columns of a row into one number."""


# --- ranking and comparing ----------------------------------------------------------------------

PLACED_ROWS = 5_000
"""Rows of a ranking up to which a winner's label is checked for repeats under other groups
(`Rank._placed`); a taller ranking shows the label alone."""


class Rank(_Operation):
    """The name of the row with the highest (or lowest) number in a column."""

    op: Literal["argmax", "argmin"]
    column: str
    """The numbers ranked."""
    answer: str
    """The column that names the rows (the answer)."""
    place: int = Field(default=1, ge=1)
    """1 for the highest (lowest), 2 for the second highest, ..."""
    top: int = Field(default=1, ge=1, le=10)
    """How many rows from the top are named, best first: 3 for "the top three" (with
    `place` 1)."""
    value: bool = False
    """Also give the ranked number ("which school scored highest, and what was its score?")."""
    by: str | None = None
    """The column that names the ranked rows when the answer is another of the best row's
    cells ("the Release Date of the version with the most open bugs": by Version)."""
    margin: bool = False
    """Of exactly two rows, also give how far the best is ahead of the other ("which year had
    more bankruptcies, and by how much?")."""

    @property
    def measure(self) -> list[str]:
        return [self.column]

    @property
    def answer_column(self) -> str | None:
        return self.answer

    def walk(self, frames: Frames) -> Walk | Refusal:
        frame = frames(self.table)
        key = self.column
        answer = frame.attr(self.by or self.answer)
        # A row's name: its whole row path when the answer is a row level ("Q1" under 2023
        # and under 2024 are two rows), else the answer cell; blank names and unranked rows
        # do not count.
        # The deepest row level names each row by its whole path; a level above it ("City"
        # over "Museum") is shared by the rows under it, whose names then repeat.
        deepest = answer.kind == "level" and frame.levels[-1].key == answer.key
        distinct = deepest and distinct_row_paths(frame)
        # No two rows share a path, so the names cannot repeat: a column the frame has not
        # read is ranked in SQL over the stored cells, as an aggregate's highest is.
        scanned = column_scan(frame, key, self.rows) \
            if distinct and self.place == 1 and self.top == 1 and not self.margin else None
        if scanned is not None:
            found, count = scanned[0].extreme(scanned[1], "max" if self.op == "argmax"
                                              else "min")
            if not count:
                return Refusal("no numbers to rank in the matching rows")
            held = scanned[0].rows_equal(scanned[1], found)
            return self._named(frame, [r for r in self.rows if r in held])
        # Each column read once for all the rows (a call per row and cell was most of a
        # 20,000-row ranking).
        measures = frame.values_of(key, self.rows)
        if distinct:
            names = []  # no two rows share a path: the names cannot repeat (nor be read)
        else:
            names = [frame.row_paths.get(r) if deepest else v.text.strip()
                     for r, m, v in zip(self.rows, measures,
                                        frame.values_of(answer.key, self.rows), strict=True)
                     if m is not None and m.measurable and v is not None and v.text.strip()]
        if len(set(names)) < len(names):
            # "Which product sold the most units?" over one row per sale: the best single row
            # is not the best product; that needs the rows added up per product first.
            return Refusal(f"{answer.label} repeats over the rows, so the most per "
                           f"{answer.label} needs the rows added up per value first, which the "
                           "offline engine does not do")
        scored = [(m.number, r) for r, m in zip(self.rows, measures, strict=True)
                  if m is not None and m.measurable]
        if not scored:
            return Refusal("no numbers to rank in the matching rows")
        if self.top > 1:
            return self._top_rows(frame, scored)
        if self.margin:
            return self._ahead(frame, scored)
        ordered = sorted((n for n, _ in scored), reverse=self.op == "argmax")
        top = ordered[:self.place + 1]
        if self.place > 1 and (len(ordered) < self.place or len(set(top)) < len(top)):
            # The second highest is the second row of the order: a tie at, above or just
            # below it leaves no single second.
            return Refusal(f"ties (or too few rows) leave no single {ordinal(self.place)} place")
        best = ordered[self.place - 1]
        return self._named(frame, [r for n, r in scored if n == best])

    def _top_rows(self, frame: Frame, scored: list[tuple[float, int]]) -> Walk | Refusal:
        """The `top` best rows, best first (ties inside kept in the table's order, as the SQL
        form orders them): refused when fewer rows are ranked, or when the next row ties the
        last one named, which leaves no one top three."""
        sign = -1 if self.op == "argmax" else 1
        ordered = sorted(scored, key=lambda nr: (sign * nr[0], nr[1]))
        if len(ordered) < self.top:
            return Refusal(f"only {plural(len(ordered), 'row')} to rank, fewer than the "
                           f"{self.top} asked")
        if len(ordered) > self.top and ordered[self.top][0] == ordered[self.top - 1][0]:
            return Refusal(f"a tie at the {ordinal(self.top)} place leaves the "
                           f"{self.top} {'highest' if self.op == 'argmax' else 'lowest'} "
                           "undecided")
        return self._named(frame, [r for _, r in ordered[:self.top]])

    def _named(self, frame: Frame, winners: list[int]) -> Walk | Refusal:
        """The result: the winning rows' names, citing their numbers and names."""
        labels = [frame.value(r, self.answer) for r in winners]
        if any(v is None or not v.text.strip() for v in labels):
            # Say which row and which empty cell, so the reader can look: "the best row" of
            # what, named by what, was the tester's question.
            most = "highest" if self.op == "argmax" else "lowest"
            row = next(r for r, v in zip(winners, labels, strict=True)
                       if v is None or not v.text.strip())
            return Refusal(f"the row with the {most} {frame.attr(self.column).label} "
                           f"({frame.row_label(row)}) has no {frame.attr(self.answer).label} "
                           "to answer with")
        texts = [v.text for v in labels]
        cited = [(r, self.column) for r in winners] + [(r, self.answer) for r in winners]
        if not self.value:
            return self._walked(frame, texts, ", ".join(self._placed(frame, winners, texts)),
                                cited)
        # Name and number row by row, as the SQL form returns them ("Muslim, 5.7").
        ranked = [frame.value(r, self.column) for r in winners]
        if any(n is None or n.number is None for n in ranked):
            return Refusal("the best row's number cannot be read")
        values: list[str | float | int] = []
        for text, cell in zip(texts, ranked, strict=True):
            values += [text, cell.number]
        # (With the header's unit and the title's scale, as a Lookup reads the cell.)
        attr = frame.attr(self.column)
        shown = ", ".join(f"{t}, {read_as_written(n, attr)}"
                          for t, n in zip(texts, ranked, strict=True))
        return self._walked(frame, values, shown, cited)

    def _ahead(self, frame: Frame, scored: list[tuple[float, int]]) -> Walk | Refusal:
        """The better of exactly two rows, and by how much it is ahead of the other."""
        if len(scored) != 2:
            return Refusal(f"\"by how much\" compares two rows, and "
                           f"{plural(len(scored), 'row')} have a number here")
        (a, row_a), (b, row_b) = scored
        if a == b:
            return Refusal("the two values are equal")
        best = row_a if (a > b) == (self.op == "argmax") else row_b
        return self._ahead_by(frame, best, [(row_a, self.column), (row_b, self.column)],
                              self.answer)

    def _placed(self, frame: Frame, winners: list[int], texts: list[str]) -> list[str]:
        """The winners' names as shown: a row label that other rows under other groups share
        ("Line 1" under each Plant) is shown with its groups ("Line 1 (Pilsen)")."""
        answer = frame.attr(self.answer)
        if answer.kind != "level" or len(frame.levels) < 2 or \
                frame.levels[-1].key != answer.key or len(self.rows) > PLACED_ROWS:
            return texts
        counts = Counter(v.text.strip() for v in frame.values_of(answer.key, self.rows)
                         if v is not None)
        out = []
        for row, text in zip(winners, texts, strict=True):
            groups = [g for g in frame.row_paths.get(row, ())[:-1] if g]
            out.append(f"{text} ({' > '.join(groups)})" if counts[text.strip()] > 1 and groups
                       else text)
        return out

    def sql(self, frames: Frames, source: str | None = None) -> SqlStep | None:
        table = self._source(frames, source)
        if table is None:
            return None
        params: list[object] = []
        condition = self._condition(params)
        fn, n = ("MAX" if self.op == "argmax" else "MIN"), numeric(self.column)
        if self.top > 1:
            order = "DESC" if self.op == "argmax" else "ASC"
            return SqlStep(
                f'SELECT "_row", {quote(self.answer)}, {quote(self.column)} FROM {table} '
                f"WHERE {condition} AND {n} IS NOT NULL ORDER BY {n} {order}, \"_row\" "
                f"LIMIT {self.top:d}", params, self._answered)
        if self.place > 1:
            order = "DESC" if self.op == "argmax" else "ASC"
            return SqlStep(
                f'SELECT "_row", {quote(self.answer)}, {quote(self.column)} FROM {table} '
                f"WHERE {condition} AND {n} IS NOT NULL ORDER BY {n} {order}, \"_row\" "
                f"LIMIT 1 OFFSET {self.place - 1:d}", params, self._answered)
        if self.margin:
            # The best row's name, and the highest less the lowest of the two.
            return SqlStep(
                f'SELECT "_row", {quote(self.answer)}, (SELECT MAX({n}) FROM {table} WHERE '
                f"{condition}) - (SELECT MIN({n}) FROM {table} WHERE {condition}) AS \"margin\" "
                f"FROM {table} WHERE {condition} AND {n} = (SELECT {fn}({n}) FROM {table} "
                f'WHERE {condition}) ORDER BY "_row"', params * 4, [self.answer, "margin"])
        params.extend(list(params))  # the condition appears twice: outside and in the subquery
        return SqlStep(
            f'SELECT "_row", {quote(self.answer)}, {quote(self.column)} FROM {table} '
            f"WHERE {condition} AND {n} = (SELECT {fn}({n}) FROM {table} WHERE {condition}) "
            'ORDER BY "_row"', params, self._answered)

    @property
    def _answered(self) -> list[str]:
        """The SQL result's answer columns: the name, and the number when it is asked too."""
        if self.margin:
            return [self.answer, "margin"]
        return [self.answer, self.column] if self.value else [self.answer]


class RankGroups(_Operation):
    """The value of a column whose rows add up to the most (or least) of another: "which city
    had the most visitors" over one row per museum. The rows are grouped by the answer
    column's value, the measure is summed (or averaged) per group, and the best group named;
    tied groups are all named."""

    op: Literal["group_argmax", "group_argmin"]
    column: str
    """The numbers added up (or averaged) per group."""
    answer: str
    """The column whose values are the groups (the answer)."""
    aggregate: Literal["sum", "avg"] = "sum"

    @property
    def measure(self) -> list[str]:
        return [self.column]

    @property
    def answer_column(self) -> str | None:
        return self.answer

    def walk(self, frames: Frames) -> Walk | Refusal:
        frame = frames(self.table)
        groups: dict[str, list[tuple[float | int, int]]] = {}
        for r, m, v in zip(self.rows, frame.values_of(self.column, self.rows),
                           frame.values_of(self.answer, self.rows), strict=True):
            if m is not None and m.measurable and v is not None and v.text.strip():
                groups.setdefault(v.text.strip(), []).append((m.number, r))
        if len(groups) < 2:
            return Refusal("fewer than two groups to compare")
        totals = {name: sum(n for n, _ in members) / (len(members) if self.aggregate == "avg"
                                                     else 1)
                  for name, members in groups.items()}
        pick = max if self.op == "group_argmax" else min
        best = pick(totals.values())
        # Equal within float rounding: SQL adds in its own order.
        winners = sorted(name for name, t in totals.items()
                         if abs(t - best) <= 1e-9 * max(1.0, abs(best)))
        cited = [(r, key) for name in winners for _, r in groups[name]
                 for key in (self.column, self.answer)]
        return self._walked(frame, winners, ", ".join(winners), cited)

    def sql(self, frames: Frames, source: str | None = None) -> SqlStep | None:
        table = self._source(frames, source)
        if table is None:
            return None
        params: list[object] = []
        condition = self._condition(params)
        n, name = numeric(self.column), f"TRIM(CAST({quote(self.answer)} AS TEXT))"
        fn, best = ("SUM" if self.aggregate == "sum" else "AVG",
                    "MAX" if self.op == "group_argmax" else "MIN")
        grouped = (f'SELECT {name} AS "name", {fn}({n}) AS "total" FROM {table} '
                   f"WHERE {condition} AND {n} IS NOT NULL AND {name} <> '' GROUP BY {name}")
        return SqlStep(f'SELECT "name", "total" FROM ({grouped}) WHERE ABS("total" - '
                       f'(SELECT {best}("total") FROM ({grouped}))) <= 1e-9 * MAX(1.0, '
                       f'ABS("total")) ORDER BY "name"', params * 2, ["name"])


_YEAR_IN_LABEL = re.compile(r"(?<!\d)((?:1[89]|20)\d\d(?:[/\-\u2013](?:\d\d){1,2})?)"
                            r"(?![\d/\-\u2013])")
"""A year in a header, a fiscal year whole ("2021-22", "2019/2020": the year asked for is
that, not its first half)."""


_FISCAL_LEAF = re.compile(r"\s*FY\s?\d{2,4}\s*", re.IGNORECASE)


def column_names(frame: Frame, keys: list[str]) -> dict[str, str]:
    """The name each compared column answers with: its own header, or its year when every
    compared header holds one year and no two the same ("(Restated) 2018" answers "2018":
    the qualifier describes the figures, it is not part of the year asked for)."""
    leaves = {k: naming_path(frame.attr(k).path)[-1] for k in keys}
    if all(_FISCAL_LEAF.fullmatch(leaf) for leaf in leaves.values()):
        return leaves  # "FY2021" is the table's own name of that year
    # The year may head the leaf ("2022 > Women"): the whole path is read for it.
    years = {k: _YEAR_IN_LABEL.findall(" ".join(naming_path(frame.attr(k).path)))
             for k in keys}
    if all(len(y) == 1 for y in years.values()) and \
            len({y[0] for y in years.values()}) == len(keys):
        return {k: y[0] for k, y in years.items()}
    # One leaf under each of several headers ("Professor > Male", "Lecturer > Male"): the
    # header names each.
    parents = {k: naming_path(frame.attr(k).path)[-2] for k in keys
               if len(naming_path(frame.attr(k).path)) > 1}
    if len(set(leaves.values())) == 1 < len(keys) and len(parents) == len(keys) \
            and len(set(parents.values())) == len(keys):
        return parents
    return leaves


class RankColumns(_ManyColumns):
    """The column of one row with the highest (or lowest) number; the answer is its name."""

    op: Literal["argcol"] = "argcol"
    direction: Literal["max", "min"]

    def walk(self, frames: Frames) -> Walk | Refusal:
        frame = frames(self.table)
        [row] = self.rows
        scored = [(frame.value(row, k).number, k) for k in self.columns
                  if (v := frame.value(row, k)) is not None and v.measurable]
        if len(scored) < 2:
            return Refusal("fewer than two of the compared cells hold numbers")
        numbers = [n for n, _ in scored]
        best = max(numbers) if self.direction == "max" else min(numbers)
        winners = [k for n, k in scored if n == best]
        if len(winners) > 1:
            return Refusal("several columns share the best value")
        [key] = winners
        name = column_names(frame, self.columns)[key]
        return self._walked(frame, [name], name, [(row, k) for _, k in scored])

    def sql(self, frames: Frames, source: str | None = None) -> SqlStep | None:
        table = self._source(frames, source)
        if table is None:
            return None
        frame = frames(self.table)
        params: list[object] = []
        # One row, several columns: unpivot with UNION ALL, then take the best.
        parts = []
        names = column_names(frame, self.columns)
        for key in self.columns:
            parts.append(f"SELECT ? AS \"column\", {numeric(key)} AS \"value\" FROM {table} "
                         'WHERE "_row" = ?')
            params.extend([names[key], self.rows[0]])
        order = "DESC" if self.direction == "max" else "ASC"
        return SqlStep(f'SELECT "column", "value" FROM ({" UNION ALL ".join(parts)}) '
                       f'WHERE "value" IS NOT NULL ORDER BY "value" {order} LIMIT 1', params,
                       ["column"])


class Compare(_Operation):
    """Which of two named rows has more (or less) in a column ("Rasht or Kerman"); or, as a
    claim, whether one row's cell in a column is more than its cell in another ("higher in
    2021 than in 2023")."""

    op: Literal["compare"] = "compare"
    column: str
    answer: str
    """The column whose value names each of the two rows (the answer)."""
    operands: tuple[Cell, Cell]
    direction: Literal["max", "min"]
    claim: bool = False
    """A yes/no question ("Does A have more beds than B?"): whether the first operand's row
    is the one with more (or less), answered Yes or No with both cells."""
    choices: tuple[str, str] | None = None
    """With `claim`, the two words of a "more or less than" question, answered with the one
    that holds for the first operand (the first word for more, the second for less)."""
    margin: bool = False
    """Without `claim`, also give how far the one picked is ahead ("..., and by how much?")."""

    @property
    def measure(self) -> list[str]:
        return list(dict.fromkeys([self.column, *(k for _, k in self.operands)]))

    @property
    def answer_column(self) -> str | None:
        return self.answer

    @property
    def operand_cells(self) -> list[Cell]:
        return list(self.operands)

    def walk(self, frames: Frames) -> Walk | Refusal:
        frame = frames(self.table)
        values = [frame.value(r, k) for r, k in self.operands]
        if any(v is None or not v.measurable for v in values):
            return Refusal("one of the two compared cells is not a number")
        numbers = [v.number for v in values]
        if self.claim:
            holds = numbers[0] > numbers[1] if self.direction == "max" else \
                numbers[0] < numbers[1]
            if self.operands[0][0] == self.operands[1][0]:
                # One row's cells in two columns: each is said by its column.
                names = [frame.attr(k).label for _, k in self.operands]
            else:
                names = [n.text if (n := frame.value(r, self.answer)) else ""
                         for r, _ in self.operands]
            said = ", ".join(f"{n}: {v.text}" for n, v in zip(names, values, strict=True))
            verdict = "Yes" if holds else "No"
            if self.choices is not None:
                verdict = ("the same" if numbers[0] == numbers[1] else
                           self.choices[0] if numbers[0] > numbers[1] else self.choices[1])
            return self._walked(frame, [verdict], f"{verdict} ({said})", list(self.operands))
        if numbers[0] == numbers[1]:
            return Refusal("the two values are equal")
        pick = numbers.index(max(numbers) if self.direction == "max" else min(numbers))
        row = self.operands[pick][0]
        if self.margin:
            return self._ahead_by(frame, row, list(self.operands), self.answer)
        name = frame.value(row, self.answer)
        if name is None or not name.text.strip():
            return Refusal(f"the row with the {'higher' if self.direction == 'max' else 'lower'}"
                           f" value has no {frame.attr(self.answer).label} to name it by")
        return self._walked(frame, [name.text], name.text,
                            [*self.operands, (row, self.answer)])

    def sql(self, frames: Frames, source: str | None = None) -> SqlStep | None:
        table = self._source(frames, source)
        if table is None:
            return None
        params: list[object] = []
        if self.claim:
            first, second = (f'(SELECT {numeric(k)} FROM {table} WHERE "_row" = ?)'
                             for _, k in self.operands)
            params.extend(r for r, _ in self.operands)
            if self.choices is not None:
                params.extend(r for r, _ in self.operands)
                more, less = self.choices
                return SqlStep(f"SELECT CASE WHEN {first} > {second} THEN ? WHEN {first} < "
                               f"{second} THEN ? ELSE 'the same' END AS \"verdict\"",
                               [*params[:2], more, *params[2:], less], ["verdict"])
            compare = ">" if self.direction == "max" else "<"
            return SqlStep(f"SELECT CASE WHEN {first} {compare} {second} THEN 'Yes' ELSE 'No' "
                           'END AS "verdict"', params, ["verdict"])
        order = "DESC" if self.direction == "max" else "ASC"
        if self.margin:
            first, second = (f'(SELECT {numeric(k)} FROM {table} WHERE "_row" = ?)'
                             for _, k in self.operands)
            params.extend(r for r, _ in self.operands)
        margin = f', ABS({first} - {second}) AS "margin"' if self.margin else ""
        clause = rows_clause(self.rows, params)
        return SqlStep(f"SELECT {quote(self.answer)}, {quote(self.column)}{margin} FROM {table} "
                       f"WHERE {clause} ORDER BY {numeric(self.column)} {order} LIMIT 1",
                       params, [self.answer, "margin"] if self.margin else [self.answer])


class Steady(_Operation):
    """Whether one row's figure rose (or fell) at every step of a span of period columns
    ("Did revenue increase every year from 2017 to 2019?"): Yes only when each cell is above
    (below) the one before it, oldest first; an unchanged step is no rise. Answered Yes or No
    with every cell of the span."""

    op: Literal["steady"] = "steady"
    cells: list[Cell] = Field(min_length=3)
    """The span's cells, oldest first."""
    direction: Literal["up", "down"]

    @property
    def measure(self) -> list[str]:
        return list(dict.fromkeys(k for _, k in self.cells))

    @property
    def operand_cells(self) -> list[Cell]:
        return list(self.cells)

    def walk(self, frames: Frames) -> Walk | Refusal:
        frame = frames(self.table)
        values = [frame.value(r, k) for r, k in self.cells]
        if any(v is None or not v.measurable for v in values):
            return Refusal("a cell of the span is not a number, so its steps cannot be told")
        numbers = [v.number for v in values]
        holds = all(b > a if self.direction == "up" else b < a  # type: ignore[operator]
                    for a, b in pairwise(numbers))
        verdict = "Yes" if holds else "No"
        # Each cell by what tells it apart: its column along one row, else its row.
        along = len({r for r, _ in self.cells}) == 1
        said = ", ".join(f"{frame.attr(k).label if along else frame.row_label(r)}: "
                         f"{v.text}"  # type: ignore[union-attr]
                         for (r, k), v in zip(self.cells, values, strict=True))
        return self._walked(frame, [verdict], f"{verdict} ({said})", list(self.cells))

    def sql(self, frames: Frames, source: str | None = None) -> SqlStep | None:
        table = self._source(frames, source)
        if table is None:
            return None
        compare = "<" if self.direction == "up" else ">"
        steps, params = [], []
        for (r1, k1), (r2, k2) in pairwise(self.cells):
            steps.append(f'(SELECT {numeric(k1)} FROM {table} WHERE "_row" = ?) {compare} '
                         f'(SELECT {numeric(k2)} FROM {table} WHERE "_row" = ?)')
            params.extend([r1, r2])
        return SqlStep(f"SELECT CASE WHEN {' AND '.join(steps)} THEN 'Yes' ELSE 'No' END "
                       'AS "verdict"', params, ["verdict"])


class Threshold(_Operation):
    """Whether one cell passes a number the question states ("Did Day Surgery admissions in
    Q2 2024 exceed 1900?"): Yes or No, with the cell."""

    op: Literal["threshold"] = "threshold"
    column: str
    comparison: Literal[">", ">=", "<", "<="]
    number: float

    @property
    def measure(self) -> list[str]:
        return [self.column]

    @property
    def operand_cells(self) -> list[Cell]:
        """The one cell held against the number."""
        return [(self.rows[0], self.column)]

    def walk(self, frames: Frames) -> Walk | Refusal:
        frame = frames(self.table)
        [row] = self.rows
        value = frame.value(row, self.column)
        if value is None or not value.measurable:
            return Refusal(f"the cell for {frame.attr(self.column).label} is not a number")
        holds = _COMPARE[self.comparison](value.number, self.number)
        verdict = "Yes" if holds else "No"
        return self._walked(frame, [verdict], f"{verdict} ({value.text.strip()} against "
                                              f"{fmt(self.number)})", [(row, self.column)])

    def sql(self, frames: Frames, source: str | None = None) -> SqlStep | None:
        table = self._source(frames, source)
        if table is None:
            return None
        return SqlStep(f"SELECT CASE WHEN {numeric(self.column)} {self.comparison} ? THEN 'Yes' "
                       f"ELSE 'No' END AS \"verdict\" FROM {table} WHERE \"_row\" = ?",
                       [self.number, self.rows[0]], ["verdict"])


_COMPARE: dict[str, Callable[[float, float], bool]] = {
    ">": lambda a, b: a > b, ">=": lambda a, b: a >= b,
    "<": lambda a, b: a < b, "<=": lambda a, b: a <= b}


class CompareCount(_Operation):
    """Which of two values of a column has more (or fewer) rows."""

    op: Literal["compare_count"] = "compare_count"
    answer: str
    """The column holding the two values (the answer is one of them)."""
    groups: tuple[tuple[str, list[int]], tuple[str, list[int]]]
    """Each compared value with its rows."""
    direction: Literal["max", "min"]

    @property
    def answer_column(self) -> str | None:
        return self.answer

    def walk(self, frames: Frames) -> Walk | Refusal:
        frame = frames(self.table)
        counts = [len(rows) for _, rows in self.groups]
        if counts[0] == counts[1]:
            return Refusal("both values have as many rows")
        pick = counts.index(max(counts) if self.direction == "max" else min(counts))
        text, rows = self.groups[pick]
        return self._walked(frame, [text], text, [(r, self.answer) for r in rows])

    def sql(self, frames: Frames, source: str | None = None) -> SqlStep | None:
        table = self._source(frames, source)
        if table is None:
            return None
        params: list[object] = []
        order = "DESC" if self.direction == "max" else "ASC"
        clause = rows_clause(self.rows, params)
        answer = quote(self.answer)
        return SqlStep(f'SELECT {answer}, COUNT(*) AS "rows" FROM {table} WHERE {clause} '
                       f'GROUP BY {answer} ORDER BY "rows" {order} LIMIT 1', params,
                       [self.answer])


# --- two cells ----------------------------------------------------------------------------------

class _TwoCells(_Operation):
    """What a difference and a percentage change share: two cells, in the order subtracted."""

    operands: tuple[Cell, Cell]
    """(row, column) of the two cells, in the order subtracted."""

    @property
    def operand_cells(self) -> list[Cell]:
        return list(self.operands)

    def _numbers(self, frame: Frame) -> tuple[float | int, float | int] | Refusal:
        (r1, k1), (r2, k2) = self.operands
        a, b = frame.value(r1, k1), frame.value(r2, k2)
        if a is None or b is None or not a.measurable or not b.measurable:
            return Refusal("one of the two cells is not a number")
        return a.number, b.number

    def _sides(self, table: str) -> tuple[str, str, list[object]]:
        (r1, k1), (r2, k2) = self.operands
        return (f'(SELECT {numeric(k1)} FROM {table} WHERE "_row" = ?)',
                f'(SELECT {numeric(k2)} FROM {table} WHERE "_row" = ?)', [r1, r2])


class Difference(_TwoCells):
    """The first cell minus the second (or the size of the difference)."""

    op: Literal["diff"] = "diff"
    absolute: bool = False
    """Report the size of the difference, not its sign ("difference between")."""
    names: tuple[str, str] | None = None
    """The two sides as the question names them ("Beijing", "Atlanta"), for saying which is
    larger; else their row labels or column headers."""

    def walk(self, frames: Frames) -> Walk | Refusal:
        frame = frames(self.table)
        numbers = self._numbers(frame)
        if isinstance(numbers, Refusal):
            return numbers
        value = number(round(numbers[0] - numbers[1], 6))
        value = abs(value) if self.absolute else value
        walk = self._computed(frame, value, list(self.operands))
        if self.absolute and numbers[0] != numbers[1]:
            # The size alone does not say which is larger; the reader is told which.
            first, second = self.operands
            larger, smaller = (first, second) if numbers[0] > numbers[1] else (second, first)
            name = (self.names[0] if numbers[0] > numbers[1] else self.names[1]) \
                if self.names else _side_name(frame, larger, smaller)
            walk.result.display += f" ({name} higher)"
        return walk

    def sql(self, frames: Frames, source: str | None = None) -> SqlStep | None:
        table = self._source(frames, source)
        if table is None:
            return None
        a, b, params = self._sides(table)
        expr = f"ABS({a} - {b})" if self.absolute else f"{a} - {b}"
        return SqlStep(f'SELECT {expr} AS "diff"', params, ["diff"])


def _side_name(frame: Frame, cell: Cell, other: Cell) -> str:
    """What tells one cell of a pair from the other: its row's label, its column's, or both."""
    (row, key), (other_row, other_key) = cell, other
    names = []
    if row != other_row and frame.row_paths[row]:
        names.append(frame.row_paths[row][-1])
    if key != other_key or not names:
        # The levels of its path that differ from the other's ("2025" of "2025 > Q2" beside
        # "2024 > Q2"), else its leaf ("2010" under "Billions of chained (2012) dollars").
        path, other_path = frame.attr(key).path, frame.attr(other_key).path
        differ = [level for i, level in enumerate(path)
                  if i >= len(other_path) or other_path[i] != level]
        if not differ or len(path) != len(other_path):
            differ = [naming_path(path)[-1] if path else frame.attr(key).label]
        names.append(" > ".join(differ))
    return " ".join(names)


class PercentChange(_TwoCells):
    """The change from the second cell (the base) to the first, in percent."""

    op: Literal["pct_change"] = "pct_change"
    fall: bool = False
    """Report the size of a fall ("by what percentage did it fall"): the base minus the first,
    in percent of the base, positive when it fell."""

    def walk(self, frames: Frames) -> Walk | Refusal:
        frame = frames(self.table)
        numbers = self._numbers(frame)
        if isinstance(numbers, Refusal):
            return numbers
        new, base = numbers
        if base == 0:
            return Refusal("the base value is zero; a percentage change is undefined")
        if self.fall and new > base:
            # "By what percentage did it fall" of a figure that rose: no fall to give.
            rise = number(round((new - base) * 100.0 / base, 2))
            return Refusal(f"it rose, from {fmt(base)} to {fmt(new)} (by {fmt(rise)}%); the "
                           "question asks by how much it fell")
        change = base - new if self.fall else new - base
        value = number(round(change * 100.0 / base, 2))  # the SQL form's arithmetic
        return self._walked(frame, [value], f"{fmt(value)}%", list(self.operands), unit="%")

    def sql(self, frames: Frames, source: str | None = None) -> SqlStep | None:
        table = self._source(frames, source)
        if table is None:
            return None
        a, b, params = self._sides(table)
        params.append(params[1])  # the base appears twice
        change = f"({b} - {a})" if self.fall else f"({a} - {b})"
        if self.fall:
            params = [params[1], params[0], params[1]]
        return SqlStep(f'SELECT {change} * 100.0 / {b} AS "pct_change"', params,
                       ["pct_change"], digits=2)


class Ratio(_TwoCells):
    """The first cell divided by the second: a ratio, or (`percent`) a share in percent ("what
    percentage of the total is X": X over the total)."""

    op: Literal["ratio"] = "ratio"
    percent: bool = False

    def walk(self, frames: Frames) -> Walk | Refusal:
        frame = frames(self.table)
        numbers = self._numbers(frame)
        if isinstance(numbers, Refusal):
            return numbers
        part, whole = numbers
        if whole == 0:
            return Refusal("the second value is zero; the ratio is undefined")
        value = number(round(part * (100.0 if self.percent else 1.0) / whole, 4))
        # Read to two decimals ("73.53%", "1.97"); the value keeps four for scorers and SQL.
        # A fraction of a whole (below 1) keeps three significant digits: two decimals made
        # a share of 0.1048 read "0.1", 5% off.
        if not self.percent and 0.01 <= abs(value) < 1:
            shown = fmt(number(float(f"{value:.3g}")))
        else:
            shown = fmt(number(round(value, 2))) if abs(value) >= 0.01 else fmt(value)
        display = f"{shown}%" if self.percent else shown
        return self._walked(frame, [value], display, list(self.operands),
                            unit="%" if self.percent else None)

    def sql(self, frames: Frames, source: str | None = None) -> SqlStep | None:
        table = self._source(frames, source)
        if table is None:
            return None
        a, b, params = self._sides(table)
        scale = 100.0 if self.percent else 1.0
        return SqlStep(f'SELECT {a} * {scale} / {b} AS "ratio"', params, ["ratio"], digits=4)


class ColumnDifference(_Operation):
    """Per row, the first column minus the second; then their sum, average, highest or
    lowest ("the average difference between home and away attendance", "the average
    margin")."""

    op: Literal["row_diff"] = "row_diff"
    columns: tuple[str, str]
    aggregate: Literal["sum", "avg", "max", "min"]

    @property
    def measure(self) -> list[str]:
        return list(self.columns)

    def walk(self, frames: Frames) -> Walk | Refusal:
        frame = frames(self.table)
        a, b = self.columns
        pairs = [(r, frame.value(r, a), frame.value(r, b)) for r in self.rows]
        usable = [(r, x.number - y.number) for r, x, y in pairs
                  if x is not None and y is not None and x.measurable and y.measurable]
        if not usable:
            return Refusal("no row has numbers in both columns")
        diffs = [d for _, d in usable]
        value = {"sum": sum, "avg": lambda xs: sum(xs) / len(xs), "max": max,
                 "min": min}[self.aggregate](diffs)
        value = number(round(value, 6))
        cells = [(r, k) for r, _ in usable for k in (a, b)]
        return self._walked(frame, [value], fmt(value), cells)

    def sql(self, frames: Frames, source: str | None = None) -> SqlStep | None:
        table = self._source(frames, source)
        if table is None:
            return None
        params: list[object] = []
        condition = self._condition(params)
        a, b = (numeric(k) for k in self.columns)
        fn = _SQL_AGGREGATE[self.aggregate]
        return SqlStep(f'SELECT ROUND({fn}({a} - {b}), 6) AS "row_diff" FROM {table} '
                       f"WHERE {condition}", params, ["row_diff"])


class Duration(_Operation):
    """Per row, the time from a start column to an end column ("Opened" to "Closed", "Start
    Time" to "End Time"), read from the cells' typed values (`agent/moments.py`: dates,
    date-times or times of day, never their display text), in `unit`; then their total,
    average, longest or shortest, or (`one`) the one row's own. With `answer`, the row with
    the longest (shortest) is named instead. A row without both points in time, or that ends
    before it starts, is refused, never left out: the planner keeps only the rows the
    question asks about."""

    op: Literal["duration"] = "duration"
    columns: tuple[str, str]
    """The start column, then the end column."""
    moments: Moments
    scales: tuple[int, int] = (1, 1)
    """Times of day: the seconds one unit of each column's numbers counts (`clock_scale`)."""
    aggregate: Literal["sum", "avg", "max", "min", "one"]
    unit: Unit
    answer: str | None = None
    """The column that names the rows, when the row with the longest (shortest) is asked."""

    @property
    def measure(self) -> list[str]:
        return list(self.columns)

    @property
    def answer_column(self) -> str | None:
        return self.answer

    def derived_columns(self, frame: Frame) -> list[str]:
        # Times of day are numbers already; the SQL form reads the long view's typed values.
        return []

    def durations(self, frame: Frame) -> list[tuple[int, float]] | Refusal:
        """Each row's duration in `unit`, in row order; a refusal naming the rows that have
        no start or no end, or end before they start."""
        start, end = self.columns
        found: list[tuple[int, float]] = []
        no_start, no_end, backwards = [], [], []
        for row, a, b in zip(self.rows, frame.values_of(start, self.rows),
                             frame.values_of(end, self.rows), strict=True):
            began = point(a, self.moments, self.scales[0])
            ended = point(b, self.moments, self.scales[1])
            if began is None:
                no_start.append(row)
            elif ended is None:
                no_end.append(row)
            elif ended < began:  # type: ignore[operator]
                backwards.append(row)
            else:
                found.append((row, elapsed(began, ended, self.unit)))
        what = "date" if self.moments == "date" else "time"
        if no_end:
            # Still open, or not recorded: the duration so far is no duration, and leaving the
            # rows out would answer about other rows than the question's.
            label = frame.attr(end).label
            return Refusal(f"{_some_rows(frame, no_end, len(self.rows))} no {label} {what} "
                           f"(blank, or still open), so how long {_they(no_end)} lasted is not "
                           "known" + (f"; ask about the rows that have one (\"... that have "
                                      f"{ended_word(label)}\")" if len(self.rows) > 1 else ""))
        if no_start:
            return Refusal(f"{_some_rows(frame, no_start, len(self.rows))} no "
                           f"{frame.attr(start).label} {what}, so how long {_they(no_start)} "
                           "lasted is not known")
        if backwards:
            its, starts, rows = (("their durations", "they start", "those rows")
                                 if len(backwards) > 1 else
                                 ("its duration", "it starts", "that row"))
            return Refusal(f"{_some_rows(frame, backwards, len(self.rows), 'end')} before "
                           f"{starts} ({frame.attr(end).label} before "
                           f"{frame.attr(start).label}), so {its} would be negative; check "
                           f"{rows}" + ("; a time past midnight needs its date beside it"
                                        if self.moments == "clock" else ""))
        return found

    def walk(self, frames: Frames) -> Walk | Refusal:
        frame = frames(self.table)
        found = self.durations(frame)
        if isinstance(found, Refusal):
            return found
        if not found:
            return Refusal("no rows to measure")
        start, end = self.columns
        spans = [d for _, d in found]
        if self.aggregate in ("one", "sum", "avg"):
            value = number(spans[0]) if self.aggregate == "one" else \
                _aggregate(self.aggregate, spans)
            cells = [(r, k) for r, _ in found for k in (start, end)]
            return self._walked(frame, [value], in_words(value, self.unit), cells,
                                unit=self.unit)
        best = max(spans) if self.aggregate == "max" else min(spans)
        held = [r for r, d in found if d == best]
        cells = [(r, k) for r in held for k in (start, end)]
        if self.answer is None:
            value = number(best)
            return self._walked(frame, [value], in_words(value, self.unit), cells,
                                unit=self.unit)
        names = [frame.value(r, self.answer) for r in held]
        if any(v is None or not v.text.strip() for v in names):
            extreme = "longest" if self.aggregate == "max" else "shortest"
            return Refusal(f"the row with the {extreme} duration has no "
                           f"{frame.attr(self.answer).label}")
        texts = [v.text for v in names]  # type: ignore[union-attr]
        shown = f"{', '.join(texts)} ({in_words(number(best), self.unit)})"
        return self._walked(frame, texts, shown, cells + [(r, self.answer) for r in held])

    def sql(self, frames: Frames, source: str | None = None) -> SqlStep | None:
        frame = frames(self.table)
        if frame.wide is None:
            return None
        long = quote(long_name(frame.table))
        start, end = (frame.attr(k).col for k in self.columns)
        span = sql_elapsed(sql_point("s", self.moments, self.scales[0]),
                           sql_point("e", self.moments, self.scales[1]), self.moments,
                           self.unit)
        params: list[object] = [start, end]
        # Each row's duration from the long view's typed values, then the rows the plan
        # chose (and the question's filters) from the wide view.
        spans = (f'WITH "d" AS (SELECT s."row" AS "_row", {span} AS "_elapsed" FROM {long} AS s '
                 f'JOIN {long} AS e ON e."row" = s."row" WHERE s."col" = ? AND e."col" = ?) ')
        rows = f'{quote(frame.wide)} JOIN "d" USING ("_row")'
        condition_params: list[object] = []
        condition = self._condition(condition_params)
        tables = [frame.wide, long_name(frame.table)]
        fn = "SUM" if self.aggregate == "one" else _SQL_AGGREGATE[self.aggregate]
        if self.answer is None:
            return SqlStep(f'{spans}SELECT ROUND({fn}("d"."_elapsed"), 6) AS "duration" '
                           f"FROM {rows} WHERE {condition}", params + condition_params,
                           ["duration"], tables=tables)
        return SqlStep(f'{spans}SELECT "_row", {quote(self.answer)} FROM {rows} WHERE {condition} '
                       f'AND "d"."_elapsed" = (SELECT {fn}("d"."_elapsed") FROM {rows} '
                       f'WHERE {condition}) ORDER BY "_row"',
                       params + condition_params * 2, [self.answer], tables=tables)


def _they(rows: list[int]) -> str:
    return "it" if len(rows) == 1 else "they"


def _some_rows(frame: Frame, rows: list[int], total: int, verb: str = "have") -> str:
    """ "3 of the 39 rows (HD-1038, HD-1039, HD-1040) have", "HD-1038 has": the rows a
    refusal is about, by their labels (the first few)."""
    names = [frame.row_label(r) for r in rows[:3]] + (["..."] if len(rows) > 3 else [])
    single = "has" if verb == "have" else verb + "s"
    if total == 1:
        return f"{names[0]} {single}"
    return (f"{len(rows):,} of the {total:,} rows ({', '.join(names)}) "
            f"{single if len(rows) == 1 else verb}")


class RankChange(_Operation):
    """The row whose change from one column to another is the largest (or smallest): "which
    crop's area grew the most from 2018 to 2023", by amount or by percentage; the answer is
    the row's name, with its two cells."""

    op: Literal["rank_change"] = "rank_change"
    columns: tuple[str, str]
    """The newer column, then the older: a row's change is the first minus the second."""
    answer: str
    """The column that names the rows."""
    direction: Literal["max", "min"]
    percent: bool = False
    """The change as a percentage of the older figure, not as an amount."""

    @property
    def measure(self) -> list[str]:
        return list(self.columns)

    @property
    def answer_column(self) -> str | None:
        return self.answer

    def _change(self, new: float, old: float) -> float | None:
        if not self.percent:
            return round(new - old, 6)
        return round((new - old) * 100.0 / old, 6) if old else None

    def walk(self, frames: Frames) -> Walk | Refusal:
        frame = frames(self.table)
        new, old = self.columns
        scored: list[tuple[float, int]] = []
        for row, a, b in zip(self.rows, frame.values_of(new, self.rows),
                             frame.values_of(old, self.rows), strict=True):
            if a is None or b is None or not a.measurable or not b.measurable:
                # A row whose change is unknown might be the answer: no ranking without it.
                name = " > ".join(frame.row_paths.get(row, ())) or f"sheet row {row}"
                return Refusal(f"{name} has no number in one of the two columns, so its change "
                               "is unknown")
            change = self._change(a.number, b.number)
            if change is None:
                return Refusal("a row's older figure is zero: its percentage change is undefined")
            scored.append((change, row))
        if len(scored) < 2:
            return Refusal("fewer than two rows to compare")
        names = [v.text.strip() for v in frame.values_of(self.answer, self.rows) if v is not None]
        if len(set(names)) < len(names):
            # "Which forest type ..." over rows of type, fire and replicate: a name shared by
            # several rows does not say which of them changed most.
            return Refusal(f"{frame.attr(self.answer).label} repeats over the rows, so it does "
                           "not name the row with the largest change")
        best = (max if self.direction == "max" else min)(c for c, _ in scored)
        winners = [r for c, r in scored if c == best]
        if len(winners) > 1:
            return Refusal("several rows share the largest change")
        [row] = winners
        name = frame.value(row, self.answer)
        if name is None or not name.text.strip():
            return Refusal("the row with the largest change has no name")
        return self._walked(frame, [name.text], name.text,
                            [(row, new), (row, old), (row, self.answer)])

    def sql(self, frames: Frames, source: str | None = None) -> SqlStep | None:
        table = self._source(frames, source)
        if table is None:
            return None
        params: list[object] = []
        condition = self._condition(params)
        a, b = (numeric(k) for k in self.columns)
        change = (f"ROUND(({a} - {b}) * 100.0 / {b}, 6)" if self.percent
                  else f"ROUND({a} - {b}, 6)")
        fn = "MAX" if self.direction == "max" else "MIN"
        params.extend(list(params))  # the condition appears twice: outside and in the subquery
        return SqlStep(f'SELECT "_row", {quote(self.answer)}, {change} AS "change" FROM {table} '
                       f"WHERE {condition} AND {change} = (SELECT {fn}({change}) FROM {table} "
                       f'WHERE {condition}) ORDER BY "_row"', params, [self.answer])


# --- several tables -----------------------------------------------------------------------------

COMBINABLE = frozenset({"sum", "count", "lookup", "group_sum"})
"""Operations whose single numbers add up across tables (monthly sheets, two reports)."""


class Combined(_Operation):
    """The same computation on several tables, added up. `table` is the first part's."""

    op: Literal["combined"] = "combined"
    parts: list[Plan]

    def walk(self, frames: Frames) -> Walk | Refusal:
        walks = [part.walk(frames) for part in self.parts]
        failed = next((w for w in walks if isinstance(w, Refusal)), None)
        if failed is not None:
            return failed
        results = [w.result for w in walks]  # type: ignore[union-attr]
        units = {r.unit or "" for r in results}
        if len(units) > 1:
            # A table of amounts beside its restatement in percent shares, on one sheet.
            return Refusal("the tables state different units ("
                           + ", ".join(sorted(u or "none" for u in units))
                           + "); adding them up means nothing")
        numbers = [r.values[0] for r in results if len(r.values) == 1]
        if len(numbers) != len(results) or not all(isinstance(n, (int, float)) for n in numbers):
            return Refusal("the tables' results are not single numbers to add")
        total = number(round(sum(numbers), 6))  # type: ignore[arg-type]
        cited = [(part, c) for part, r in zip(self.parts, results, strict=True) for c in r.cited]
        rows: list[list[object]] = [[frames(part.table).caption, r.display]
                                    for part, r in zip(self.parts, results, strict=True)]
        values = [v for part, c in cited if (v := frames(part.table).value(*c)) is not None]
        attrs = [frames(part.table).attr(k) for part, (_, k) in cited]
        display = (shown(total, values, attrs) if self.parts[0].op != "count"
                   else f"{total:,}")
        unit = answer_unit(values, attrs, cell_form([v.text for v in values]))
        result = Result(values=[total], display=display, cited=[c for _, c in cited], unit=unit,
                        cited_in=[(part.table, c) for part, c in cited])
        return Walk(result, ["table", "result"], rows)

    def sql(self, frames: Frames, source: str | None = None) -> SqlStep | None:
        steps = [part.sql(frames) for part in self.parts]
        if any(step is None for step in steps):
            return None
        sums = " + ".join(f'(SELECT {quote(step.result_columns[0])} FROM ({step.sql}))'
                          for step in steps if step is not None)
        params = [param for step in steps if step is not None for param in step.params]
        return SqlStep(f'SELECT {sums} AS "total"', params, ["total"],
                       tables=[frames(part.table).wide for part in self.parts])


class ModelSql(_Operation):
    """One SELECT the model wrote over the wide views of `tables` (`agent/model_sql.py`
    checks, runs, repairs and cites it in the SQL step). It has no tree form: its result is
    the SQL step's, traced back to cells through each row's `_row`. `table` is the first of
    `tables`; `rows` stays empty."""

    op: Literal["model_sql"] = "model_sql"
    query: str
    """The SELECT as the model wrote it (the last attempt once the SQL step has run)."""
    tables: list[TableRef]
    """The tables the prompt showed, whose wide views the query may read."""

    def walk(self, frames: Frames) -> Walk | Refusal:
        return Refusal("model-written SQL has no tree form; the SQL step computes it")

    def sql(self, frames: Frames, source: str | None = None) -> SqlStep | None:
        return None


Plan = Annotated[Lookup | ReadCells | ReadRows | Aggregate | Count | CountDistinct | Mode
                 | RankGroups
                 | GroupSum | RowAverage | Rank | RankColumns | Compare | Steady | Threshold
                 | CompareCount
                 | Difference | PercentChange | Ratio | ColumnDifference | Duration | RankChange
                 | Combined | ModelSql,
                 Field(discriminator="op")]
"""A computation over one table (or, `Combined`, the same one over several)."""

Combined.model_rebuild()
