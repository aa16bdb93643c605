"""What the model writes back, and how it becomes (or checks) a typed `Plan`.

The model never names internal keys: it sees each table as `T1`, its columns as `c1..cn` and
its rows by sheet row (`r12`) in the prompt (`agent/context_builder.py`), and answers with a
`PlanReply`, parsed with pydantic. `to_plan` turns the reply's step into one of the plan
operations of `agent/plan.py`, or into a list of problems in words that the model is shown
when it is asked to try again (an invented column, a lookup over two rows). Nothing the model
writes is evaluated as code.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from agent.derived import DERIVED_CONFIDENCE, DERIVED_ID, DerivedColumn, derived_key, with_column
from agent.frame import Attr, Frame
from agent.llm.column_step import Kind, check_value
from agent.plan import (
    Aggregate,
    Combined,
    Compare,
    CompareCount,
    Count,
    CountDistinct,
    Difference,
    GroupSum,
    Lookup,
    ModelSql,
    PercentChange,
    Plan,
    Rank,
    RankColumns,
    ReadCells,
    ReadRows,
    RowAverage,
)

ModelOp = Literal["lookup", "read_cells", "list", "first", "last", "sum", "avg", "max", "min",
                  "count", "count_distinct", "argmax", "argmin", "diff", "abs_diff",
                  "pct_change", "row_sum", "row_avg", "argcol_max", "argcol_min"]

OPERATIONS_HELP = """\
lookup: one cell (1 row, 1 column). read_cells: several cells of 1 row.
list / first / last: the cells of 1 column in the rows (all, the first, the last).
sum / avg / max / min: of 1 column over the rows. count: how many rows.
count_distinct: distinct values of 1 column over the rows.
argmax / argmin: the row with the highest / lowest number in 1 column; answer_column names it.
diff / abs_diff: first cell minus second (abs_diff: its size); pct_change: change from the
second cell (the base, older) to the first (newer), in percent. Two cells: 2 rows and 1
column, or 1 row and 2 columns, in that order.
row_sum / row_avg: add / average several columns of 1 row.
argcol_max / argcol_min: the column of 1 row with the highest / lowest number."""


class Where(BaseModel):
    """Rows whose cell in `column` reads `equals` (case and spaces ignored)."""

    model_config = ConfigDict(extra="forbid")

    column: str = Field(description="a column id, e.g. c2")
    equals: str = Field(description="the cell text, as the table shows it")


class ModelStep(BaseModel):
    """One computation over one table, in the prompt's ids."""

    model_config = ConfigDict(extra="forbid")

    op: ModelOp
    table: str = Field("T1", description="the table id, e.g. T1")
    columns: list[str] = Field(default_factory=list, description="column ids the op reads")
    rows: list[str] = Field(default_factory=list,
                            description='row ids (e.g. r12), or ["all"] for every data row')
    where: list[Where] = Field(default_factory=list,
                               description="instead of (or narrowing) rows: every condition "
                                           "must hold")
    answer_column: str | None = Field(
        None, description="argmax/argmin: the column whose cell names the chosen row")


