"""A column the model derives from the text of another: Weaver's LLM column step.

With a model, a plan may compute on one derived column (`DerivedColumn`: "the country this
nationality implies", from the Nationality column, as text). tree_navigate then leaves the
walk to the column step (`column_step`), which:

1. takes the rows the plan selected (its rows, narrowed by conditions on real columns) and
   refuses above `LLMSettings.column_max_rows`, or when the batches would need more calls than
   the question has left, asking the user to narrow the question;
2. sends them in batches (`agent/llm/column_step.py`), one call each, and checks every value
   against the requested type: a row the reply leaves out or a value of the wrong type is
   marked (`_status`) with no value, never filled in;
3. writes the step table (the plan's columns, the source column, the derived one, the
   status), then, when any row failed, refuses: an answer over the other rows would be a
   different question's answer, and the table shows which rows and why;
4. else narrows the plan's rows by its conditions on the derived column (restated as SQL
   filters over the step table), walks the plan over the frame with the derived column added,
   and cites the source cells each derived value came from, never the derived value itself.

The SQL step then computes the same plan over the step table, and validate compares the two.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field

from agent.events import LLMCallRecord, with_calls
from agent.features import answer_features
from agent.frame import Attr, Frame, TableRef, Value
from agent.llm.column_step import FAILED, BatchCall, Kind, Output, batches, read_batch
from agent.payloads import payload
from agent.plan import Filter, Frames, Plan, Refusal
from agent.results import Result, fmt
from agent.steptables import persist_step_table
from agent.text import plural

STATUS_COLUMN = "_status"
DERIVED_ID = "d1"
"""How the prompt names the derived column, beside the table's own c1..cn."""
DERIVED_CONFIDENCE = 0.6
"""At most this sure: each derived value is the model's reading of its cell, which nothing
independent checks (the computation over the values is checked like any other)."""
_TEXT_STATUS = {"ok": "ok", "no value": "no value in the text",
                "blank": "source cell blank", "missing": "missing from the model's reply",
                "not asked": "not derived (a call failed)"}


class DerivedColumn(BaseModel):
    """The column a model's plan computes on, derived from one source column's text."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    key: str
    """The column's name in the plan and in the step table (no column of the table has it)."""
    name: str
    """What the model called it ("country"), shown as its header."""
    instruction: str
    """What to write for each row, from the source cell alone; the header's tooltip."""
    source: str
    """The frame key of the column it is derived from."""
    type: Kind
    equals: list[str] = Field(default_factory=list)
    """Conditions on the derived value the plan's rows must meet (`where d1 = ...`)."""

    @property
    def label(self) -> str:
        return self.name[:1].upper() + self.name[1:]


@runtime_checkable
class ColumnDeriver(Protocol):
    """A planner that can ask its model for a derived column's values (`LLMPlanner`)."""

    def column_limits(self) -> tuple[int, int]:
        """The most rows one question may derive, and the model calls it has left."""
        ...

    def derive_batch(self, spec: DerivedColumn, source_label: str,
                     texts: Sequence[tuple[int, str]]) -> BatchCall:
        """Ask the model for one batch of values (one call within the run's budget)."""
        ...


def derived_key(name: str, frame: Frame) -> str:
    """A step-table column name for the derived column: its name, unless a column of the
    table already has it (SQLite ignores case), then "<name> (derived)"."""
    taken = {a.key.casefold() for a in frame.attrs} | {"_row", STATUS_COLUMN}
    base = " ".join(name.split())[:60] or "derived"
    key, n = base, 1
    while key.casefold() in taken:
        key = f"{base} (derived)" if n == 1 else f"{base} (derived {n})"
        n += 1
    return key


def with_column(frame: Frame, spec: DerivedColumn, outputs: dict[int, Output]) -> Frame:
    """The frame with the derived column added: each `ok` value as a cell with no ref (it is
    cited through its source cell), the others absent, as blank cells are."""
    attr = Attr(spec.key, (spec.label,), "data", len(frame.data_attrs), None,
                numeric=spec.type == "number")
    values = {r: _value(o.value, spec.type) for r, o in outputs.items()
              if o.status == "ok" and o.value is not None}
    return dataclasses.replace(frame, attrs=[*frame.attrs, attr],
                               columns={**frame.columns, spec.key: values},
                               memo=dict(frame.memo), point_reads=dict(frame.point_reads))


def frames_with(frames: Frames, table: TableRef, spec: DerivedColumn) -> Frames:
    """`frames` with the derived column (no values) added to `table`'s frame: what a check
    that reads the plan's columns by their headers needs."""
    def lookup(ref: TableRef) -> Frame:
        frame = frames(ref)
        return with_column(frame, spec, {}) if ref.id == table.id else frame
    return lookup


