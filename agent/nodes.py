"""The graph's nodes. Each emits a start and an end (or error) event with what it did, reads
the graph state and returns its update to it; live handles come from `runtime.context`.

Offline (no LLM configured) every node is deterministic: decompose splits only parallel or
multi-hop wordings (`agent/decompose.py`; each part then loops through the nodes after it
and answer combines them, `agent/combine.py`), retrieve is lexical, tree_navigate gets its
plan from the run's planner (the rules of `RulePlanner`) and walks it, sql_step re-derives
it with the plan's SQL form, llm_column_step applies the typed-value normalisers, validate
checks citations and the re-derivation, answer composes the text.
With a model, a plan may be a query the model wrote (`ModelSql`): sql_step and validate hand it
to `agent/model_sql.py`, which checks, runs, repairs, traces and re-checks it; and a plan may
compute on a column the model derives from another's text, which llm_column_step asks the
model for (`agent/derived.py`) before it walks the plan.
"""

from __future__ import annotations

from typing import Any

from langchain_core.messages import AIMessage
from langgraph.runtime import Runtime
from openpyxl.utils.cell import coordinate_to_tuple

from agent import derived, model_sql
from agent.calibration import current as current_calibration
from agent.column_cells import cells_key, cited_row_count
from agent.combine import Combined, PartAnswer, combine
from agent.context import RunContext
from agent.decompose import Splitter, and_in_label, could_split, split_question
from agent.display import asked_places, to_places
from agent.errors import AgentError
from agent.events import Answer, AnswerBasis, Evidence, StepError, Tentative, with_calls
from agent.evidence_sets import Citation
from agent.features import answer_features
from agent.followup import FollowUp, follow_up, fragment_of, without_leading_and
from agent.frame import DERIVABLE_KINDS, NUMERIC_KINDS, Frame, TableRef
from agent.grounding import Grounding
from agent.image_cells import image_note, noted, with_boxes
from agent.llm.phrasing import Unverified, phrase
from agent.payloads import payload, result_citation
from agent.plan import ModelSql, Refusal
from agent.question import analyse
from agent.results import Result, as_shown, without_note_mark
from agent.set_check import SetCheck, check_sets
from agent.solver import unnamed_across
from agent.sqlguard import run_select
from agent.state import AgentState, Grounded, Previous, SqlAnswer
from agent.steptables import persist_step_table
from agent.text import plural, tokens
from ingest.grid import sheet_words, table_place
from ingest.values import parse_value
from storage.plain_cells import BLOCK_ROWS

MAX_CANDIDATE_TABLES = 8


def context_of(runtime: Runtime[RunContext]) -> RunContext:
    """The run's live handles; stops the run here when the user has asked to."""
    ctx = runtime.context
    ctx.check()
    return ctx


def decompose(state: AgentState, runtime: Runtime[RunContext]) -> dict[str, Any]:
    """Split a parallel or multi-hop message into parts (`agent/decompose.py`), or keep it
    whole; analyse the question, or the part to answer next.

    It runs once at the start and again before each later part: then it keeps the part just
    validated and sets the state up for the next, so each part runs through the graph's steps
    as a question of its own."""
    ctx = context_of(runtime)
    if state.get("sub_questions"):
        return _next_part(ctx, state)
    question = state["question"]
    ctx.trace.emit("decompose", "start", "Reading the question")
    followed = _follow_up(ctx, state)
    question = without_leading_and(question) if followed is None else followed.question
    found = split_question(question)
    note = None
    if found is not None and found.joined is not None \
            and and_in_label(ctx.workspace.db.conn, found.joined):
        note = f"\u201c{found.joined[0]} and {found.joined[1]}\u201d is one label here"
        found = None
    update: dict[str, Any] = {"asked": question}
    llm = None
    if isinstance(ctx.planner, Splitter) and could_split(question):
        proposal = ctx.planner.split(question, found)
        found, llm = proposal.split, list(proposal.calls) or None
        update["llm_usage"] = with_calls({}, list(proposal.calls))
        note = proposal.note or note
    if found is None:
        analysis = analyse(question)
        detail = f"one question; operation: {analysis.op.replace('_', ' ')}"
        if note:
            detail += f" ({note})"
        if followed is not None:
            detail = f"a follow-up, asked as \u201c{question}\u201d ({followed.carried}); {detail}"
        ctx.trace.emit("decompose", "end", "Read the question", detail=detail, llm=llm)
        return {**update, "sub_questions": [question.strip()], "analysis": analysis}
    listed = " | ".join(found.parts)
    if note:
        listed += f" ({note})"
    if found.whole_first:
        ctx.trace.emit("decompose", "end", "Read the question", llm=llm,
                       detail=f"one question, tried whole first; if it cannot be planned as "
                              f"one, {len(found.parts)} parts ({found.form}, then "
                              f"{_COMBINE_WORDS[found.combine]}): {listed}")
        return {**update, "sub_questions": found.parts, "split": found, "part": -1,
                "analysis": analyse(question)}
    ctx.trace.emit("decompose", "end", f"Split into {len(found.parts)} parts", llm=llm,
                   detail=f"{found.form}, then {_COMBINE_WORDS[found.combine]}: {listed}; "
                          f"part 1: {found.parts[0]}")
    return {**update, "sub_questions": found.parts, "split": found, "part": 0,
            "analysis": analyse(found.parts[0])}


