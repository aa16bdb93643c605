"""What a step shows: its intermediate tables with labels for people, and cited cells as
Evidence."""

from __future__ import annotations

from typing import Any

from agent import stop
from agent.cell_scan import CellScan
from agent.column_cells import cited_rows
from agent.column_facts import cells_scan
from agent.events import MAX_EVENT_ROWS, Evidence, TablePayload
from agent.evidence_sets import EDGE_CELLS, SET_THRESHOLD, Citation, cite, cite_rows
from agent.frame import Frame, TableRef, Value
from agent.plan import Frames
from agent.results import Result


def payload(name: str, columns: list[str], rows: list[list[Any]], row_count: int | None = None,
            limit: int = MAX_EVENT_ROWS, *, title: str | None = None, frame: Frame | None = None,
            notes: dict[str, str] | None = None) -> TablePayload:
    """An intermediate table for an event (first rows only), with labels for people: each
    column's header path (through `frame`, the table its columns come from) or plain words,
    and each shown row's row path when the table has a `_row` column. `notes` are header
    tooltips by column name (a derived column's instruction)."""
    shown = [list(r) for r in rows[:limit]]
    labels = [column_label(c, frame) for c in columns]
    row_labels = None
    if "_row" in columns and frame is not None:
        i = columns.index("_row")
        row_labels = [frame.row_label(r[i]) if isinstance(r[i], int) else "" for r in shown]
    tips = [(notes or {}).get(c) for c in columns]
    return TablePayload(name=name, columns=columns, rows=shown,
                        row_count=len(rows) if row_count is None else row_count,
                        title=title, labels=labels, row_labels=row_labels,
                        notes=tips if any(tips) else None)


COMPUTED_LABELS = {
    "total": "Total", "sum": "Total", "avg": "Average", "max": "Highest", "min": "Lowest",
    "count": "Count", "n": "Cells counted", "rows": "Rows", "value": "Value",
    "column": "Column", "diff": "Difference", "pct_change": "Change (%)", "table": "Table",
    "result": "Result", "kind": "Kind", "text": "Text", "where": "Where",
    "rows/score": "Rows or score", "_status": "Derived value status",
}
"""Plain words for the columns the engine computes (SQL aliases, summary tables)."""


def column_label(column: str, frame: Frame | None = None) -> str:
    """The display label of one column of an intermediate table."""
    if frame is not None:
        label = frame.column_label(column)
        if label is not None:
            return label
        if column.endswith(" (as written)"):
            base = frame.column_label(column.removesuffix(" (as written)"))
            if base is not None:
                return f"{base} (as written)"
    if column == "_row":
        return "Sheet row"
    if column in COMPUTED_LABELS:
        return COMPUTED_LABELS[column]
    if column.endswith(" (as written)"):
        return "Value (as written)"
    if column.startswith("level_") and column[6:].isdigit():
        return f"Row group {column[6:]}"
    words = column.replace("_", " ").strip()
    return words[:1].upper() + words[1:] or column  # "EBITDA margin", not "Ebitda margin"


def result_citation(result: Result, table: TableRef, frames: Frames) -> Citation:
    """What a result cites (`evidence_sets.cite`), each cell with its own table (results may
    span tables)."""
    if not result.cited_in:
        frame = frames(table)
        scanned = cells_scan(frame, result.cited, SET_THRESHOLD)
        if scanned is not None:
            return _scanned_citation(frame, result.cited, *scanned)
    return cite(_cited_values(result, table, frames), _place, _evidence)


def _scanned_citation(frame: Frame, cited: list[tuple[int, str]], scan: CellScan, col: int
                      ) -> Citation:
    """A citation of many cells of one column the frame has not read: their refs read in
    SQL, and only the cells shown one by one read whole (a value for each of an aggregate's
    20,000 cells cost more than the aggregate)."""
    key = cited[0][1]
    rows = cited_rows(cited)
    shown = frame.read_alone(key, [*rows[:EDGE_CELLS], *rows[-EDGE_CELLS:]])

    def evidence(row: int) -> Evidence:
        return _evidence((frame, shown[row] if row in shown else frame.value(row, key)))

    first = shown.get(rows[0])
    letters = first.ref.rstrip("0123456789") if first is not None and first.ref else ""
    if letters.isalpha() and letters.isupper() and \
            scan.refs_of_letters(col, letters) == (len(rows), len(rows)):
        # Each cited row has a cell, whose ref is the column's letters and the row.
        return cite_rows(rows, letters, frame.table, frame.sheet, evidence)
    refs = scan.refs(col)
    rows = [r for r in rows if r in refs]  # a blank cell is not cited, as in a read
    return cite(rows, lambda r: (frame.table, frame.sheet, refs[r]), evidence)


def _cited_values(result: Result, table: TableRef, frames: Frames
                  ) -> list[tuple[Frame, Value]]:
    """The cited cells' values with their frames, without repeats (a merged cell counts once)
    and without cells that have no ref."""
    if not result.cited_in:
        frame = frames(table)  # once: finding a frame is a lookup in the run's cache
        # One table: its refs tell the cells apart, without a (table, ref) pair per cell.
        out: list[tuple[Frame, Value]] = []
        refs: set[str] = set()
        for value in stop.checked(frame.values_at(result.cited)):
            if value is not None and value.ref is not None and value.ref not in refs:
                refs.add(value.ref)
                out.append((frame, value))
        return out
    read = ((f, f.value(row, key)) for f, (row, key) in
            ((frames(ref), c) for ref, c in result.cited_in))
    out = []
    seen: set[tuple[str, str]] = set()  # (table, ref): a list scan per cell was quadratic
    for f, value in stop.checked(read):
        if value is None or value.ref is None or (f.table, value.ref) in seen:
            continue
        seen.add((f.table, value.ref))
        out.append((f, value))
    return out


def _place(item: tuple[Frame, Value]) -> tuple[str, str, str]:
    frame, value = item
    return frame.table, frame.sheet, value.ref or ""


def _evidence(item: tuple[Frame, Value]) -> Evidence:
    frame, value = item
    typed: float | int | str | None = value.number if value.numeric else (
        value.date or value.text)
    # Built without validation: every field comes from the frame, typed already.
    return Evidence.model_construct(table=frame.table, sheet=frame.sheet, ref=value.ref,
                                    text=value.text, value=typed)