def _value(value: str | float | int, kind: Kind) -> Value:
    if kind == "number":
        assert isinstance(value, (int, float))
        return Value(fmt(value), value, "number", None, None)
    text = str(value)
    return Value(text, None, "date" if kind == "date" else "text", None, None,
                 text if kind == "date" else None)


def rows_sent(plan: Plan) -> list[int]:
    """The rows the plan selected, in its order: the ones the model derives values for."""
    return list(dict.fromkeys([*plan.rows, *(r for r, _ in plan.operand_cells)]))


def narrowed(plan: Plan, spec: DerivedColumn, frame: Frame) -> Plan | Refusal:
    """The plan over the rows whose derived value meets every condition, each condition
    restated as a filter on the step table's exact values (so SQL selects the same rows)."""
    if not spec.equals:
        return plan
    rows, filters = list(plan.rows), list(plan.filters)
    for wanted in spec.equals:
        keep = [r for r in rows if (v := frame.value(r, spec.key)) is not None
                and _matches(v, wanted, spec.type)]
        if spec.type == "number":
            filters.append(Filter(column=spec.key, op="=", value=float(wanted.replace(",", ""))))
        else:
            texts = sorted({frame.value(r, spec.key).text for r in keep})
            filters.append(Filter(column=spec.key, op="in", values=texts or [wanted]))
        rows = keep
    if not rows and plan.op != "count":
        return Refusal(f"no row's {spec.name} is {' and '.join(spec.equals)}")
    # Two named cells are read whatever the rows: one that fails the condition is not asked.
    left_out = [r for r, _ in plan.operand_cells if r not in rows]
    if left_out:
        return Refusal(f"the {spec.name} of sheet row {left_out[0]} is not "
                       f"{' and '.join(spec.equals)}")
    return plan.model_copy(update={"rows": rows, "filters": filters})


def _matches(value: Value, wanted: str, kind: Kind) -> bool:
    if kind == "number":
        try:
            return value.number == float(wanted.replace(",", ""))
        except ValueError:
            return False
    return " ".join(value.text.split()).casefold() == " ".join(wanted.split()).casefold()


def to_source(result: Result, spec: DerivedColumn) -> Result:
    """The result citing each derived value's source cell instead (a derived value is no cell
    of the source; the cell it was read from is)."""
    def mapped(cell: tuple[int, str]) -> tuple[int, str]:
        return (cell[0], spec.source) if cell[1] == spec.key else cell

    cited = list(dict.fromkeys(mapped(c) for c in result.cited))
    cited_in: list[tuple[TableRef, tuple[int, str]]] = list(dict.fromkeys(
        (t, mapped(c)) for t, c in result.cited_in))
    return result.model_copy(update={"cited": cited, "cited_in": cited_in})


def step_rows(plan: Plan, spec: DerivedColumn, frame: Frame, rows: list[int],
              outputs: dict[int, Output]) -> tuple[list[str], list[list[Any]]]:
    """The step table: each row's sheet row, the plan's other columns as the wide view holds
    them, the source text, the derived value (NULL unless ok) and its status."""
    measure = set(plan.measure)
    carried = [k for k in dict.fromkeys([
        *(k for f in plan.filters for k in f.columns),
        *([plan.answer_column] if plan.answer_column else []), *plan.measure,
        *(k for _, k in plan.operand_cells), spec.source]) if k != spec.key]
    out = []
    for r in rows:
        cells: list[Any] = []
        for k in carried:
            v = frame.value(r, k)
            # A duration or ordinal computed on is its number, as the offline column step
            # writes it; anything else as the wide view stores it.
            cells.append(None if v is None else v.number if k in measure and v.measurable
                         and not v.numeric else v.number if v.numeric else v.text)
        o = outputs[r]
        status = f"{o.status}: {o.note}" if o.status == "malformed" else _TEXT_STATUS[o.status]
        out.append([r, *cells, o.value if o.status == "ok" else None, status])
    return ["_row", *carried, spec.key, STATUS_COLUMN], out