_COMBINE_WORDS = {"list": "listed", "difference": "the first minus the second",
                  "sum": "added up", "ratio": "the first divided by the second"}
_PART_RESET = {"tables": [], "plan": None, "result": None, "derived_columns": [],
               "column_step_table": None, "sql_answer": None, "outcome": "", "refusal": "",
               "problems": [], "verified": False, "phrasing": None, "planned_by": "rules",
               "features": {}}
"""The fields one part's steps fill, cleared before the next part (step tables and the
model's usage add up over the parts)."""


def _follow_up(ctx: RunContext, state: AgentState) -> FollowUp | None:
    """The message read as a follow-up of the chat's previous question (`agent/followup.py`),
    when the checkpoint has one and its table is still in the workspace."""
    previous = state.get("previous")
    if not previous or fragment_of(state["question"]) is None \
            or previous["table"] not in ctx.workspace.table_ids():
        return None
    [frame] = ctx.frames.load([previous["table"]])
    return follow_up(state["question"], previous["question"], frame)


def _next_part(ctx: RunContext, state: AgentState) -> dict[str, Any]:
    """Keep the part just validated (none when the whole message was tried first) and set up
    the next."""
    split = state["split"]
    assert split is not None
    part = state.get("part", 0)
    done = list(state.get("parts_done", []))
    ctx.trace.emit("decompose", "start", "Taking the next part")
    if part == -1:
        why = state.get("refusal") or "the question could not be tied to the tables"
        detail = (f"not as one question ({why}); {len(split.parts)} parts ({split.form}, "
                  f"then {_COMBINE_WORDS[split.combine]}): " + " | ".join(split.parts))
    else:
        done.append(_part_answer(ctx, state, split.parts[part]))
        detail = f"part {part + 1} answered: {done[-1].result.display}"
    nxt = part + 1
    ctx.trace.emit("decompose", "end", f"Part {nxt + 1} of {len(split.parts)}: "
                   f"{split.parts[nxt]}", detail=detail)
    return {**_PART_RESET, "part": nxt, "parts_done": done,
            "analysis": analyse(split.parts[nxt])}


def _part_answer(ctx: RunContext, state: AgentState, question: str) -> PartAnswer:
    """A validated part's answer with its calibrated confidence, for the combine step."""
    p, result = state["plan"], state["result"]
    assert p is not None and result is not None
    basis = _basis(state, p)
    calibration = current_calibration()
    return PartAnswer(question=question, table=p.table, result=result,
                      description=p.description, confidence=calibration.calibrated(basis),
                      unsure=calibration.unsure(basis))


def _basis(state: AgentState, p: Any) -> AnswerBasis:
    return AnswerBasis(op=p.op, prior=p.confidence,
                       planned_by=state.get("planned_by") or "rules", **state.get("features", {}))


