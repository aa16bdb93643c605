"""Model-written SQL: check it, run it, trace its values back to cells, repair it.

A `ModelSql` plan carries one SELECT the model wrote over the wide views of the tables its
prompt showed (joins of several included). The SQL step:

1. **Checks** it before it runs: the guard's text and parser layers (`agent.sqlguard`,
   `agent.sqlparse_guard`: one statement, SELECT or WITH, no CTE or alias shadowing a
   workspace table, no SQLite internals), then, with sqlglot's scopes over the views' real
   columns, every table and column it names must exist; an unknown one is named with the
   nearest real one (difflib).
2. **Runs** it through `run_select` (every layer: authorizer, time limit, row cap, watchdog)
   in a traced form: a plain SELECT gets each FROM table's `_row` appended, an aggregate gets
   its group keys appended and a second, provenance query (the same FROM, joins and WHERE)
   lists the `_row` of every source row of each group.
3. **Cites**: each result row maps to the sheet rows it came from, and each of those rows to
   the cells of the columns the query reads there (a row's label cell when it reads none).
   A query whose values cannot be traced (WITH, UNION, a subquery, a window function, more
   source rows than `MAX_SOURCE_ROWS`) is refused with that reason rather than answered
   uncited.
4. **Repairs**: any failure (parse, unknown name, guard refusal, SQLite error, time limit, row
   cap, no rows, no provenance) goes back to the model with its message, at most
   `MAX_REPAIRS` times and within the run's call budget. Every attempt is in the step's
   `sql_attempts`.

`verify` (the validate step) re-runs the traced query and re-derives what it can from the
cited cells in Python: a column read as it is must equal its cell, a SUM/AVG/MIN/MAX/COUNT of
one column must come out again from the typed numbers of its cells (SQLite counts text as 0
in a sum or an average; the typed cells do not), every answer value must be in the stored
step table, and where the plan vocabulary has the same computation (`typed_form`), that plan
is walked over the rows the query read as a second path and must agree. Nothing the model
writes is evaluated as code: SQL is parsed, checked and run by SQLite on a read-only
connection.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError
from sqlglot.optimizer.qualify import qualify
from sqlglot.optimizer.scope import build_scope, traverse_scope

from agent.errors import (
    AgentError,
    RowCap,
    SqlCancelled,
    SqlError,
    UnknownName,
    Untraceable,
)
from agent.events import LLMCallRecord, SqlAttempt, StepError, with_calls
from agent.frame import Frame, TableRef
from agent.payloads import payload
from agent.plan import Aggregate, Count, CountDistinct, Lookup, ModelSql, Plan, Refusal
from agent.results import Cell, Result, fmt, number
from agent.sqlguard import check_select, run_select
from agent.sqlparse_guard import check_names
from agent.state import SqlAnswer
from agent.steptables import load_step_table, persist_step_table
from agent.text import plural

MAX_REPAIRS = 2
"""Times a failed query goes back to the model (each one a call within the run's budget)."""
TIME_LIMIT_S = 10.0
"""Seconds one model-written query (and its provenance query) may run."""
MAX_RESULT_ROWS = 1000
"""Rows a model-written query may return: an answer is never longer; a cross join is."""
MAX_SOURCE_ROWS = 10_000
"""Source rows an aggregate may be traced to (and cited)."""
CONFIDENCE = 0.6
"""A model-written query is checked against its cells, but nothing independent agrees with
its choice of rows and columns: medium at best."""
_ROW = "_row"
_ROW_PREFIX = "_row_"
_KEY_PREFIX = "_key_"
_AGGREGATES = (exp.Sum, exp.Avg, exp.Min, exp.Max, exp.Count)


@dataclass(frozen=True)
class View:
    """A table the query may read: its frame and the real names of its wide view's columns
    (casefolded name -> name: SQLite compares names without case)."""

    frame: Frame
    name: str
    columns: dict[str, str]


@dataclass(frozen=True)
class Repair:
    """What the model answered when sent a failed query back."""

    sql: str | None
    record: LLMCallRecord | None
    problem: str | None = None
    """Why there is no corrected query (the model refused, failed or ran out of calls)."""
    phrasing: str | None = None


@runtime_checkable
class SqlRepairer(Protocol):
    """A planner that can send a failed query back to its model (`LLMPlanner`)."""

    def repair_sql(self, sql: str, error: str) -> Repair:
        """Return the model's corrected query for `sql`, which failed with `error`."""
        ...


@dataclass(frozen=True)
class _Output:
    """One column of the model's result: a cell read as it is (`column`), an aggregate of one
    column or of the rows (`aggregate`), or anything else (`computed`)."""

    kind: str
    alias: str = ""
    key: str = ""
    function: str = ""
    distinct: bool = False


@dataclass
class Traced:
    """The model's query in its traced form, and how to read the provenance back."""

    statement: str
    executed: str
    sources: list[tuple[str, View]]
    """(alias, view) of each FROM item, in order."""
    outputs: list[_Output]
    cited_keys: dict[str, list[str]]
    """Per alias: the columns the query reads (the cells cited in each source row)."""
    provenance: str | None = None
    """For an aggregate: the query listing each source row's group keys and `_row`s."""
    groups: int = 0
    untraceable: str | None = None
    """Why the values cannot be traced (the query then runs as written, and is refused)."""


@dataclass
class Ran:
    """A traced query's result: its columns and rows, and each row's source rows."""

    columns: list[str]
    rows: list[list[Any]]
    sources: list[list[dict[str, int | None]]] = field(default_factory=list)
    """Per result row: each combination of source rows (alias -> sheet row) behind it."""


def views_of(plan: ModelSql, frames: Any) -> dict[str, View]:
    """The views a model's query may read: the wide views of the tables its prompt showed."""
    out: dict[str, View] = {}
    for ref in plan.tables:
        frame = frames(ref)
        if frame.wide is None:
            continue
        columns = [_ROW, *(a.key for a in frame.attrs)]
        out[frame.wide.casefold()] = View(frame, frame.wide, {c.casefold(): c for c in columns})
    return out


def workspace_names(db: Any) -> frozenset[str]:
    """Every table, view and module name of the workspace, casefolded (what a CTE or an alias
    may not be named after)."""
    names = {row[0] for row in db.execute("SELECT name FROM sqlite_master")}
    names.update(row[0] for row in db.execute("SELECT name FROM pragma_module_list"))
    return frozenset(n.casefold() for n in names)


# --- checking ----------------------------------------------------------------------------------

def check(sql: str, views: dict[str, View], names: frozenset[str]) -> Traced:
    """Check a model's query against the workspace and plan its traced form.

    Raises `UnsafeSql`/`SqlError` (the guard's own messages) and `UnknownName` naming the
    nearest real table or column."""
    statement = check_select(sql)
    named = check_names(statement, names)
    for table in sorted(named):
        if table not in views:
            raise UnknownName(f"There is no table {table!r} to read"
                              f"{_nearest(table, [v.name for v in views.values()])}. The "
                              f"tables are {_listing(views)}.")
    try:
        tree = sqlglot.parse_one(statement, read="sqlite")
        schema = {v.name: {c: "TEXT" for c in v.columns.values()} for v in views.values()}
        qualified = qualify(tree.copy(), schema=schema, dialect="sqlite",
                            validate_qualify_columns=False, quote_identifiers=True)
    except SqlglotError as exc:
        raise SqlError(f"The query could not be read as SQLite SQL: {_first_line(exc)}"
                       ) from exc
    # qualify lowercases names (SQLite ignores case); messages quote them as written.
    written = {i.name.casefold(): i.name for i in tree.find_all(exp.Identifier)}
    _check_columns(qualified, views, written)
    return _trace(statement, tree, qualified, views)


def _check_columns(tree: exp.Expression, views: dict[str, View], written: dict[str, str]
                   ) -> None:
    for scope in traverse_scope(tree):
        tables = {alias: views[s.name.casefold()] for alias, s in scope.sources.items()
                  if isinstance(s, exp.Table) and s.name.casefold() in views}
        for column in scope.columns:
            name = written.get(column.name, column.name)
            if column.table:
                if not _in_scope(scope, column.table):
                    raise UnknownName(f"The query uses {column.table}.{name}, but no table "
                                      f"or alias {column.table!r} is in its FROM clause.")
                view = tables.get(column.table)
                if view is not None and name.casefold() not in view.columns:
                    raise UnknownName(f"{view.name} has no column {name!r}"
                                      f"{_nearest(name, list(view.columns.values()))}.")
            elif tables and len(tables) == len(scope.sources) and not _is_alias(scope, name):
                holders = [a for a, v in tables.items() if name.casefold() in v.columns]
                if len(holders) > 1:
                    raise SqlError(f"The column {name!r} is in several tables of the query; "
                                   f"name its table: {holders[0]}.\"{name}\".")
                real = [c for v in tables.values() for c in v.columns.values()]
                raise UnknownName(f"No table of the query has a column {name!r}"
                                  f"{_nearest(name, real)} (text values are written in single "
                                  "quotes).")


def _in_scope(scope: Any, alias: str) -> bool:
    """Whether a table alias is known here or in an enclosing query (a correlated subquery
    reads its outer query's tables)."""
    while scope is not None:
        if alias in scope.sources:
            return True
        scope = scope.parent
    return False


def _is_alias(scope: Any, name: str) -> bool:
    select = scope.expression
    # qualify names every projection (`"x" AS "x"`): only an alias of something else counts.
    return isinstance(select, exp.Select) and name.casefold() in {
        e.alias.casefold() for e in select.expressions if isinstance(e, exp.Alias)
        and not (isinstance(e.this, exp.Column) and e.this.name.casefold() == e.alias.casefold())}


def _nearest(name: str, candidates: Sequence[str]) -> str:
    by_fold = {c.casefold(): c for c in candidates}
    close = difflib.get_close_matches(name.casefold(), list(by_fold), n=1, cutoff=0.5)
    return f"; the nearest is {by_fold[close[0]]!r}" if close else ""


def _listing(views: dict[str, View]) -> str:
    return ", ".join(repr(v.name) for v in views.values()) or "none"


def _first_line(exc: Exception) -> str:
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__


# --- the traced form ---------------------------------------------------------------------------

def _trace(statement: str, tree: exp.Expression, q: exp.Expression,
           views: dict[str, View]) -> Traced:
    """Plan how the query's values are traced to cells (or say why they cannot be)."""
    base = Traced(statement, statement, [], [], {})
    why = _untraceable(q, views)
    if why is not None:
        base.untraceable = why
        return base
    assert isinstance(q, exp.Select) and isinstance(tree, exp.Select)
    scope = build_scope(q)
    assert scope is not None
    sources = [(alias, views[s.name.casefold()]) for alias, s in scope.sources.items()]
    cited: dict[str, list[str]] = {alias: [] for alias, _ in sources}
    by_alias = dict(sources)
    for column in q.find_all(exp.Column):
        view = by_alias.get(column.table)
        key = view.columns.get(column.name.casefold()) if view else None
        if key is not None and key != _ROW and key not in cited[column.table]:
            cited[column.table].append(key)
    outputs = [_output(e.unalias(), by_alias) for e in q.expressions]
    group = q.args.get("group")
    aggregate = bool(group) or any(e.find(exp.AggFunc) for e in q.expressions)
    distinct = bool(q.args.get("distinct"))
    rows = [exp.column(_ROW, table=alias, quoted=True).as_(f"{_ROW_PREFIX}{i}", quoted=True)
            for i, (alias, _) in enumerate(sources)]
    if not aggregate and not distinct:
        executed = tree.copy().select(*rows, copy=False)
        return Traced(statement, executed.sql("sqlite"), sources, outputs, cited)
    if aggregate:
        _check_bare_columns(q, group.expressions if group else [])
    keys = [e.copy() for e in group.expressions] if group else (
        [e.unalias().copy() for e in q.expressions] if distinct and not aggregate else [])
    named_keys = [k.as_(f"{_KEY_PREFIX}{i}", quoted=True) for i, k in enumerate(keys)]
    executed = tree.copy().select(*named_keys, copy=False) if named_keys else tree.copy()
    provenance = exp.Select(expressions=[k.copy() for k in named_keys] + rows)
    provenance.set("from_", q.args["from_"].copy())
    if q.args.get("joins"):
        provenance.set("joins", [j.copy() for j in q.args["joins"]])
    if q.args.get("where"):
        provenance.set("where", q.args["where"].copy())
    return Traced(statement, executed.sql("sqlite"), sources, outputs, cited,
                  provenance=provenance.sql("sqlite"), groups=len(keys))


def _check_bare_columns(q: exp.Select, keys: list[exp.Expression]) -> None:
    """Refuse an output column of an aggregate query that is neither grouped by nor inside an
    aggregate: SQLite takes it from one row of the group (the MAX row, or any), which no cell
    of the group backs as a whole."""
    grouped = {k.sql("sqlite") for k in keys}
    for output in q.expressions:
        expr = output.unalias()
        if expr.sql("sqlite") in grouped:
            continue
        for column in expr.find_all(exp.Column):
            inside = column.find_ancestor(exp.AggFunc)
            if (inside is None or inside is q) and column.sql("sqlite") not in grouped:
                raise Untraceable(
                    f"The query outputs {column.name!r} beside an aggregate without grouping "
                    "by it, so SQLite takes it from one arbitrary row; to name the row with "
                    "the highest or lowest value, ORDER BY that value and LIMIT 1 instead.")


def _untraceable(q: exp.Expression, views: dict[str, View]) -> str | None:
    if not isinstance(q, exp.Select):
        return ("its result combines several queries (UNION, INTERSECT or EXCEPT); write one "
                "SELECT")
    if q.args.get("with"):
        return "it uses WITH; write one SELECT over the views, joining them directly"
    if any(s is not q for s in q.find_all(exp.Select)):
        return "it uses a subquery; write one SELECT over the views, joining them directly"
    if q.find(exp.Window):
        return "it uses a window function (OVER); use GROUP BY, ORDER BY and LIMIT instead"
    scope = build_scope(q)
    if scope is None or not scope.sources:
        return "it reads no table, so none of its values comes from a cell"
    for source in scope.sources.values():
        if not (isinstance(source, exp.Table) and source.name.casefold() in views):
            return "it reads something other than the tables' views"
    return None


def _output(e: exp.Expression, by_alias: dict[str, View]) -> _Output:
    if isinstance(e, exp.Column) and e.table in by_alias:
        key = by_alias[e.table].columns.get(e.name.casefold(), "")
        return _Output("column", e.table, key) if key and key != _ROW else _Output("computed")
    if isinstance(e, _AGGREGATES):
        inner = e.this
        distinct = isinstance(inner, exp.Distinct)
        if distinct:
            inner = inner.expressions[0] if len(inner.expressions) == 1 else None
        function = type(e).__name__.lower()
        if isinstance(inner, exp.Star) and function == "count":
            return _Output("aggregate", function="count_rows")
        if isinstance(inner, exp.Column) and inner.table in by_alias:
            key = by_alias[inner.table].columns.get(inner.name.casefold(), "")
            if key and key != _ROW:
                return _Output("aggregate", inner.table, key, function, distinct)
    return _Output("computed")


# --- running -----------------------------------------------------------------------------------

def run(db_path: Any, traced: Traced, views: dict[str, View], cancel: Any) -> Ran:
    """Run a checked query in its traced form; return its result and each row's sources.

    Raises the guard's errors, `RowCap`, `UnknownName`-free `SqlError` for no rows, and
    `Untraceable` when the values cannot be traced (after running it as written, so its own
    errors come first)."""
    allowed = {v.name for v in views.values()}
    selected = run_select(db_path, traced.executed, allowed_tables=allowed, cancel=cancel,
                          time_limit_s=TIME_LIMIT_S, max_rows=MAX_RESULT_ROWS)
    if selected.truncated:
        raise RowCap(f"The query returned more than {MAX_RESULT_ROWS:,} rows (the row cap) "
                     "and was stopped; an answer needs fewer: filter, group or aggregate.")
    if traced.untraceable is not None:
        raise Untraceable(f"The query ran, but its values cannot be traced back to the cells "
                          f"they came from: {traced.untraceable}.")
    if not selected.rows:
        raise SqlError("The query returned no rows; check its conditions against the cell "
                       "texts shown (exact spelling and case).")
    rows = [list(r) for r in selected.rows]
    ran = Ran(list(selected.columns), rows)
    n = len(traced.sources)
    if traced.provenance is None:
        ran.sources = [[{alias: row[len(row) - n + i]
                         for i, (alias, _) in enumerate(traced.sources)}] for row in rows]
        return ran
    found = run_select(db_path, traced.provenance, allowed_tables=allowed, cancel=cancel,
                       time_limit_s=TIME_LIMIT_S, max_rows=MAX_SOURCE_ROWS)
    if found.truncated:
        raise Untraceable(f"The query reads more than {MAX_SOURCE_ROWS:,} source rows, too "
                          "many to cite; narrow it.")
    groups: dict[tuple[Any, ...], list[dict[str, int | None]]] = {}
    k = traced.groups
    for prov in found.rows:
        groups.setdefault(tuple(prov[:k]), []).append(
            {alias: prov[k + i] for i, (alias, _) in enumerate(traced.sources)})
    for row in rows:
        key = tuple(row[len(row) - k:]) if k else ()
        ran.sources.append(groups.get(key, []))
    return ran


def model_columns(traced: Traced, ran: Ran) -> int:
    """How many of the result's columns are the model's own (the rest trace them)."""
    return len(ran.columns) - (traced.groups if traced.provenance is not None
                               else len(traced.sources))


def cite(traced: Traced, ran: Ran) -> list[tuple[TableRef, Cell]]:
    """The cells behind the result, each with its table; raises `Untraceable` when a result
    row has no source row or a source row is not a data row of its table."""
    by_alias = dict(traced.sources)
    out: list[tuple[TableRef, Cell]] = []
    seen: set[tuple[str, int, str]] = set()
    for i, combos in enumerate(ran.sources):
        if not combos:
            raise Untraceable(f"result row {i + 1} could not be traced to any source row")
        for combo in combos:
            for alias, row in combo.items():
                if row is None:
                    continue  # an outer join's missing side reads no cell
                frame = by_alias[alias].frame
                if row not in frame.row_paths:
                    raise Untraceable(f"sheet row {row} is not a data row of {frame.caption}")
                keys = traced.cited_keys[alias] or [a.key for a in frame.levels[-1:]]
                for key in keys:
                    if (frame.table, row, key) not in seen and frame.value(row, key) is not None:
                        seen.add((frame.table, row, key))
                        out.append((frame.ref, (row, key)))
    if not out:
        raise Untraceable("the query's result reads no non-empty cell")
    return out


def result_of(traced: Traced, ran: Ran, plan: ModelSql) -> Result:
    """The answer: the model's output values, row by row, with the cells they came from."""
    cited = cite(traced, ran)
    width = model_columns(traced, ran)
    keep = [i for i, c in enumerate(ran.columns[:width]) if c.casefold() != _ROW]
    by_alias = dict(traced.sources)
    values: list[str | float | int] = []
    shown: list[str] = []
    for row, combos in zip(ran.rows, ran.sources, strict=True):
        for i in keep:
            value = row[i]
            if value is None:
                continue
            if not isinstance(value, (str, int, float)):
                raise SqlError("The query returns binary data; an answer is text or numbers.")
            values.append(number(value) if isinstance(value, float) else value)
            out = traced.outputs[i] if i < len(traced.outputs) else _Output("computed")
            cell = None
            if out.kind == "column" and len(combos) == 1 and combos[0].get(out.alias):
                cell = by_alias[out.alias].frame.value(combos[0][out.alias], out.key)
            shown.append(cell.text if cell is not None else (
                fmt(number(value)) if isinstance(value, (int, float)) else str(value)))
    if not values:
        raise SqlError("The query's answer columns are all empty (NULL); return the cells or "
                       "numbers that answer the question.")
    display = ", ".join(shown[:20]) + (f", … ({len(shown)} values)" if len(shown) > 20 else "")
    own = [c for ref, c in cited if ref == plan.table]
    return Result(values=values, display=display, cited=own, cited_in=cited)


# --- the SQL step ------------------------------------------------------------------------------

def sql_step(ctx: Any, state: dict[str, Any]) -> dict[str, Any]:
    """Run the plan's query, repairing it with the model on failure; store its result."""
    plan: ModelSql = state["plan"]
    views = views_of(plan, ctx.frames)
    names = workspace_names(ctx.workspace.db)
    repairer = ctx.planner if isinstance(ctx.planner, SqlRepairer) else None
    sql, phrasing = plan.query, state.get("phrasing")
    attempts: list[SqlAttempt] = []
    calls: list[LLMCallRecord] = []
    ctx.trace.emit("sql_step", "start", "Running the model's SQL", sql=sql)
    stopped: str | None = None
    while True:
        try:
            traced = check(sql, views, names)
            ran = run(ctx.workspace.db_path, traced, views, ctx.cancel)
            result = result_of(traced, ran, plan)
            break
        except SqlCancelled:
            ctx.check()
            raise
        except AgentError as exc:
            error = StepError(kind=exc.kind, message=str(exc))
            attempts.append(SqlAttempt(sql=sql, error=error))
            ctx.trace.emit("sql_step", "progress", f"Attempt {len(attempts)} failed", sql=sql,
                           error=error)
        if len(attempts) > MAX_REPAIRS:
            break
        if repairer is None:
            stopped = "no model to repair it"
            break
        ctx.check()
        repair = repairer.repair_sql(sql, attempts[-1].error.message)
        if repair.record is not None:
            calls.append(repair.record)
        if repair.sql is None:
            stopped = repair.problem or "the model gave no corrected query"
            break
        sql, phrasing = repair.sql, repair.phrasing or phrasing
    usage = with_calls(state.get("llm_usage") or {}, calls)
    shown = _attempts_text(attempts)
    if len(attempts) > MAX_REPAIRS or stopped is not None:
        last = attempts[-1].error
        assert last is not None
        why = f"; {stopped}" if stopped else ""
        ctx.trace.emit("sql_step", "error", "The model's SQL could not be used",
                       sql=sql, error=last, sql_attempts=attempts, llm=calls or None,
                       detail=f"{shown}{why}")
        return {"outcome": "refused", "llm_usage": usage,
                "refusal": f"the model's SQL could not be used after "
                           f"{plural(len(attempts), 'attempt')}: {last.message}"}
    attempts.append(SqlAttempt(sql=sql, rows=len(ran.rows)))
    written = state.get("step_tables", [])
    name = persist_step_table(ctx.workspace.db, state["run_id"], len(written) + 1, ran.columns,
                              ran.rows)
    first = traced.sources[0][1].frame
    ctx.trace.emit("sql_step", "end", f"SQL returned {plural(len(ran.rows), 'row')}", sql=sql,
                   detail=(f"{shown}; " if shown else "") + "traced to "
                          + plural(len(result.cited_in), "cited cell"),
                   table=payload(name, ran.columns, ran.rows, title="SQL result", frame=first),
                   sql_attempts=attempts, llm=calls or None)
    return {"step_tables": [*written, name], "result": result, "llm_usage": usage,
            "plan": plan.model_copy(update={"query": sql}), "phrasing": phrasing,
            "sql_answer": SqlAnswer(table=name, values=result.values)}


def _attempts_text(attempts: list[SqlAttempt]) -> str:
    failed = [a for a in attempts if a.error is not None]
    return "; ".join(f"attempt {i + 1} failed: {a.error.message}"
                     for i, a in enumerate(failed) if a.error is not None)


# --- validate ----------------------------------------------------------------------------------

def verify(ctx: Any, plan: ModelSql, result: Result, step_table: str | None
           ) -> tuple[list[str], str]:
    """Re-run the traced query and check its values against the cited cells; return the
    problems and what was checked, in words."""
    views = views_of(plan, ctx.frames)
    try:
        traced = check(plan.query, views, workspace_names(ctx.workspace.db))
        ran = run(ctx.workspace.db_path, traced, views, ctx.cancel)
        again = result_of(traced, ran, plan)
    except SqlCancelled:
        ctx.check()
        raise
    except AgentError as exc:
        return [f"the model's SQL did not run again: {exc}"], ""
    problems: list[str] = []
    if again.values != result.values or _cells(again) != _cells(result):
        problems.append("the model's SQL gave another result when run again")
    if step_table is None:
        problems.append("the SQL step stored no result")
    else:
        _, stored, _ = load_step_table(ctx.workspace.db, step_table, MAX_RESULT_ROWS)
        present = [v for row in stored for v in row if v is not None]
        missing = [v for v in result.values if not any(_same(v, s) for s in present)]
        if missing:
            problems.append(f"{missing[:3]} are not in the executed step's result")
    rederived, unchecked = _rederive(traced, ran, problems)
    said = [f"every value traced to {plural(len(result.cited_in), 'cited cell')}"]
    typed = typed_form(traced, ran, plan)
    if typed is not None:
        walk = typed.walk(ctx.frames)
        if isinstance(walk, Refusal):
            problems.append(f"the typed plan of the same computation ({typed.description}) "
                            f"refuses: {walk.reason}")
        elif len(walk.result.values) != len(result.values) or not all(
                _same(a, b) for a, b in zip(walk.result.values, result.values, strict=True)):
            problems.append(f"the typed plan of the same computation ({typed.description}) "
                            f"gives {walk.result.values}, SQL {result.values}")
        else:
            said.append(f"the typed plan ({typed.description}) gives the same")
    if rederived:
        said.append(f"{plural(rederived, 'value')} re-derived from the cells")
    if unchecked:
        said.append(f"{plural(unchecked, 'computed value')} computed by SQL alone")
    return problems, "; ".join(said)


def typed_form(traced: Traced, ran: Ran, plan: ModelSql) -> Plan | None:
    """The same computation in the plan vocabulary, over the rows the query read, when there
    is one (one table, one output: a cell, a sum, average, highest, lowest or count), for
    validate to walk as a second path; None otherwise."""
    width = model_columns(traced, ran)
    if len(traced.sources) != 1 or width != 1 or len(ran.rows) != 1:
        return None
    [(alias, view)] = traced.sources
    [out] = traced.outputs
    rows = sorted({r for combo in ran.sources[0] if (r := combo.get(alias)) is not None},
                  key=view.frame.rows.index)
    common = {"table": view.frame.ref, "rows": rows, "confidence": plan.confidence}
    if out.kind == "column" and len(rows) == 1:
        return Lookup(column=out.key, description=f"read {out.key}", **common)
    if out.kind != "aggregate" or traced.provenance is None or traced.groups:
        return None
    if out.function == "count_rows":
        return Count(description=f"count {plural(len(rows), 'row')}", **common)
    if out.function == "count" and out.distinct:
        return CountDistinct(column=out.key, description=f"count the distinct {out.key}",
                             **common)
    if out.function in ("sum", "avg", "max", "min") and not out.distinct:
        return Aggregate(op=out.function, column=out.key,
                         description=f"the {out.function} of {out.key} over "
                                     f"{plural(len(rows), 'row')}", **common)
    return None


def _cells(result: Result) -> set[tuple[str, int, int, str]]:
    return {(ref.id, ref.version, cell[0], cell[1]) for ref, cell in result.cited_in}


def _rederive(traced: Traced, ran: Ran, problems: list[str]) -> tuple[int, int]:
    """Check each output value against its cells; return (values re-derived, computed by SQL
    only). A mismatch is added to `problems`."""
    by_alias = dict(traced.sources)
    checked = unchecked = 0
    width = model_columns(traced, ran)
    for row, combos in zip(ran.rows, ran.sources, strict=True):
        for i, out in enumerate(traced.outputs[:width]):
            got = row[i]
            if out.kind == "computed":
                unchecked += got is not None
                continue
            if out.kind == "column":
                if got is None:
                    continue
                for combo in combos:
                    cell_row = combo.get(out.alias)
                    value = by_alias[out.alias].frame.value(cell_row, out.key) \
                        if cell_row is not None else None
                    want = None if value is None else (
                        number(value.number) if value.numeric else value.text)
                    if want is None or not _same(got, want):
                        problems.append(f"{out.key} of sheet row {cell_row} reads {want!r}, "
                                        f"but SQL gave {got!r}")
                        return checked, unchecked
                checked += 1
                continue
            want = _aggregate(out, combos, by_alias)
            if not _same(got, want):
                problems.append(f"the {out.function} of {out.key or 'the rows'} from its typed "
                                f"cells is {want!r}, but SQL gave {got!r} (SQLite counts a "
                                "text cell as 0 in a sum or an average)")
                return checked, unchecked
            checked += 1
    return checked, unchecked


def _aggregate(out: _Output, combos: list[dict[str, int | None]],
               by_alias: dict[str, View]) -> Any:
    if out.function == "count_rows":
        return len(combos)
    frame = by_alias[out.alias].frame
    cells = [frame.value(c[out.alias], out.key) for c in combos if c.get(out.alias) is not None]
    present = [v for v in cells if v is not None]
    if out.function == "count":
        return len({v.text for v in present}) if out.distinct else len(present)
    numbers = [v.number for v in present if v.numeric]
    if out.distinct:
        numbers = list(dict.fromkeys(numbers))
    if not numbers:
        return None
    if out.function == "sum":
        return number(round(sum(numbers), 6))
    if out.function == "avg":
        return sum(numbers) / len(numbers)
    return max(numbers) if out.function == "max" else min(numbers)


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return abs(a - b) <= 1e-6 * max(1.0, abs(a), abs(b))
    return a is not None and b is not None and str(a).strip() == str(b).strip()