def column_step(ctx: Any, state: dict[str, Any]) -> dict[str, Any]:
    """Derive the plan's column with the model, write the step table, walk the plan over it."""
    plan: Plan = state["plan"]
    spec: DerivedColumn = state["derived"]
    frame = ctx.frames(plan.table)
    source = frame.attr(spec.source).label
    ctx.trace.emit("llm_column_step", "start", f"Deriving {spec.name} from {source}")
    deriver = ctx.planner if isinstance(ctx.planner, ColumnDeriver) else None
    rows = rows_sent(plan)
    texts = {r: v.text for r in rows if (v := frame.value(r, spec.source)) is not None
             and v.text.strip()}
    asked = [r for r in rows if r in texts]
    if deriver is None:
        return _refused(ctx, state, "deriving a column needs a model, and this run has none")
    limit, calls_left = deriver.column_limits()
    work = batches(asked)
    if len(asked) > limit:
        return _refused(ctx, state, (
            f"the question needs {spec.name} derived for {plural(len(asked), 'row')}, more than "
            f"the {limit:,} the model is asked about for one question "
            "(TABLELENS_LLM_COLUMN_MAX_ROWS); narrow the question to fewer rows (name them, "
            "a group or a condition), or raise the limit"))
    if len(work) > calls_left:
        return _refused(ctx, state, (
            f"deriving {spec.name} for {plural(len(asked), 'row')} takes "
            f"{plural(len(work), 'model call')}, and the question has {calls_left} left "
            "(TABLELENS_LLM_MAX_CALLS); narrow the question to fewer rows, or raise the limit"))
    outputs: dict[int, Output] = {r: Output(None, "blank", "the source cell is blank")
                                  for r in rows if r not in texts}
    calls: list[LLMCallRecord] = []
    failure: str | None = None
    for i, batch in enumerate(work):
        ctx.check()  # Stop is honoured between batches (CONTRACTS.md "Step events")
        if failure is not None:
            outputs.update((r, Output(None, "not asked", failure)) for r in batch)
            continue
        ctx.trace.emit("llm_column_step", "progress", "Asking the model",
                       detail=f"batch {i + 1} of {len(work)}: {plural(len(batch), 'row')}")
        call = deriver.derive_batch(spec, source, [(r, texts[r]) for r in batch])
        if call.record is not None:
            calls.append(call.record)
        if call.reply is None:
            failure = call.problem or "the model gave no values"
            outputs.update((r, Output(None, "not asked", failure)) for r in batch)
            continue
        outputs.update(read_batch(call.reply, batch, spec.type))
    usage = with_calls(state.get("llm_usage") or {}, calls)
    columns, table_rows = step_rows(plan, spec, frame, rows, outputs)
    written = state.get("step_tables", [])
    name = persist_step_table(ctx.workspace.db, state["run_id"], len(written) + 1, columns,
                              table_rows, queryable=True)  # the SQL step computes on it
    over = with_column(frame, spec, outputs)
    shown = payload(name, columns, table_rows, title=f"{spec.label}, derived from {source}",
                    frame=over, notes={spec.key: spec.instruction,
                                       STATUS_COLUMN: "ok, or why the row has no value"})
    llm = calls or None
    common = {"step_tables": [*written, name], "column_step_table": name, "llm_usage": usage}
    counts = _counts(outputs)
    failed = [r for r in rows if outputs[r].status in FAILED]
    if failed:
        listed = ", ".join(f"sheet row {r} ({outputs[r].note})" for r in failed[:5])
        more = f" and {len(failed) - 5} more" if len(failed) > 5 else ""
        reason = (f"the model's {spec.name} could not be used for "
                  f"{plural(len(failed), 'row')}: {listed}{more}; the answer would leave "
                  "them out, so there is none (the column step's table shows every row)")
        ctx.trace.emit("llm_column_step", "end", f"Could not derive {spec.name} for "
                       f"{plural(len(failed), 'row')}", detail=f"{counts}; {reason}",
                       table=shown, llm=llm)
        return {**common, "outcome": "refused", "refusal": reason}
    chosen = narrowed(plan, spec, over)
    walk = chosen if isinstance(chosen, Refusal) else chosen.walk(
        lambda ref: over if ref.id == frame.table else ctx.frames(ref))
    if isinstance(walk, Refusal):
        ctx.trace.emit("llm_column_step", "end", f"Derived {spec.name}, but cannot compute",
                       detail=f"{counts}; {walk.reason}", table=shown, llm=llm)
        return {**common, "outcome": "refused", "refusal": walk.reason}
    assert not isinstance(chosen, Refusal)
    ctx.trace.emit("llm_column_step", "end", f"Derived {spec.name} for "
                   f"{plural(len(asked), 'row')}",
                   detail=f"{counts}, in {plural(len(calls), 'model call')}; {chosen.description}"
                          f" over {plural(len(chosen.rows), 'row')}; result by walking the "
                          f"derived column: {walk.result.display}", table=shown, llm=llm)
    return {**common, "plan": chosen, "result": to_source(walk.result, spec),
            "features": answer_features(None, chosen, walk.result, over, state["analysis"])}


def _counts(outputs: dict[int, Output]) -> str:
    """What the outputs came to, in words ("4 values; 1 row had no value in the text")."""
    ok = sum(1 for o in outputs.values() if o.status == "ok")
    parts = [plural(ok, "value")]
    for status in ("no value", "blank", "missing", "malformed", "not asked"):
        n = sum(1 for o in outputs.values() if o.status == status)
        if n:
            parts.append(f"{plural(n, 'row')} {_TEXT_STATUS.get(status, status)}")
    return "; ".join(parts)


def _refused(ctx: Any, state: dict[str, Any], reason: str) -> dict[str, Any]:
    ctx.trace.emit("llm_column_step", "end", "Cannot derive the column", detail=reason)
    return {"outcome": "refused", "refusal": reason}
