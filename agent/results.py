"""What a tree walk computes: the answer values with their cited cells (kept in the graph
state) and the rows it used (shown in the step, never kept).

The helpers here write a walk's numbers the way their cited cells are written
(`agent/display.py`), so every operation of `agent/plan.py` builds its result the same way.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from operator import itemgetter

from pydantic import BaseModel, ConfigDict, Field, field_serializer

from agent import stop
from agent.column_cells import ColumnCells, cited_keys
from agent.display import answer_unit, as_clock_time, as_written, cell_form, shown
from agent.frame import Attr, Frame, TableRef, Value
from agent.row_runs import first_distinct

Cell = tuple[int, str]
"""A cell of a frame: (sheet row, wide column name)."""
_ROW = itemgetter(0)


class Result(BaseModel):
    """What a plan computed by walking the tree: answer values, display text, cited cells."""

    model_config = ConfigDict(extra="forbid")

    values: list[str | float | int]
    display: str
    cited: list[Cell]
    """Every cell the answer used, in the plan's own table."""
    unit: str | None = None
    cited_in: list[tuple[TableRef, Cell]] = Field(default_factory=list)
    """For results over several tables: each cited cell with its table."""

    @field_serializer("cited")
    def _cited_pairs(self, cited: Sequence[Cell]) -> list[Cell]:
        # A column's cells (`ColumnCells`) are stored as the plain pairs they stand for.
        return cited if isinstance(cited, list) else list(cited)


@dataclass(frozen=True)
class Walk:
    """A tree walk's result and the rows it used, as the tree_navigate step shows them."""

    result: Result
    columns: list[str]
    rows: list[list[object]]


def walked(values: list[str | float | int], display: str, cited: list[Cell], frame: Frame,
           measure: list[str], fallback_rows: list[int], unit: str | None = None) -> Walk:
    """A walk's result, with the rows used: each cited row with the row levels, the cited
    columns and the columns computed on (`measure`); the plan's rows when nothing is cited."""
    # (Over the cited cells without a Python step each: an aggregate cites 20,000.)
    keys = list(dict.fromkeys([*(a.key for a in frame.levels), *cited_keys(cited), *measure]))
    rows = first_distinct(map(_ROW, cited), 50) or fallback_rows[:50]
    # A column not read is read on these rows alone (an aggregate's first 50 of 20,000).
    by_key = [frame.values_of(k, rows, whole=False) for k in keys]
    table_rows = [[r, *(_shown_cell(column[i]) for column in by_key)]
                  for i, r in enumerate(rows)]
    result = Result(values=values, display=display, cited=[], unit=unit)
    # The cited cells are the operations' own (row, key) tuples: set without pydantic checking
    # each one (2 ms of an aggregate's 20,000). A column's cells stay what they are (made for
    # this result, and read by the steps after it without a pass).
    result.cited = cited if isinstance(cited, ColumnCells) else list(cited)
    return Walk(result, ["_row", *keys], table_rows)


def computed(value: float | int, cells: list[Cell], frame: Frame, measure: list[str],
             fallback_rows: list[int], extra_decimals: int = 0,
             values: list[Value] | None = None) -> Walk:
    """A number computed from cells, written as they are written, with their unit. `values`
    are the cells' values when the caller has them, or values that stand for them (one per
    written form and unit: `agent/plan.py`'s `_forms`), else they are read."""
    if values is None:
        values = [v for v in frame.values_at(cells) if v is not None]
    attrs = _attrs_of(frame, cells)
    if values and all(v.kind == "duration" for v in values):
        # Seconds computed from times are written as the times are ("2:17:26", not 8246).
        return walked([value], as_clock_time(value, [v.text for v in values]), cells, frame,
                      measure, fallback_rows)
    if not all(v.numeric for v in values):
        # Ordinals and mixed cells: their text is not a number's form ("5th").
        return walked([value], fmt(value), cells, frame, measure, fallback_rows)
    # The cells' written form, read once for both the number and its unit (20,000 texts in
    # a tall table's aggregate).
    form = cell_form([v.text for v in values])
    return walked([value], shown(value, values, attrs, extra_decimals, form),
                  cells, frame, measure, fallback_rows,
                  unit=answer_unit(values, attrs, form))


def _attrs_of(frame: Frame, cells: list[Cell]) -> list[Attr]:
    """The columns of the cells, each once (units are read per column, not per cell)."""
    return [frame.attr(k) for k in cited_keys(cells)]


def cells_unit(frame: Frame, cells: list[Cell]) -> str | None:
    """The unit the cited cells and their headers state."""
    values = [v for c in stop.checked(cells) if (v := frame.value(*c)) is not None]
    return answer_unit(values, _attrs_of(frame, cells),
                       cell_form([v.text for v in values]))


def _shown_cell(value: Value | None) -> object:
    if value is None:
        return None
    return number(value.number) if value.numeric else value.text


def number(n: float | int | None) -> float | int | None:
    """A whole float as an int (2.0 -> 2), so answers and SQL results compare and print alike."""
    if isinstance(n, float) and n.is_integer() and abs(n) < 1e15:
        return int(n)
    return n


def fmt(n: float | int | None) -> str:
    """A computed number without a cell form to follow."""
    if n is None:
        return ""
    if isinstance(n, int):
        return str(n)
    return f"{n:.6g}" if abs(n) < 1e6 else f"{n:.2f}"


def as_shown(result: Result, frame: Frame) -> list[str | float | int]:
    """The answer's values, each number that is one cited cell's read as the report shows it.

    Applied to the final answer only: a part of a split question, or an operand, keeps the
    stored number, so that "the difference of two cells" is the workbook's own arithmetic.
    """
    if len(result.cited) != len(result.values) or result.cited_in:
        return [without_note_mark(v, frame) if isinstance(v, str) else v for v in result.values]
    out: list[str | float | int] = []
    for value, cell in zip(result.values, result.cited, strict=True):
        if isinstance(value, str):
            out.append(without_note_mark(value, frame))
            continue
        read = frame.value(*cell) if isinstance(value, (int, float)) else None
        # An aggregate of one cell is rounded to 6 places: the cell, all the same.
        if read is not None and read.number is not None and \
                abs(read.number - value) <= 1e-6 * max(1.0, abs(value)):
            out.append(number(as_written(read)))
        else:
            out.append(value)
    return out


_NOTE_MARK = re.compile(r"\s*(\((?:[a-z]|\d{1,2})\)|\[(?:[a-z]|\d{1,2})\]|"
                        r"[*\u2020\u2021\u00a7]{1,3})$")
"""A footnote mark at the end of a label: "(a)", "[3]", "*", "†"."""


def without_note_mark(text: str, frame: Frame) -> str:
    """A label named in an answer without the footnote mark its table's notes explain
    ("Greater Manchester (a)" beside the note "(a) Greater Manchester Police data ..."): the
    mark points to a note, it is not part of the name. The cited cell keeps it. A mark no note
    explains may be part of the name ("Class (b)") and stays."""
    m = _NOTE_MARK.search(text)
    if m is None or not text[:m.start()].strip():
        return text
    mark = m.group(1)
    if any(note.lstrip().startswith(mark) for note in frame.notes):
        return text[:m.start()].rstrip()
    return text
