"""Per-run context: what nodes need that is not graph state (the workspace, live objects,
the cancel flag, the event sink). It travels in `config["configurable"]["run"]`.

Graph state stays small and serialisable (so a checkpointer can store it); frames, plans and
results live here, keyed by the run.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from langgraph.config import get_stream_writer

from agent.compute import Result
from agent.events import Evidence, StepError, StepEvent, TablePayload
from agent.frame import Frame
from agent.solver import Plan
from storage.workspace import Workspace


class Cancelled(Exception):
    """The user stopped the run."""


@dataclass
class RunContext:
    """Everything one run needs besides its state."""

    workspace: Workspace
    run_id: str
    cancel: threading.Event = field(default_factory=threading.Event)
    on_event: Callable[[StepEvent], None] | None = None
    table_ids: list[str] | None = None
    paragraphs: list[str] = field(default_factory=list)
    frames: dict[str, Frame] = field(default_factory=dict)
    plan: Plan | None = None
    result: Result | None = None
    sql_result: dict[str, Any] | None = None
    problems: list[str] = field(default_factory=list)
    """What validate found wrong with the answer (empty when verified)."""
    derived_source: str | None = None
    """The column step's intermediate table, which the SQL step then queries."""
    events: list[StepEvent] = field(default_factory=list)
    llm_calls: int = 0
    step_tables: int = 0
    _seq: int = 0
    _started: dict[str, float] = field(default_factory=dict)

    def check(self) -> None:
        """Raise Cancelled when the user has asked to stop."""
        if self.cancel.is_set():
            raise Cancelled()

    def emit(self, node: str, phase: str, title: str, **fields: Any) -> StepEvent:
        """Record an event and send it to the stream (and to `on_event`)."""
        now = time.perf_counter()
        if phase == "start":
            self._started[node] = now
        elapsed = int((now - self._started.get(node, now)) * 1000)
        event = StepEvent(run_id=self.run_id, seq=self._seq, node=node, phase=phase,
                          title=title, elapsed_ms=elapsed, **fields)
        self._seq += 1
        self.events.append(event)
        if self.on_event is not None:
            self.on_event(event)
        try:
            get_stream_writer()(event.to_json_dict())
        except RuntimeError:
            pass  # not inside a graph run (direct calls in tests)
        return event

    def error(self, node: str, title: str, kind: str, message: str) -> StepEvent:
        return self.emit(node, "error", title, error=StepError(kind=kind, message=message))

    def end_events(self) -> list[StepEvent]:
        """The end (and error/cancelled) events: the answer's `steps`."""
        return [e for e in self.events if e.phase in ("end", "error", "cancelled")]


def payload(name: str, columns: list[str], rows: list[list[Any]], row_count: int | None = None,
            limit: int = 50, *, title: str | None = None, frame: Frame | None = None
            ) -> TablePayload:
    """An intermediate table for an event (first rows only), with labels for people: each
    column's header path (through `frame`, the table its columns come from) or plain words,
    and each shown row's row path when the table has a `_row` column."""
    shown = [list(r) for r in rows[:limit]]
    labels = [column_label(c, frame) for c in columns]
    row_labels = None
    if "_row" in columns and frame is not None:
        i = columns.index("_row")
        row_labels = [frame.row_label(r[i]) if isinstance(r[i], int) else "" for r in shown]
    return TablePayload(name=name, columns=columns, rows=shown,
                        row_count=len(rows) if row_count is None else row_count,
                        title=title, labels=labels, row_labels=row_labels)


COMPUTED_LABELS = {
    "total": "Total", "sum": "Total", "avg": "Average", "max": "Highest", "min": "Lowest",
    "count": "Count", "n": "Cells counted", "rows": "Rows", "value": "Value",
    "column": "Column", "diff": "Difference", "pct_change": "Change (%)", "table": "Table",
    "result": "Result", "kind": "Kind", "text": "Text", "where": "Where",
    "rows/score": "Rows or score",
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


def result_evidence(plan: Plan, result: Result) -> list[Evidence]:
    """The cited cells of a result, each with its own table (results may span tables)."""
    if not result.cited_in:
        return evidence(plan.frame, result.cited)
    out: list[Evidence] = []
    for frame, cell in result.cited_in:
        out.extend(e for e in evidence(frame, [cell]) if e not in out)
    return out


def evidence(frame: Frame, cells: list[tuple[int, str]]) -> list[Evidence]:
    """Evidence items for (row, column) cells of a frame, without repeats."""
    out: list[Evidence] = []
    seen: set[str] = set()
    for row, key in cells:
        value = frame.value(row, key)
        if value is None or value.ref is None or value.ref in seen:
            continue
        seen.add(value.ref)
        typed: float | int | str | None = value.number if value.numeric else (
            value.date or value.text)
        out.append(Evidence(table=frame.table, sheet=frame.sheet, ref=value.ref, text=value.text,
                            value=typed))
    return out
