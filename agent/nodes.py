"""The graph's nodes. Each emits a start and an end (or error) event with what it did.

Offline (no LLM configured) every node is deterministic: decompose splits only explicit
question lists, retrieve is lexical, tree_navigate grounds the question in the HO-Tree and plans
the computation, sql_step re-derives it in SQL, llm_column_step applies the typed-value
normalisers, validate checks citations and the re-derivation, answer composes the text.
"""

from __future__ import annotations

import re
from typing import Any

from langchain_core.messages import AIMessage
from langchain_core.runnables import RunnableConfig
from openpyxl.utils.cell import coordinate_to_tuple

from agent.compute import compute
from agent.context import RunContext, payload, result_evidence
from agent.errors import AgentError
from agent.events import Answer, Evidence, StepError, confidence_label
from agent.frame import load_frames
from agent.grounding import Grounding, explain_across, ground
from agent.question import analyse
from agent.solver import Refusal, combine, plan, unnamed_across
from agent.sqlguard import run_select
from agent.sqlplan import sql_for
from agent.state import AgentState
from agent.steptables import persist_step_table
from agent.text import plural, tokens

MAX_CANDIDATE_TABLES = 8
_SPLIT = re.compile(r"\?\s+(?=\S)|;\s+")


def ctx_of(config: RunnableConfig) -> RunContext:
    ctx: RunContext = config["configurable"]["run"]
    ctx.check()
    return ctx


def decompose(state: AgentState, config: RunnableConfig) -> dict[str, Any]:
    """Split a list of questions ("What was X? And Y?") into parts; otherwise keep it whole."""
    ctx = ctx_of(config)
    question = state["question"]
    ctx.emit("decompose", "start", "Reading the question")
    parts = [p.strip() for p in _SPLIT.split(question) if p.strip()]
    parts = parts if len(parts) > 1 else [question.strip()]
    analysis = analyse(parts[0])
    detail = (f"{len(parts)} questions: " + " | ".join(parts)) if len(parts) > 1 else (
        f"one question; operation: {analysis.op.replace('_', ' ')}")
    ctx.emit("decompose", "end", "Read the question", detail=detail)
    return {"sub_questions": parts, "run_id": ctx.run_id}


def retrieve(state: AgentState, config: RunnableConfig) -> dict[str, Any]:
    """Find the tables the question is about (lexical search over headers, labels, values)."""
    from agent.retriever import LexicalRetriever

    ctx = ctx_of(config)
    ctx.emit("retrieve", "start", "Finding the relevant tables")
    known = ctx.workspace.table_ids()
    if ctx.table_ids is not None:
        known = [t for t in known if t in set(ctx.table_ids)]
    if len(known) <= 1:
        ctx.emit("retrieve", "end", "Using the only table" if known else "No tables",
                 detail=", ".join(_caption(ctx, t) for t in known)
                 or "the workspace has no tables yet",
                 retrieved=[{"type": "table", "table": t, "score": 1.0} for t in known])
        return {"tables": known}
    context = LexicalRetriever().retrieve(state["question"], ctx.workspace, budget=20)
    ranked = [hit.table for hit in context.tables if hit.table in set(known)]
    ranked += [t for t in known if t not in ranked]
    tables = ranked[:MAX_CANDIDATE_TABLES]
    matched = [t for t in tables if t in {hit.table for hit in context.tables}]
    others = [t for t in tables if t not in matched]
    detail = ("matching, best first: " + "; ".join(_caption(ctx, t, where=True) for t in matched)
              if matched else "no table matches the question's words")
    if others:
        detail += "; also tried: " + "; ".join(_caption(ctx, t, where=True) for t in others)
    ctx.emit("retrieve", "end", f"Found {plural(len(matched), 'matching table')}",
             detail=detail, retrieved=context.items[:20])
    return {"tables": tables}


