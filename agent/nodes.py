"""The graph's nodes. Each emits a start and an end (or error) event with what it did, reads
the graph state and returns its update to it; live handles come from `runtime.context`.

Offline (no LLM configured) every node is deterministic: decompose splits only explicit
question lists, retrieve is lexical, tree_navigate gets its plan from the run's planner (the
rules of `RulePlanner`) and walks it, sql_step re-derives it with the plan's SQL form,
llm_column_step applies the typed-value normalisers, validate checks citations and the
re-derivation, answer composes the text.
With a model, a plan may be a query the model wrote (`ModelSql`): sql_step and validate hand it
to `agent/model_sql.py`, which checks, runs, repairs, traces and re-checks it; and a plan may
compute on a column the model derives from another's text, which llm_column_step asks the
model for (`agent/derived.py`) before it walks the plan.
"""

from __future__ import annotations

import re
from typing import Any

from langchain_core.messages import AIMessage
from langgraph.runtime import Runtime
from openpyxl.utils.cell import coordinate_to_tuple

from agent import derived, model_sql
from agent.calibration import current as current_calibration
from agent.context import RunContext
from agent.errors import AgentError
from agent.events import Answer, AnswerBasis, Evidence, StepError, Tentative, with_calls
from agent.evidence_sets import Citation
from agent.features import answer_features
from agent.frame import Frame, TableRef
from agent.grounding import Grounding
from agent.llm.phrasing import Unverified, phrase
from agent.payloads import payload, result_citation
from agent.plan import ModelSql, Refusal
from agent.question import analyse, split_instructions
from agent.results import Result
from agent.set_check import SetCheck, check_sets
from agent.solver import unnamed_across
from agent.sqlguard import run_select
from agent.state import AgentState, Grounded, SqlAnswer
from agent.steptables import persist_step_table
from agent.text import plural, tokens

MAX_CANDIDATE_TABLES = 8
_SPLIT = re.compile(r"\?\s+(?=\S)|;\s+")


def context_of(runtime: Runtime[RunContext]) -> RunContext:
    """The run's live handles; stops the run here when the user has asked to."""
    ctx = runtime.context
    ctx.check()
    return ctx


def decompose(state: AgentState, runtime: Runtime[RunContext]) -> dict[str, Any]:
    """Split a list of questions ("What was X? And Y?") into parts; otherwise keep it whole.
    The (first) question is analysed here, once per run."""
    ctx = context_of(runtime)
    question = state["question"]
    ctx.trace.emit("decompose", "start", "Reading the question")
    # Answer instructions ("(Answer to two decimal places)") are format, not a second question.
    asked, _ = split_instructions(question)
    parts = [p.strip() for p in _SPLIT.split(asked) if p.strip()]
    parts = parts if len(parts) > 1 else [question.strip()]
    analysis = analyse(parts[0])
    detail = (f"{len(parts)} questions: " + " | ".join(parts)) if len(parts) > 1 else (
        f"one question; operation: {analysis.op.replace('_', ' ')}")
    ctx.trace.emit("decompose", "end", "Read the question", detail=detail)
    return {"sub_questions": parts, "analysis": analysis}