class DeriveRequest(BaseModel):
    """A column the plan computes on that the table only holds as text: one value per row,
    which the model writes from each row's cell in `source` (the column step)."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(description="a short name for the new column, e.g. country")
    instruction: str = Field(
        description="what to write for each row, read from its source cell alone, e.g. "
                    "'the country this nationality implies'")
    source: str = Field(description="the column id it is read from, e.g. c3")
    type: Kind = Field(description="number, text, yes_no or date (YYYY-MM-DD)")


class PlanReply(BaseModel):
    """The model's reply: its verdict on the rules' plan, its own plan, the answer sentence."""

    model_config = ConfigDict(extra="forbid")

    verdict: Literal["accept", "replace", "sql", "refuse"] = Field(
        description="accept: the rules' plan is right; replace: use `plan` instead; sql: no "
                    "operation fits, run `sql` instead; refuse: the tables cannot answer the "
                    "question")
    plan: ModelStep | None = Field(None, description="required when verdict is replace")
    sql: str | None = Field(
        None, description="required when verdict is sql: one SQLite SELECT over the tables' "
                          "SQL views, with names as listed, in double quotes")
    derive: DeriveRequest | None = Field(
        None, description="with verdict replace, when the plan needs a value the cells only "
                          "imply: one new column, which the plan names d1")
    answer: str | None = Field(
        None, description="one short sentence answering the question, with {result} where "
                          "the computed value goes; write no number yourself")
    reason: str = Field("", description="why, in a few words")


@dataclass(frozen=True)
class Shown:
    """A table as the prompt showed it: its prompt id, its frame, and the ids of its columns
    (`c1..`, in frame order, row levels included)."""

    id: str
    frame: Frame
    column_ids: dict[str, str]
    """Prompt id -> the frame's column key."""

    @classmethod
    def of(cls, index: int, frame: Frame) -> Shown:
        return cls(f"T{index + 1}", frame,
                   {f"c{i + 1}": a.key for i, a in enumerate(frame.attrs)})

    def column_id(self, key: str) -> str:
        return next(cid for cid, k in self.column_ids.items() if k == key)


_AGGREGATE = {"sum", "avg", "max", "min"}
_READ_ROWS = {"list", "first", "last"}


def to_plan(step: ModelStep, shown: Sequence[Shown], confidence: float
            ) -> Plan | list[str]:
    """The typed plan the model's step describes, or what is wrong with it, in words."""
    table = next((s for s in shown if s.id == step.table), None)
    if table is None:
        return [f"there is no table {step.table}; the tables are "
                + ", ".join(s.id for s in shown)]
    frame = table.frame
    problems: list[str] = []
    keys = [_column(table, c, problems) for c in step.columns]
    answer = _column(table, step.answer_column, problems) if step.answer_column else None
    rows = _rows(table, step, problems)
    if problems:
        return problems
    common = {"table": frame.ref, "rows": rows, "confidence": confidence,
              "description": describe(step.op, [frame.attr(k) for k in keys], rows,
                                      frame.attr(answer) if answer else None)}
    shape = _shape_problem(step.op, keys, rows, answer)
    if shape:
        return [shape]
    measure = keys[0] if keys else ""
    if step.op == "lookup":
        return Lookup(column=measure, **common)
    if step.op == "read_cells":
        return ReadCells(columns=keys, **common)
    if step.op in _READ_ROWS:
        return ReadRows(op=step.op, column=measure, **common)
    if step.op in _AGGREGATE:
        return Aggregate(op=step.op, column=measure, **common)
    if step.op == "count":
        return Count(**common)
    if step.op == "count_distinct":
        return CountDistinct(column=measure, **common)
    if step.op in ("argmax", "argmin"):
        assert answer is not None
        return Rank(op=step.op, column=measure, answer=answer, **common)
    if step.op == "row_sum":
        return GroupSum(columns=keys, **common)
    if step.op == "row_avg":
        return RowAverage(columns=keys, **common)
    if step.op in ("argcol_max", "argcol_min"):
        return RankColumns(columns=keys, direction=step.op.removeprefix("argcol_"), **common)
    operands = ((rows[0], keys[0]), (rows[1], keys[0])) if len(rows) == 2 else (
        (rows[0], keys[0]), (rows[0], keys[1]))
    common["rows"] = sorted(set(rows))
    if step.op == "pct_change":
        return PercentChange(operands=operands, **common)
    return Difference(operands=operands, absolute=step.op == "abs_diff", **common)