def tree_navigate(state: AgentState, config: RunnableConfig) -> dict[str, Any]:
    """Ground the question in each candidate table's HO-Tree; plan on the best one."""
    ctx = ctx_of(config)
    ctx.emit("tree_navigate", "start", "Matching the question to rows and columns")
    tables = state.get("tables", [])
    missing = [t for t in tables if t not in ctx.frames]
    for frame in load_frames(ctx.workspace, missing):
        ctx.frames[frame.table] = frame
    analysis = analyse(state["sub_questions"][0] if state.get("sub_questions")
                       else state["question"])
    if len(state.get("sub_questions", [])) > 1:
        return _refuse(ctx, "tree_navigate", "several questions in one message need an LLM to "
                       "answer together; ask them one at a time offline")
    groundings = [ground(ctx.frames[t], analysis) for t in tables if t in ctx.frames]
    if not groundings:
        return _refuse(ctx, "tree_navigate", "there is no table to answer from; upload a file")
    across = explain_across(groundings, analysis)
    best = max(groundings, key=_grounding_rank)
    table = _grounding_table(best)
    if len(groundings) > 1 and not any(g.explained for g in groundings):
        # No table explains a single word: naming the one that happened to rank first would
        # suggest it was close.
        missing = ", ".join(f'"{w}"' for w in best.unexplained[:6])
        return _refuse(ctx, "tree_navigate",
                       f"the words {missing} do not match anything in any of the "
                       f"{len(groundings)} tables; an LLM could interpret them")
    outcome = plan(best, analysis)
    grounded = {"table": best.frame.table, "op": analysis.op}
    peers = [g for g in groundings if g is not best and _same_question_shape(g, best)]
    if peers and not isinstance(outcome, Refusal):
        names = ", ".join(sorted({g.frame.file_name + "/" + g.frame.sheet
                                  for g in [best, *peers]}))
        if not across:
            return _refuse(ctx, "tree_navigate", f"tables in {names} answer this equally well; "
                           "name the file or sheet, or ask across all of them")
        outcome = combine([outcome, *(plan(g, analysis) for g in peers)])
    if isinstance(outcome, Refusal):
        ctx.emit("tree_navigate", "end", "Could not tie the question to the table",
                 detail=outcome.reason, table=table)
        return {"outcome": "refused", "refusal": outcome.reason, "grounding": grounded}
    ctx.plan = outcome
    result = compute(outcome)
    if isinstance(result, Refusal):
        ctx.emit("tree_navigate", "end", "Found the cells, but cannot compute",
                 detail=result.reason, table=table)
        return {"outcome": "refused", "refusal": result.reason, "grounding": grounded}
    ctx.result = result
    frame = outcome.frame
    ctx.emit("tree_navigate", "end", f"Plan: {outcome.description}",
             detail=f"{frame.caption}; result by tree walk: {result.display}",
             table=payload(f"{frame.table}: rows used", result.columns, result.table_rows,
                           len(set(r for r, _ in result.cited)) or len(outcome.rows),
                           title=f"Rows used, from {_from(frame)}", frame=frame),
             cells=result_evidence(outcome, result)[:50])
    grounded.update({"rows": outcome.rows[:200], "columns": outcome.measure,
                     "description": outcome.description})
    return {"outcome": "planned", "grounding": grounded}


def _same_question_shape(a: Grounding, b: Grounding) -> bool:
    """Two tables that ground the question identically (monthly sheets, two reports)."""
    def shape(g: Grounding) -> tuple:
        return (_grounding_rank(g), sorted(v.text for v in g.values),
                sorted(m.label for m in g.attrs if m.full))
    return shape(a) == shape(b)


def _grounding_rank(g: Grounding) -> tuple[float, int]:
    return (g.coverage, len(g.explained))


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


def _caption(ctx: RunContext, table: str, where: bool = False) -> str:
    """A table as people know it ("financial.xlsx, sheet P&L"), not its id; with `where`, also
    its cells ("..., sheet P&L, A1:E8"), which tell apart two tables of one sheet."""
    if table in ctx.frames and not where:
        return ctx.frames[table].caption
    entry = ctx.workspace.table(table)
    caption = f"{entry.file_name}, sheet {entry.sheet}"
    return f"{caption}, {entry.region}" if where and entry.region else caption