def retrieve(state: AgentState, runtime: Runtime[RunContext]) -> dict[str, Any]:
    """Find the tables the question is about (the run's retriever: lexical offline)."""
    ctx = context_of(runtime)
    ctx.trace.emit("retrieve", "start", "Finding the relevant tables")
    known = ctx.workspace.table_ids()
    only = state.get("only_tables")
    if only is not None:
        known = [t for t in known if t in set(only)]
    if len(known) <= 1:
        ctx.trace.emit("retrieve", "end", "Using the only table" if known else "No tables",
                       detail=", ".join(_caption(ctx, t) for t in known)
                       or "the workspace has no tables yet",
                       retrieved=[{"type": "table", "table": t, "score": 1.0} for t in known])
        return {"tables": known}
    found = ctx.retriever.retrieve(state["question"], ctx.workspace, budget=20)
    ranked = [hit.table for hit in found.tables if hit.table in set(known)]
    ranked += [t for t in known if t not in ranked]
    tables = ranked[:MAX_CANDIDATE_TABLES]
    matched = [t for t in tables if t in {hit.table for hit in found.tables}]
    others = [t for t in tables if t not in matched]
    detail = ("matching, best first: " + "; ".join(_caption(ctx, t, where=True) for t in matched)
              if matched else "no table matches the question's words")
    if others:
        detail += "; also tried: " + "; ".join(_caption(ctx, t, where=True) for t in others)
    ctx.trace.emit("retrieve", "end", f"Found {plural(len(matched), 'matching table')}",
                   detail=detail, retrieved=found.items[:20])
    return {"tables": tables}


def tree_navigate(state: AgentState, runtime: Runtime[RunContext]) -> dict[str, Any]:
    """Ask the run's planner for a plan over the candidate tables; walk it over the tree."""
    ctx = context_of(runtime)
    ctx.trace.emit("tree_navigate", "start", "Matching the question to rows and columns")
    frames = ctx.frames.load(state.get("tables", []))
    analysis = state["analysis"]
    if len(state.get("sub_questions", [])) > 1:
        # Decomposing into sub-questions is not built for either mode yet: say what to do in
        # the mode the user is in (an LLM is no help here today).
        reason = ("several questions in one message are not answered together yet; ask them "
                  "one at a time" if ctx.model_name else "several questions in one message "
                  "need an LLM to answer together; ask them one at a time offline")
        return _refuse(ctx, "tree_navigate", reason)
    planning = ctx.planner.plan(analysis, frames, progress=lambda text: ctx.trace.emit(
        "tree_navigate", "progress", "The model is replying", detail=text))
    cost = {"llm_usage": with_calls({}, list(planning.calls)), "llm_failed": planning.failed}
    llm = list(planning.calls) or None
    matched = planning.matched
    shown = _grounding_table(matched) if matched is not None else None
    if planning.plan is None:
        reason = planning.refusal or "the question could not be tied to the tables"
        if matched is None:
            return {**_refuse(ctx, "tree_navigate", reason, llm=llm), **cost}
        ctx.trace.emit("tree_navigate", "end", "Could not tie the question to the table",
                       detail=reason, table=shown, llm=llm)
        return {"outcome": "refused", "refusal": reason, **cost,
                "grounding": Grounded(table=matched.frame.table, op=analysis.op)}
    p = planning.plan
    grounded = Grounded(table=p.table.id, op=analysis.op)
    if isinstance(p, ModelSql):
        # No tree form: the SQL step runs, repairs and traces the model's query.
        ctx.trace.emit("tree_navigate", "end", "Plan: the model wrote SQL", sql=p.query,
                       detail=f"{p.description}; checked, run and cited in the SQL step",
                       table=shown, llm=llm)
        return {"outcome": "planned", "grounding": grounded, "plan": p, "result": None,
                "phrasing": planning.phrasing, "planned_by": planning.source, **cost}
    if planning.derived is not None:
        # The plan computes on a column that exists only once the model has derived it: the
        # column step derives it, then walks the plan.
        spec = planning.derived
        frame = ctx.frames(p.table)
        ctx.trace.emit("tree_navigate", "end", f"Plan: {p.description}",
                       detail=f"planned by the {planning.source}; {frame.caption}; computed on "
                              f"{spec.name} ({spec.instruction}), which the column step "
                              f"derives from {frame.attr(spec.source).label}",
                       table=shown, llm=llm)
        grounded.update(rows=p.rows[:200], description=p.description)
        return {"outcome": "planned", "grounding": grounded, "plan": p, "result": None,
                "derived": spec, "phrasing": planning.phrasing,
                "planned_by": planning.source, **cost}
    walk = p.walk(ctx.frames)
    if isinstance(walk, Refusal):
        ctx.trace.emit("tree_navigate", "end", "Found the cells, but cannot compute",
                       detail=walk.reason, table=shown, llm=llm)
        return {"outcome": "refused", "refusal": walk.reason, "grounding": grounded, **cost}
    result = walk.result
    frame = ctx.frames(p.table)
    made = (f"{planning.note}; " if planning.note else
            "" if planning.source == "rules" else f"planned by the {planning.source}; ")
    ctx.trace.emit("tree_navigate", "end", f"Plan: {p.description}",
                   detail=f"{made}{frame.caption}; result by tree walk: {result.display}",
                   llm=llm,
                   table=payload(f"{frame.table}: rows used", walk.columns, walk.rows,
                                 len(set(r for r, _ in result.cited)) or len(p.rows),
                                 title=f"Rows used, from {_from(frame)}", frame=frame),
                   **_cited(_citation(ctx, result, p.table)))
    grounded.update(rows=p.rows[:200], columns=p.measure, description=p.description)
    return {"outcome": "planned", "grounding": grounded, "plan": p, "result": result,
            "derived_columns": p.derived_columns(frame), **cost,
            "phrasing": planning.phrasing, "planned_by": planning.source,
            "features": answer_features(matched, p, result, frame, analysis)}