def to_derived_plan(step: ModelStep, derive: DeriveRequest, shown: Sequence[Shown],
                    confidence: float) -> tuple[Plan, DerivedColumn] | list[str]:
    """The typed plan over a derived column (`d1`), with the column it needs, or what is
    wrong. Conditions on `d1` wait for its values: the column step applies them."""
    table = next((s for s in shown if s.id == step.table), None)
    if table is None:
        return [f"there is no table {step.table}; the tables are "
                + ", ".join(s.id for s in shown)]
    problems: list[str] = []
    source = _column(table, derive.source, problems)
    name, instruction = " ".join(derive.name.split()), " ".join(derive.instruction.split())
    if not name or not instruction:
        problems.append("derive needs a name and an instruction")
    if problems:
        return problems
    frame = table.frame
    equals = []
    for w in step.where:
        if _is_derived(w.column):
            # A condition on d1 is a value of its type, written as the column will hold it.
            checked = check_value(w.equals, derive.type)
            if checked.status != "ok":
                problems.append(f"the condition on {DERIVED_ID} is not a {derive.type} value: "
                                f"{checked.note or 'it is empty'}")
            equals.append(str(checked.value))
    if problems:
        return problems
    spec = DerivedColumn(key=derived_key(name, frame), name=name, instruction=instruction,
                         source=source, type=derive.type, equals=equals)
    reads = [*step.columns, *([step.answer_column] if step.answer_column else [])]
    if not equals and not any(_is_derived(c) for c in reads):
        return [f"the plan does not read {DERIVED_ID}, the derived column: name it in "
                "columns, answer_column or where, or leave derive out"]
    # The plan is built over the frame with the (still empty) derived column, so its
    # description and checks see it like any column.
    over = Shown(table.id, with_column(frame, spec, {}),
                 {**table.column_ids, DERIVED_ID: spec.key})
    where = [w for w in step.where if not _is_derived(w.column)]
    # Rows chosen only by a condition on d1: every row is a candidate until it has values.
    rows = step.rows or ([] if where else ["all"])
    rest = step.model_copy(update={"where": where, "rows": rows})
    plan = to_plan(rest, [over if s is table else s for s in shown],
                   min(confidence, DERIVED_CONFIDENCE))
    if isinstance(plan, list):
        return plan
    return plan, spec


def _is_derived(cid: str | None) -> bool:
    return (cid or "").strip().lower() == DERIVED_ID


def _column(table: Shown, cid: str | None, problems: list[str]) -> str:
    key = table.column_ids.get((cid or "").strip().lower())
    if key is None:
        problems.append(f"{table.id} has no column {cid!r}; its columns are c1 to "
                        f"c{len(table.column_ids)}")
        return ""
    return key


def _rows(table: Shown, step: ModelStep, problems: list[str]) -> list[int]:
    frame = table.frame
    if [r.strip().lower() for r in step.rows] == ["all"] or (not step.rows and step.where):
        rows = list(frame.rows)
    else:
        rows = []
        known = set(frame.rows)
        for rid in step.rows:
            text = rid.strip().lower().removeprefix("r")
            if not text.isdigit() or int(text) not in known:
                problems.append(f"{table.id} has no data row {rid!r}")
            else:
                rows.append(int(text))
    for cond in step.where:
        key = _column(table, cond.column, problems)
        if key:
            want = _norm(cond.equals)
            rows = [r for r in rows if (v := frame.value(r, key)) is not None
                    and _norm(v.text) == want]
    if not problems and not rows and step.op != "count":
        problems.append("no row of the table matches the rows and conditions given")
    order = {r: i for i, r in enumerate(frame.rows)}
    return sorted(set(rows), key=order.__getitem__) if step.op not in (
        "diff", "abs_diff", "pct_change") else rows


def _norm(text: str) -> str:
    return " ".join(text.split()).casefold()