def _refuse(ctx: RunContext, node: str, reason: str) -> dict[str, Any]:
    ctx.emit(node, "end", "Cannot answer offline", detail=reason)
    return {"outcome": "refused", "refusal": reason}


def llm_column_step(state: AgentState, config: RunnableConfig) -> dict[str, Any]:
    """Add derived number columns to an intermediate table (offline: the typed-value
    normalisers turn durations and ordinals into numbers; no LLM is needed for those)."""
    ctx = ctx_of(config)
    p = ctx.plan
    assert p is not None
    frame = p.frame
    ctx.emit("llm_column_step", "start", "Deriving numbers from text")
    keys = list(dict.fromkeys([*p.measure, *(k for _, k in p.operands)]))
    derived = [k for k in keys if frame.attr(k).derivable]
    carried = list(dict.fromkeys([*(f for f, _, _ in p.filters), *(
        [p.answer_attr] if p.answer_attr else [])]))
    carried = [k for k in carried if k not in keys]
    rows = sorted(set(p.rows) | {r for r, _ in p.operands})
    columns = ["_row", *carried, *keys, *(f"{k} (as written)" for k in derived)]
    table_rows = []
    for r in rows:
        values = [_sql_value(frame.value(r, k)) for k in carried]
        values += [(v.number if (v := frame.value(r, k)) is not None and v.measurable else None)
                   for k in keys]
        values += [(v.text if (v := frame.value(r, k)) is not None else None) for k in derived]
        table_rows.append([r, *values])
    ctx.step_tables += 1
    name = persist_step_table(ctx.workspace.db, ctx.run_id, ctx.step_tables, columns, table_rows)
    ctx.derived_source = name
    labels = ", ".join(frame.attr(k).label for k in derived)
    ctx.emit("llm_column_step", "end", f"Derived numbers for {labels}",
             detail="typed-value normalisers (durations in seconds, ordinals as numbers)",
             table=payload(name, columns, table_rows, title="Derived numbers", frame=frame))
    return {}


def _sql_value(value: Any) -> Any:
    if value is None:
        return None
    return value.number if value.numeric else value.text


def sql_step(state: AgentState, config: RunnableConfig) -> dict[str, Any]:
    """Re-derive the answer with SQL over the wide view; store the result as a step table."""
    ctx = ctx_of(config)
    p = ctx.plan
    assert p is not None
    step = sql_for(p, ctx.derived_source)
    ctx.emit("sql_step", "start", "Running SQL", sql=step.sql if step else None)
    if step is None:
        ctx.emit("sql_step", "end", "No wide view to query",
                 detail="the table is too wide for SQLite; the tree result stands alone")
        return {}
    try:
        allowed = set(step.tables or [ctx.derived_source or p.frame.wide])
        result = run_select(ctx.workspace.db_path, step.sql, step.params,
                            allowed_tables=allowed, cancel=ctx.cancel, time_limit_s=10)
    except AgentError as exc:
        ctx.error("sql_step", "The SQL step failed", type(exc).__name__, str(exc))
        return {}
    ctx.step_tables += 1
    name = persist_step_table(ctx.workspace.db, ctx.run_id, ctx.step_tables, result.columns,
                              [list(r) for r in result.rows])
    ctx.sql_result = {"columns": result.columns, "rows": [list(r) for r in result.rows],
                      "answer_columns": step.result_columns, "table": name}
    ctx.emit("sql_step", "end", f"SQL returned {plural(len(result.rows), 'row')}", sql=step.sql,
             detail=("with the values " + ", ".join(map(_shown_param, step.params))
                     if step.params else None),
             table=payload(name, result.columns, [list(r) for r in result.rows],
                           title="SQL result", frame=p.frame))
    return {}