def _grounding_table(g: Grounding):
    label = g.frame.attr
    rows = [["value", vm.text, label(vm.attr).label, len(vm.rows)] for vm in g.values]
    rows += [["column", m.label, ", ".join(label(k).label for k in m.attrs), round(m.score, 2)]
             for m in g.attrs[:8]]
    rows += [["unmatched word", w, "", ""] for w in g.unexplained]
    return payload(f"{g.frame.table}: grounding", ["kind", "text", "where", "rows/score"], rows,
                   title=f"How the question matched {_from(g.frame)}")


def _from(frame) -> str:
    """ "financial.xlsx (sheet P&L)", for table captions."""
    return f"{frame.file_name} (sheet {frame.sheet})"


def _shown_param(value: Any) -> str:
    """A SQL parameter as a person reads it: text quoted, numbers as they are."""
    return f"\u201c{value}\u201d" if isinstance(value, str) else str(value)


def _citation(ctx: RunContext, result: Result, table: TableRef) -> Citation:
    """What a result cites (made once per run: the steps after the walk cite it again)."""
    key = (table, tuple(result.cited), tuple(result.cited_in))
    if key not in ctx.citations:
        ctx.citations[key] = result_citation(result, table, ctx.frames)
    return ctx.citations[key]


def _caption(ctx: RunContext, table: str, where: bool = False) -> str:
    """A table as people know it ("financial.xlsx, sheet P&L"), not its id; with `where`, also
    its cells ("..., sheet P&L, A1:E8"), which tell apart two tables of one sheet."""
    place = ctx.workspace.table_place(table)
    caption = f"{place['file_name']}, sheet {place['sheet']}"
    return f"{caption}, {place['region']}" if where and place["region"] else caption


def _refuse(ctx: RunContext, node: str, reason: str, llm: list | None = None
            ) -> dict[str, Any]:
    title = "Cannot answer" if ctx.model_name else "Cannot answer offline"
    ctx.trace.emit(node, "end", title, detail=reason, llm=llm)
    return {"outcome": "refused", "refusal": reason}