def _asked(state: AgentState) -> str:
    """The question the current steps answer: the part's, or the whole message's."""
    split, part = state.get("split"), state.get("part", 0)
    if split is not None and part >= 0:
        return split.parts[part]
    return state.get("asked") or state["question"]


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
                       retrieved=[{"kind": "table", "table": t, "score": 1.0} for t in known])
        return {"tables": known}
    found = ctx.retriever.retrieve(_asked(state), ctx.workspace, budget=20)
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
    planning = ctx.planner.plan(analysis, frames, progress=lambda text: ctx.trace.emit(
        "tree_navigate", "progress", "The model is replying", detail=text))
    # A planner's calls are all the run's so far (its client's record): the usage adds them
    # up, the step shows those no earlier step (decompose, an earlier part) showed.
    cost = {"llm_usage": with_calls({}, list(planning.calls)), "llm_failed": planning.failed,
            "llm_failure": state.get("llm_failure") or planning.failure}
    shown_before = [c for e in ctx.trace.events for c in e.llm or []]
    llm = [c for c in planning.calls if c not in shown_before] or None
    matched = planning.matched
    shown = _grounding_table(matched) if matched is not None else None
    if planning.plan is None:
        reason = planning.refusal or "the question could not be tied to the tables"
        if matched is None:
            title = "Could not plan it as one question" if state.get("part") == -1 else None
            return {**_refuse(ctx, "tree_navigate", reason, llm=llm, title=title), **cost}
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
    used = cited_row_count(result.cited) or len(p.rows)
    made = (f"{planning.note}; " if planning.note else
            "" if planning.source == "rules" else f"planned by the {planning.source}; ")
    ctx.trace.emit("tree_navigate", "end", f"Plan: {p.description}",
                   detail=f"{made}{frame.caption}; result by tree walk: {result.display}",
                   llm=llm,
                   table=payload(f"{frame.table}: rows used", walk.columns, walk.rows,
                                 used, title=f"Rows used, from {_from(frame)}", frame=frame),
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
    """ "financial.xlsx (sheet P&L)", "ops_report.docx (table 1)", for table captions."""
    words = sheet_words(frame.file_name, frame.sheet)
    return f"{frame.file_name} ({words})" if words else frame.file_name


def _sql_detail(values: list[Any] | None, params: list[Any]) -> str | None:
    """What the SQL step found, then what the query was given ("result: 219450 (query
    parameters: “Revenue”, 2, 10)"): the parameters alone read as if they were the result."""
    shown = [_shown_param(v) for v in (values or [])[:8]]
    if values and len(values) > 8:
        shown.append(f"and {len(values) - 8:,} more")
    found = f"result: {', '.join(shown)}" if shown else "no answer value"
    if not params:
        return found
    given = [_shown_param(p) for p in params[:12]] + (["…"] if len(params) > 12 else [])
    return f"{found} (query parameters: {', '.join(given)})"


def _shown_param(value: Any) -> str:
    """A SQL parameter as a person reads it: text quoted, numbers as they are."""
    return f"\u201c{value}\u201d" if isinstance(value, str) else str(value)


def _citation(ctx: RunContext, result: Result, table: TableRef) -> Citation:
    """What a result cites (made once per run: the steps after the walk cite it again)."""
    # The steps after the walk get the walk's own result: found by identity, not by hashing
    # and comparing its cited cells (20,000 of an aggregate) each time.
    held = ctx.citations.get((table, id(result)))
    if held is not None and held[0] is result:
        return held[1]
    key = (table, cells_key(result.cited), tuple(result.cited_in))
    if key not in ctx.citations:
        ctx.citations[key] = with_boxes(ctx.workspace,
                                        result_citation(result, table, ctx.frames))
    ctx.citations[(table, id(result))] = (result, ctx.citations[key])
    return ctx.citations[key]


def _caption(ctx: RunContext, table: str, where: bool = False) -> str:
    """A table as people know it ("financial.xlsx, sheet P&L", "ops_report.docx, table 1"),
    not its id; with `where`, also its cells ("..., sheet P&L, A1:E8"), which tell apart two
    tables of one sheet."""
    place = ctx.workspace.table_place(table)
    caption = table_place(place["file_name"], place["sheet"])
    return f"{caption}, {place['region']}" if where and place["region"] else caption


def _refuse(ctx: RunContext, node: str, reason: str, llm: list | None = None,
            title: str | None = None) -> dict[str, Any]:
    title = title or ("Cannot answer" if ctx.model_name else "Cannot answer offline")
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
    carried = list(dict.fromkeys([*(k for f in p.filters for k in f.columns), *(
        [p.answer_column] if p.answer_column else [])]))
    carried = [k for k in carried if k not in keys]
    rows = sorted(set(p.rows) | {r for r, _ in p.operand_cells})
    columns = ["_row", *carried, *keys, *(f"{k} (as written)" for k in normalised)]
    table_rows = []
    for r in rows:
        cells = [_sql_cell(frame.value(r, k)) for k in carried]
        # A cell with no number ("DNF" among times) keeps its text, as the wide view does:
        # a lookup reads it, and the SQL forms of aggregates keep only numbers (`is_number`:
        # SQLite's own SUM would read the text as 0).
        cells += [None if (v := frame.value(r, k)) is None else
                  v.number if v.measurable else (v.text.strip() or None) for k in keys]
        cells += [(v.text if (v := frame.value(r, k)) is not None else None)
                  for k in normalised]
        table_rows.append([r, *cells])
    written = state.get("step_tables", [])
    name = persist_step_table(ctx.workspace.db, state["run_id"], len(written) + 1, columns,
                              table_rows, queryable=True)  # the SQL step computes on it
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
                              allowed_tables=allowed, cancel=ctx.cancel, time_limit_s=10,
                              written_by="engine")
    except AgentError as exc:
        ctx.trace.error("sql_step", "The SQL step failed", type(exc).__name__, str(exc))
        return {}
    rows = [list(r) for r in selected.rows]
    written = state.get("step_tables", [])
    name = persist_step_table(ctx.workspace.db, state["run_id"], len(written) + 1,
                              selected.columns, rows)
    values = step.answer_values(selected.columns, rows)
    ctx.trace.emit("sql_step", "end", f"SQL returned {plural(len(rows), 'row')}", sql=step.sql,
                   detail=_sql_detail(values, step.params),
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
    unnamed = unnamed_across(p, frames, set(tokens(state["analysis"].text)),
                             state["analysis"].text)
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
        # By primary key (grid, row, col) and the row's block of plain cells: a lookup, not
        # a scan of a big sheet's cells.
        rows = list(ctx.workspace.db.query(
            "SELECT text FROM cells WHERE grid = ? AND row_block = ? AND row = ? AND col = ?",
            [grids[item.table], row // BLOCK_ROWS, row, col]))
        # (Spaces around the text aside: an indented label "   Kids" is cited as "Kids".)
        if not rows or rows[0]["text"].strip() != item.text.strip():
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
        def listed(values: list[Any]) -> str:
            return ", ".join(map(str, values)) or "nothing"

        return f"reading the table gave {listed(want)}, the SQL query {listed(got)}"
    return None


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, str) != isinstance(b, str):
        # A cell read as written ("5th", "1:44.55") against the number the column step
        # derived from it (5, 104.55) for SQL: the same cell when its number is that number.
        text, other = (a, b) if isinstance(a, str) else (b, a)
        # So is a number written with separators ("1,000") against the wide view's 1000.
        parsed = parse_value(text)
        if parsed.kind in DERIVABLE_KINDS | NUMERIC_KINDS and parsed.number is not None:
            return _same(parsed.number, other)
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return abs(a - b) <= 1e-6 * max(1.0, abs(a), abs(b))
    return str(a).strip() == str(b).strip()


def answer(state: AgentState, runtime: Runtime[RunContext]) -> dict[str, Any]:
    """Compose the answer from validated values (or say plainly why there is none)."""
    ctx = context_of(runtime)
    if state.get("split") is not None and state.get("part", 0) >= 0:
        return _answer_parts(ctx, state)
    ctx.trace.emit("answer", "start", "Writing the answer")
    p, result = state.get("plan"), state.get("result")
    usage = state.get("llm_usage") or {}
    if state.get("outcome") == "refused" or p is None or result is None:
        reason = state.get("refusal", "the question could not be tied to the tables")
        return _no_answer(ctx, state, reason)
    verified = state.get("verified", False)
    problems = state.get("problems", [])
    basis = _basis(state, p)
    # What the chat's next follow-up is read against: the question this turn planned.
    previous = {"previous": Previous(question=state.get("asked") or state["question"],
                                     table=p.table.id)}
    calibration = current_calibration()
    confidence = calibration.calibrated(basis) if verified else min(p.confidence, 0.3)
    cited = _citation(ctx, result, p.table)
    # The phrasing may quote any cell the answer read, listed or not.
    template = state.get("phrasing")
    frame = ctx.frames(p.table)
    phrased = phrase(template, result, _asked(state), frame,
                     cited.cells if template else [])
    if isinstance(phrased, Unverified):
        verified, confidence = False, min(confidence, 0.3)
        problems = [*problems, phrased.problem]
        phrased = result.display
    for value in result.values:
        # (As `as_shown` writes the values: a label without the footnote mark a note explains.)
        if isinstance(value, str) and (unmarked := without_note_mark(value, frame)) != value:
            phrased = phrased.replace(value, unmarked)
    places = asked_places(state["analysis"].instructions)
    number = result.values[0] if len(result.values) == 1 else None
    if places is not None and isinstance(number, (int, float)) and not isinstance(number, bool):
        # "(Accurate to two decimal places)": the number written as asked; values keep it whole.
        phrased = to_places(phrased, number, places)
    common = {"unit": result.unit, "confidence": confidence, "basis": basis,
              "confidence_label": calibration.label(confidence), **usage,
              "llm_failure": state.get("llm_failure")}
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
                     tentative=Tentative(values=as_shown(result, frame),
                                         evidence=cited.evidence,
                                         evidence_sets=cited.sets_or_none),
                     steps=ctx.trace.end_events(), **common)
        return {"answer": out.to_json_dict(), "outcome": "answered", **previous,
                "messages": [AIMessage(content=text)]}
    text = noted(phrased, image_note(ctx.workspace, cited.evidence)) if verified else (
        f"No answer: two ways of computing it disagreed ({'; '.join(problems)}), so "
        f"neither {result.display} nor the other is given" if problems
        else f"No answer: {result.display} could not be checked, so it is not given")
    ctx.trace.emit("answer", "end", "Answer" if verified else "Not verified", detail=text,
                   **_cited(cited))
    # An unverified result cites nothing in the answer (its cells stay in the steps): cited
    # cells beside a number read as proof.
    out = Answer(answer=text if verified else None,
                 values=as_shown(result, frame) if verified else [],
                 evidence=cited.evidence if verified else [],
                 evidence_sets=cited.sets_or_none if verified else None,
                 error=None if verified else StepError(kind="not_verified", message=text),
                 steps=ctx.trace.end_events(), **common)
    return {"answer": out.to_json_dict(), "outcome": "answered", **previous,
            "messages": [AIMessage(content=text)]}


def _no_answer(ctx: RunContext, state: AgentState, reason: str) -> dict[str, Any]:
    """The run's refusal, in the words of the mode it ran in (the answer step has started)."""
    if not ctx.model_name:
        # "from the tables": a document's text may still answer after this step (agent/run.py).
        text, kind, title = f"Needs an LLM: {reason}.", "needs_llm", "No answer from the tables"
    elif state.get("llm_failed"):
        text, kind, title = f"{reason}.", "llm_failed", "No answer"
    else:
        text, kind, title = f"Cannot answer: {reason}.", "refused", "No answer"
    ctx.trace.emit("answer", "end", title, detail=text)
    out = Answer(answer=None, error=StepError(kind=kind, message=text),
                 steps=ctx.trace.end_events(), **(state.get("llm_usage") or {}))
    return {"answer": out.to_json_dict(), "outcome": "refused",
            "messages": [AIMessage(content=text)]}


_COMBINED_TITLE = {"list": "listed", "difference": "their difference", "sum": "their sum",
                   "ratio": "their ratio"}


def _answer_parts(ctx: RunContext, state: AgentState) -> dict[str, Any]:
    """Combine the parts' validated answers (the combine step), then answer.

    Any part that was refused or could not be verified makes the whole message unanswered,
    naming the part: one confident number built on a wrong part is worse than none."""
    split = state["split"]
    assert split is not None
    part, n = state.get("part", 0), len(split.parts)
    usage = state.get("llm_usage") or {}
    name = f"part {part + 1} of {n} (\u201c{split.parts[part]}\u201d)"
    p, result = state.get("plan"), state.get("result")
    if state.get("outcome") == "refused" or p is None or result is None:
        ctx.trace.emit("answer", "start", "Writing the answer")
        reason = state.get("refusal") or "the question could not be tied to the tables"
        return _no_answer(ctx, state, f"{name} cannot be answered: {reason}")
    if not state.get("verified"):
        ctx.trace.emit("answer", "start", "Writing the answer")
        problems = "; ".join(state.get("problems", [])) or "the checks did not agree"
        text = f"No answer: two ways of computing {name} disagreed ({problems})"
        ctx.trace.emit("answer", "end", "Answer", detail=text)
        out = Answer(answer=None, error=StepError(kind="not_verified", message=text),
                     steps=ctx.trace.end_events(), **usage)
        return {"answer": out.to_json_dict(), "outcome": "answered",
                "messages": [AIMessage(content=text)]}
    parts = [*state.get("parts_done", []), _part_answer(ctx, state, split.parts[part])]
    ctx.trace.emit("answer", "start", "Combining the parts")
    combined = combine(split.combine, parts, ctx.frames)
    if isinstance(combined, Refusal):
        ctx.trace.emit("answer", "end", "Cannot combine the parts", detail=combined.reason)
        ctx.trace.emit("answer", "start", "Writing the answer")
        return _no_answer(ctx, state, f"the parts cannot be combined: {combined.reason}")
    cited = _citation(ctx, combined.result, parts[0].table)
    ctx.trace.emit("answer", "end", f"Combined {n} parts: {_COMBINED_TITLE[split.combine]}",
                   detail=combined.working, table=_parts_table(ctx, parts, combined),
                   **_cited(cited))
    return _combined_answer(ctx, state, parts, combined, cited)


def _parts_table(ctx: RunContext, parts: list[PartAnswer], combined: Combined):
    rows = [[i, p.question, p.result.display, ctx.frames(p.table).caption]
            for i, p in enumerate(parts, 1)]
    rows.append(["", "combined", combined.result.display, ""])
    return payload("combine", ["part", "question", "answer", "table"], rows,
                   title="The parts and their answers")


def _combined_answer(ctx: RunContext, state: AgentState, parts: list[PartAnswer],
                     combined: Combined, cited: Citation) -> dict[str, Any]:
    """The answer over the combined result: as sure as its least sure part."""
    split = state["split"]
    assert split is not None
    usage = state.get("llm_usage") or {}
    result = combined.result
    calibration = current_calibration()
    confidence = min(p.confidence for p in parts)
    basis = AnswerBasis(op=f"{split.combine} of {len(parts)} parts", prior=confidence,
                        planned_by=state.get("planned_by") or "rules")
    common = {"unit": result.unit, "confidence": confidence, "basis": basis,
              "confidence_label": calibration.label(confidence), **usage,
              "llm_failure": state.get("llm_failure")}
    ctx.trace.emit("answer", "start", "Writing the answer")
    unsure = [(i, p) for i, p in enumerate(parts, 1) if p.unsure]
    if unsure:
        i, p = unsure[0]
        text = (f"Not sure: it would be {result.display}, but part {i} "
                f"(\u201c{p.question}\u201d: {p.description}) is of a kind that is right only "
                f"about {p.confidence:.0%} of the time on tables the engine was not tuned on.")
        ctx.trace.emit("answer", "end", "Not sure", detail=text, **_cited(cited))
        out = Answer(answer=None, error=StepError(kind="low_confidence", message=text),
                     tentative=Tentative(values=as_shown(result, ctx.frames(p.table)),
                                         evidence=cited.evidence,
                                         evidence_sets=cited.sets_or_none),
                     steps=ctx.trace.end_events(), **common)
        return {"answer": out.to_json_dict(), "outcome": "answered",
                "messages": [AIMessage(content=text)]}
    text = noted(result.display, image_note(ctx.workspace, cited.evidence))
    ctx.trace.emit("answer", "end", "Answer", detail=text, **_cited(cited))
    out = Answer(answer=text, values=result.values, evidence=cited.evidence,
                 evidence_sets=cited.sets_or_none, steps=ctx.trace.end_events(), **common)
    return {"answer": out.to_json_dict(), "outcome": "answered",
            "messages": [AIMessage(content=text)]}