def validate(state: AgentState, config: RunnableConfig) -> dict[str, Any]:
    """Check cited cells against the stored source and compare the two derivations."""
    ctx = ctx_of(config)
    ctx.emit("validate", "start", "Checking the answer against the source")
    p, result = ctx.plan, ctx.result
    assert p is not None and result is not None
    problems = _check_citations(ctx, result_evidence(p, result))
    question = (state.get("sub_questions") or [state["question"]])[0]
    unnamed = unnamed_across(p, set(tokens(question)))
    if unnamed is not None:
        problems.append(unnamed)
    agreement = _compare(ctx, result)
    if agreement is not None:
        problems.append(agreement)
    verified = not problems
    ctx.problems = problems
    cited = result_evidence(p, result)
    if verified:
        ctx.emit("validate", "end", "Verified", cells=cited[:50],
                 detail=f"{plural(len(cited), 'cited cell')} "
                        f"{'matches' if len(cited) == 1 else 'match'} the source; "
                        "the SQL step agrees")
    else:
        ctx.emit("validate", "end", "Could not verify", cells=cited[:50],
                 detail="; ".join(problems))
    return {"verified": verified}


def _check_citations(ctx: RunContext, cited: list[Evidence]) -> list[str]:
    """Every cited cell must exist at its ref in the cells table with the same text."""
    problems = []
    grids: dict[str, str] = {}  # table id -> grid id (a catalog row decodes its whole tree)
    for item in cited:
        if item.table not in grids:
            grids[item.table] = ctx.workspace.table(item.table).grid
        row, col = coordinate_to_tuple(item.ref.split(":")[0])  # a merged range: its anchor
        # By primary key (grid, row, col): a lookup, not a scan of a big sheet's cells.
        rows = list(ctx.workspace.db.query(
            "SELECT text FROM cells WHERE grid = ? AND row = ? AND col = ?",
            [grids[item.table], row, col]))
        if not rows or rows[0]["text"] != item.text:
            problems.append(f"{item.sheet}!{item.ref} does not hold {item.text!r}")
    return problems


def _compare(ctx: RunContext, result) -> str | None:
    """Compare the tree result with the SQL result; None when they agree."""
    sql = ctx.sql_result
    if sql is None:
        return None if ctx.plan.frame.wide is None else "the SQL step did not run"
    index = [sql["columns"].index(c) for c in sql["answer_columns"] if c in sql["columns"]]
    if not index:
        return "the SQL result has no answer column"
    got = [row[i] for row in sql["rows"] for i in index if row[i] is not None]
    want = result.values
    if len(got) != len(want) or not all(_same(a, b) for a, b in zip(sorted(got, key=str),
                                                                 sorted(want, key=str),
                                                                 strict=True)):
        return f"the tree walk gave {want} but SQL gave {got}"
    return None


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return abs(a - b) <= 1e-6 * max(1.0, abs(a), abs(b))
    return str(a).strip() == str(b).strip()


def answer(state: AgentState, config: RunnableConfig) -> dict[str, Any]:
    """Compose the answer from validated values (or say plainly why there is none)."""
    ctx = ctx_of(config)
    ctx.emit("answer", "start", "Writing the answer")
    p, result = ctx.plan, ctx.result
    if state.get("outcome") == "refused" or p is None or result is None:
        reason = state.get("refusal", "the question could not be tied to the tables")
        text = f"Needs an LLM: {reason}."
        ctx.emit("answer", "end", "No answer offline", detail=text)
        out = Answer(answer=None, error=StepError(kind="needs_llm", message=text),
                     steps=ctx.end_events(), llm_calls=ctx.llm_calls)
        return {"answer": out.to_json_dict(), "outcome": "refused",
                "messages": [AIMessage(content=text)]}
    verified = state.get("verified", False)
    confidence = p.confidence if verified else min(p.confidence, 0.3)
    cited = result_evidence(p, result)
    unit = result.unit
    text = result.display if verified else (
        f"Could not verify: {result.display} ({'; '.join(ctx.problems)})" if ctx.problems
        else f"Could not verify: {result.display}")
    ctx.emit("answer", "end", "Answer", detail=text, cells=cited[:50])
    out = Answer(answer=text if verified else None, values=result.values if verified else [],
                 unit=unit, evidence=cited, confidence=confidence,
                 confidence_label=confidence_label(confidence), steps=ctx.end_events(),
                 llm_calls=ctx.llm_calls,
                 error=None if verified else StepError(kind="not_verified", message=text))
    return {"answer": out.to_json_dict(), "outcome": "answered",
            "messages": [AIMessage(content=text)]}