def llm_column_step(state: AgentState, runtime: Runtime[RunContext]) -> dict[str, Any]:
    """Add derived columns to an intermediate table: the column a model's plan asked the
    model for (`agent/derived.py`), else derived numbers (the typed-value normalisers turn
    durations and ordinals into numbers; no LLM is needed for those)."""
    ctx = context_of(runtime)
    if state.get("derived") is not None:
        return derived.column_step(ctx, state)
    p = state["plan"]
    assert p is not None
    frame = ctx.frames(p.table)
    ctx.trace.emit("llm_column_step", "start", "Deriving numbers from text")
    keys = list(dict.fromkeys([*p.measure, *(k for _, k in p.operand_cells)]))
    normalised = state.get("derived_columns", [])
    carried = list(dict.fromkeys([*(f.column for f in p.filters), *(
        [p.answer_column] if p.answer_column else [])]))
    carried = [k for k in carried if k not in keys]
    rows = sorted(set(p.rows) | {r for r, _ in p.operand_cells})
    columns = ["_row", *carried, *keys, *(f"{k} (as written)" for k in normalised)]
    table_rows = []
    for r in rows:
        cells = [_sql_cell(frame.value(r, k)) for k in carried]
        cells += [(v.number if (v := frame.value(r, k)) is not None and v.measurable else None)
                  for k in keys]
        cells += [(v.text if (v := frame.value(r, k)) is not None else None)
                  for k in normalised]
        table_rows.append([r, *cells])
    written = state.get("step_tables", [])
    name = persist_step_table(ctx.workspace.db, state["run_id"], len(written) + 1, columns,
                              table_rows)
    labels = ", ".join(frame.attr(k).label for k in normalised)
    ctx.trace.emit("llm_column_step", "end", f"Derived numbers for {labels}",
                   detail="typed-value normalisers (durations in seconds, ordinals as numbers)",
                   table=payload(name, columns, table_rows, title="Derived numbers",
                                 frame=frame))
    return {"step_tables": [*written, name], "column_step_table": name}


def _sql_cell(value: Any) -> Any:
    """A cell as SQLite stores it in the wide view: its number, else its text."""
    if value is None:
        return None
    return value.number if value.numeric else value.text


def sql_step(state: AgentState, runtime: Runtime[RunContext]) -> dict[str, Any]:
    """Re-derive the answer with SQL over the wide view; store the result as a step table."""
    ctx = context_of(runtime)
    p = state["plan"]
    assert p is not None
    if isinstance(p, ModelSql):
        return model_sql.sql_step(ctx, state)
    source = state.get("column_step_table")
    step = p.sql(ctx.frames, source)
    ctx.trace.emit("sql_step", "start", "Running SQL", sql=step.sql if step else None)
    if step is None:
        ctx.trace.emit("sql_step", "end", "No wide view to query",
                       detail="the table is too wide for SQLite; the tree result stands alone")
        return {}
    frame = ctx.frames(p.table)
    try:
        allowed = set(step.tables or [source or frame.wide])
        selected = run_select(ctx.workspace.db_path, step.sql, step.params,
                              allowed_tables=allowed, cancel=ctx.cancel, time_limit_s=10)
    except AgentError as exc:
        ctx.trace.error("sql_step", "The SQL step failed", type(exc).__name__, str(exc))
        return {}
    rows = [list(r) for r in selected.rows]
    written = state.get("step_tables", [])
    name = persist_step_table(ctx.workspace.db, state["run_id"], len(written) + 1,
                              selected.columns, rows)
    values = step.answer_values(selected.columns, rows)
    ctx.trace.emit("sql_step", "end", f"SQL returned {plural(len(rows), 'row')}", sql=step.sql,
                   detail=("with the values " + ", ".join(map(_shown_param, step.params))
                           if step.params else None),
                   table=payload(name, selected.columns, rows, title="SQL result", frame=frame))
    return {"step_tables": [*written, name], "sql_answer": SqlAnswer(table=name, values=values)}