def _shape_problem(op: str, keys: list[str], rows: list[int], answer: str | None) -> str | None:
    """Whether the step has the rows and columns its operation needs."""
    one_row = op in ("lookup", "read_cells", "row_sum", "row_avg", "argcol_max", "argcol_min")
    if one_row and len(rows) != 1:
        return f"{op} reads exactly 1 row, not {len(rows)}"
    if op in ("diff", "abs_diff", "pct_change"):
        if not ((len(rows) == 2 and len(keys) == 1) or (len(rows) == 1 and len(keys) == 2)):
            return f"{op} needs two cells: 2 rows and 1 column, or 1 row and 2 columns"
        return None
    if op in ("read_cells", "row_sum", "row_avg", "argcol_max", "argcol_min"):
        return None if len(keys) >= 2 else f"{op} needs at least 2 columns"
    if op == "count":
        return None
    if len(keys) != 1:
        return f"{op} needs exactly 1 column, not {len(keys)}"
    if op in ("argmax", "argmin") and answer is None:
        return f"{op} needs answer_column: the column that names the rows"
    return None


def describe(op: str, columns: list[Attr], rows: list[int], answer: Attr | None) -> str:
    """A plan step in words, for the step title ("the sum of Q2 over 4 rows")."""
    names = ", ".join(a.label for a in columns)
    over = f"{len(rows)} row{'s' * (len(rows) != 1)}"
    words = {
        "lookup": f"read {names}", "read_cells": f"read {names}",
        "list": f"list {names} in {over}", "first": f"the first {names} of {over}",
        "last": f"the last {names} of {over}", "sum": f"the sum of {names} over {over}",
        "avg": f"the average of {names} over {over}", "max": f"the highest {names} of {over}",
        "min": f"the lowest {names} of {over}", "count": f"count {over}",
        "count_distinct": f"count the distinct {names} of {over}",
        "argmax": f"the {answer.label if answer else 'row'} with the highest {names}",
        "argmin": f"the {answer.label if answer else 'row'} with the lowest {names}",
        "diff": f"the difference of {names}", "abs_diff": f"the difference of {names}",
        "pct_change": f"the percentage change of {names}", "row_sum": f"add {names}",
        "row_avg": f"the average of {names}", "argcol_max": f"the highest of {names}",
        "argcol_min": f"the lowest of {names}",
    }
    return words[op]


def to_model_sql(sql: str, shown: Sequence[Shown], confidence: float) -> ModelSql:
    """The model's own query as a plan over the tables the prompt showed (checked, run and
    traced in the SQL step, `agent/model_sql.py`)."""
    refs = [s.frame.ref for s in shown]
    names = ", ".join(s.id for s in shown)
    return ModelSql(table=refs[0], tables=refs, query=sql, rows=[], confidence=confidence,
                    description=f"the model's SQL over {names}")


def from_plan(plan: Plan, shown: Sequence[Shown]) -> dict:
    """The rules' plan in the prompt's ids, for the model to check."""
    if isinstance(plan, Combined):
        return {"op": "combined", "meaning": plan.description,
                "parts": [from_plan(p, shown) for p in plan.parts]}
    table = next((s for s in shown if s.frame.table == plan.table.id), None)
    if table is None:
        return {"op": plan.op, "meaning": plan.description}
    op = {"multi": "read_cells", "group_sum": "row_sum", "diff": "abs_diff" if getattr(
        plan, "absolute", False) else "diff"}.get(plan.op, plan.op)
    if isinstance(plan, RankColumns):
        op = f"argcol_{plan.direction}"
    if isinstance(plan, Compare):
        op = "argmax" if plan.direction == "max" else "argmin"
    keys = list(dict.fromkeys([*plan.measure, *(k for _, k in plan.operand_cells)]))
    rows = [r for r, _ in plan.operand_cells] or list(plan.rows)
    if isinstance(plan, CompareCount):
        keys = [plan.answer]
        rows = [r for _, group in plan.groups for r in group]
    shown_rows = [f"r{r}" for r in rows[:40]]
    if len(rows) > 40:
        shown_rows.append(f"... ({len(rows)} rows in all)")
    out: dict = {"op": op, "table": table.id,
                 "columns": [table.column_id(k) for k in keys], "rows": shown_rows,
                 "meaning": plan.description}
    if plan.answer_column and plan.answer_column not in keys:
        out["answer_column"] = table.column_id(plan.answer_column)
    return out