def validate(state: AgentState, runtime: Runtime[RunContext]) -> dict[str, Any]:
    """Check cited cells against the stored source and compare the two derivations."""
    ctx = context_of(runtime)
    ctx.trace.emit("validate", "start", "Checking the answer against the source")
    p, result = state["plan"], state["result"]
    assert p is not None and result is not None
    cited = _citation(ctx, result, p.table)
    if isinstance(p, ModelSql):
        problems, checked = model_sql.verify(ctx, p, result, state.get("sql_answer").table
                                             if state.get("sql_answer") else None)
        problems = _check_citations(ctx, cited.cells) + problems
        ctx.trace.emit("validate", "end", "Could not verify" if problems else "Verified",
                       **_cited(cited), detail="; ".join(problems) or
                       f"{checked}; every cited cell matches the source")
        return {"verified": not problems, "problems": problems}
    problems = _check_citations(ctx, cited.evidence)
    spec = state.get("derived")
    # A derived column's values are the model's reading of the cited cells, not their
    # numbers: every cell of the sets must be there, and the arithmetic over the derived
    # values is the SQL step's, over the step table.
    sets = _check_sets(ctx, cited, "derived" if spec else p.op, result) if cited.sets else None
    if sets is not None:
        problems += sets.problems
    frames = ctx.frames if spec is None else derived.frames_with(ctx.frames, p.table, spec)
    unnamed = unnamed_across(p, frames, set(tokens(state["analysis"].text)))
    if unnamed is not None:
        problems.append(unnamed)
    agreement = disagreement(result, state.get("sql_answer"), ctx.frames(p.table))
    if agreement is not None:
        problems.append(agreement)
    verified = not problems
    if verified:
        n = len(cited.evidence)
        checked = (f"{plural(n, 'cited cell')} {'matches' if n == 1 else 'match'} the source"
                   if sets is None else f"{plural(n, 'listed cell')} match the source; "
                                        f"{sets.summary}")
        read = (f"; {spec.name} is the model's reading of each cited "
                f"{ctx.frames(p.table).attr(spec.source).label} cell, shown in the column "
                "step" if spec else "")
        ctx.trace.emit("validate", "end", "Verified", **_cited(cited),
                       detail=f"{checked}; the SQL step agrees (over the rows the plan "
                              f"chose: the choice of rows is not re-derived){read}")
    else:
        ctx.trace.emit("validate", "end", "Could not verify", **_cited(cited),
                       detail="; ".join(problems if sets is None else [*problems, sets.summary]))
    return {"verified": verified, "problems": problems}


def _cited(cited: Citation) -> dict[str, Any]:
    """An event's cited cells: each one, or a few and the sets they belong to."""
    return {"cells": cited.evidence, "evidence_sets": cited.sets_or_none}


def _check_sets(ctx: RunContext, cited: Citation, op: str, result: Result) -> SetCheck:
    """Re-read every cell of the citation's sets in SQL and check the answer's arithmetic."""
    grids = {s.table: ctx.workspace.grid_of(s.table) for s in cited.sets}
    uses = len(result.cited_in) or len(result.cited)
    return check_sets(ctx.workspace.db, grids, cited.sets, op, result.values, uses)


def _check_citations(ctx: RunContext, cited: list[Evidence]) -> list[str]:
    """Every cited cell must exist at its ref in the cells table with the same text."""
    problems = []
    grids: dict[str, str] = {}  # table id -> grid id
    for item in cited:
        if item.table not in grids:
            grids[item.table] = ctx.workspace.grid_of(item.table)
        row, col = coordinate_to_tuple(item.ref.split(":")[0])  # a merged range: its anchor
        # By primary key (grid, row, col): a lookup, not a scan of a big sheet's cells.
        rows = list(ctx.workspace.db.query(
            "SELECT text FROM cells WHERE grid = ? AND row = ? AND col = ?",
            [grids[item.table], row, col]))
        if not rows or rows[0]["text"] != item.text:
            problems.append(f"{item.sheet}!{item.ref} does not hold {item.text!r}")
    return problems


def disagreement(result: Result, sql: SqlAnswer | None, frame: Frame) -> str | None:
    """How the tree walk's result and the SQL step's differ; None when they agree."""
    if sql is None:
        return None if frame.wide is None else "the SQL step did not run"
    if sql.values is None:
        return "the SQL result has no answer column"
    got, want = sql.values, result.values
    if len(got) != len(want) or not all(_same(a, b) for a, b in zip(sorted(got, key=str),
                                                                 sorted(want, key=str),
                                                                 strict=True)):
        return f"the tree walk gave {want} but SQL gave {got}"
    return None


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return abs(a - b) <= 1e-6 * max(1.0, abs(a), abs(b))
    return str(a).strip() == str(b).strip()


def answer(state: AgentState, runtime: Runtime[RunContext]) -> dict[str, Any]:
    """Compose the answer from validated values (or say plainly why there is none)."""
    ctx = context_of(runtime)
    ctx.trace.emit("answer", "start", "Writing the answer")
    p, result = state.get("plan"), state.get("result")
    usage = state.get("llm_usage") or {}
    if state.get("outcome") == "refused" or p is None or result is None:
        reason = state.get("refusal", "the question could not be tied to the tables")
        if not ctx.model_name:
            text, kind, title = f"Needs an LLM: {reason}.", "needs_llm", "No answer offline"
        elif state.get("llm_failed"):
            text, kind, title = f"{reason}.", "llm_failed", "No answer"
        else:
            text, kind, title = f"Cannot answer: {reason}.", "refused", "No answer"
        ctx.trace.emit("answer", "end", title, detail=text)
        out = Answer(answer=None, error=StepError(kind=kind, message=text),
                     steps=ctx.trace.end_events(), **usage)
        return {"answer": out.to_json_dict(), "outcome": "refused",
                "messages": [AIMessage(content=text)]}
    verified = state.get("verified", False)
    problems = state.get("problems", [])
    planned_by = state.get("planned_by") or "rules"
    basis = AnswerBasis(op=p.op, prior=p.confidence, planned_by=planned_by,
                        **state.get("features", {}))
    calibration = current_calibration()
    confidence = calibration.calibrated(basis) if verified else min(p.confidence, 0.3)
    cited = _citation(ctx, result, p.table)
    # The phrasing may quote any cell the answer read, listed or not.
    template = state.get("phrasing")
    phrased = phrase(template, result, state["question"], ctx.frames(p.table),
                     cited.cells if template else [])
    if isinstance(phrased, Unverified):
        verified, confidence = False, min(confidence, 0.3)
        problems = [*problems, phrased.problem]
        phrased = result.display
    common = {"unit": result.unit, "confidence": confidence, "basis": basis,
              "confidence_label": calibration.label(confidence), **usage}
    if verified and calibration.unsure(basis):
        # Checked, but answers of this kind are too often wrong on new tables: say what it
        # would be and why it is unsure, rather than answer.
        weakest = calibration.weakest(basis)
        why = f" (mostly for its {' and '.join(weakest)})" if weakest else ""
        text = (f"Not sure: it would be {phrased}, but answers like this ({p.description}) "
                f"are right only about {confidence:.0%} of the time on tables the engine was "
                f"not tuned on{why}.")
        ctx.trace.emit("answer", "end", "Not sure", detail=text, **_cited(cited))
        out = Answer(answer=None, error=StepError(kind="low_confidence", message=text),
                     tentative=Tentative(values=result.values, evidence=cited.evidence,
                                         evidence_sets=cited.sets_or_none),
                     steps=ctx.trace.end_events(), **common)
        return {"answer": out.to_json_dict(), "outcome": "answered",
                "messages": [AIMessage(content=text)]}
    text = phrased if verified else (
        f"Could not verify: {result.display} ({'; '.join(problems)})" if problems
        else f"Could not verify: {result.display}")
    ctx.trace.emit("answer", "end", "Answer", detail=text, **_cited(cited))
    out = Answer(answer=text if verified else None, values=result.values if verified else [],
                 evidence=cited.evidence, evidence_sets=cited.sets_or_none,
                 error=None if verified else StepError(kind="not_verified", message=text),
                 steps=ctx.trace.end_events(), **common)
    return {"answer": out.to_json_dict(), "outcome": "answered",
            "messages": [AIMessage(content=text)]}
