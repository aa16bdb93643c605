"""Write a plan as one SELECT over the table's wide view (pure: builds text, runs nothing).

The SQL restates the plan's filters and aggregate in SQL, so executing it is an independent
derivation of the answer that `validate` compares with the in-memory computation.
"""

from __future__ import annotations

from dataclasses import dataclass

from agent.grounding import naming_path
from agent.solver import Plan


@dataclass(frozen=True)
class SqlStep:
    sql: str
    params: list[object]
    result_columns: list[str]
    """Columns whose values are the answer (compared with the in-memory result)."""
    tables: list[str] | None = None
    """The tables it reads, when more than the plan's own wide view."""


def quote(name: str) -> str:
    """Quote an identifier for SQLite."""
    return '"' + name.replace('"', '""') + '"'


def numeric(column: str) -> str:
    """The column's value when it is a number, else NULL (text such as "-" is not zero)."""
    q = quote(column)
    return f"CASE WHEN typeof({q}) IN ('integer', 'real') THEN {q} END"


def _where(p: Plan, params: list[object]) -> str:
    clauses = []
    for column, op, value in p.filters:
        q = quote(column)
        if op == "=":
            clauses.append(f"{q} = ?")
            params.append(value)
        elif op == "in":
            values = list(value)  # type: ignore[call-overload]
            clauses.append(f"{q} IN ({', '.join('?' * len(values))})")
            params.extend(values)
        elif op == "between":
            low, high = value  # type: ignore[misc]
            clauses.append(f"{numeric(column)} BETWEEN ? AND ?")
            params.extend([low, high])
        else:
            clauses.append(f"{numeric(column)} {op} ?")
            params.append(value)
    return " AND ".join(clauses)


def _rows_clause(rows: list[int], params: list[object]) -> str:
    params.extend(rows)
    return f'"_row" IN ({", ".join("?" * len(rows))})'


def sql_for(p: Plan, source: str | None = None) -> SqlStep | None:
    """Return the SQL step of a plan over the wide view (or over `source`, an intermediate
    table with the same column names, e.g. the column step's derived numbers); None when the
    table has no wide view."""
    if p.op == "combined":
        steps = [sql_for(part) for part in p.parts]
        if any(step is None for step in steps):
            return None
        sums = " + ".join(f'(SELECT {quote(step.result_columns[0])} FROM ({step.sql}))'
                          for step in steps)
        params = [param for step in steps for param in step.params]
        return SqlStep(f'SELECT {sums} AS "total"', params, ["total"],
                       tables=[part.frame.wide for part in p.parts])
    if source is None and p.frame.wide is None:
        return None
    table = quote(source or p.frame.wide)
    params: list[object] = []
    if p.op in ("lookup", "first", "last", "list"):
        key = p.measure[0] if p.measure else p.answer_attr
        assert key is not None
        where = _rows_clause(p.rows if p.op in ("lookup", "list") else
                             [p.rows[0] if p.op == "first" else p.rows[-1]], params)
        return SqlStep(f'SELECT "_row", {quote(key)} FROM {table} WHERE {where} ORDER BY "_row"',
                       params, [key])
    if p.op == "argcol":
        # One row, several columns: unpivot with UNION ALL, then take the best.
        parts = []
        for key in p.measure:
            parts.append(f"SELECT ? AS \"column\", {numeric(key)} AS \"value\" FROM {table} "
                         'WHERE "_row" = ?')
            params.extend([naming_path(p.frame.attr(key).path)[-1], p.rows[0]])
        order = "DESC" if p.direction == "max" else "ASC"
        return SqlStep(f'SELECT "column", "value" FROM ({" UNION ALL ".join(parts)}) '
                       f'WHERE "value" IS NOT NULL ORDER BY "value" {order} LIMIT 1', params,
                       ["column"])
    if p.op == "compare":
        [key] = p.measure
        assert p.answer_attr is not None
        order = "DESC" if p.direction == "max" else "ASC"
        where = _rows_clause(p.rows, params)
        return SqlStep(f'SELECT {quote(p.answer_attr)}, {quote(key)} FROM {table} WHERE {where} '
                       f"ORDER BY {numeric(key)} {order} LIMIT 1", params, [p.answer_attr])
    if p.op == "compare_count":
        assert p.answer_attr is not None
        order = "DESC" if p.direction == "max" else "ASC"
        where = _rows_clause(p.rows, params)
        return SqlStep(f'SELECT {quote(p.answer_attr)}, COUNT(*) AS "rows" FROM {table} '
                       f"WHERE {where} GROUP BY {quote(p.answer_attr)} ORDER BY \"rows\" {order} "
                       "LIMIT 1", params, [p.answer_attr])
    if p.op == "multi":
        where = _rows_clause(p.rows, params)
        cols = ", ".join(quote(k) for k in p.measure)
        return SqlStep(f'SELECT "_row", {cols} FROM {table} WHERE {where}', params, p.measure)
    if p.op == "row_avg":
        total = " + ".join(numeric(k) for k in p.measure)
        where = _rows_clause(p.rows, params)
        return SqlStep(f'SELECT "_row", ({total}) * 1.0 / {len(p.measure)} AS "avg" FROM {table} '
                       f"WHERE {where}", params, ["avg"])
    if p.op == "group_sum":
        total = " + ".join(f"COALESCE({numeric(k)}, 0)" for k in p.measure)
        where = _rows_clause(p.rows, params)
        cols = ", ".join(quote(k) for k in p.measure)
        return SqlStep(f'SELECT "_row", {cols}, {total} AS "total" FROM {table} WHERE {where}',
                       params, ["total"])
    if p.op in ("diff", "pct_change"):
        (r1, k1), (r2, k2) = p.operands
        a = f'(SELECT {numeric(k1)} FROM {table} WHERE "_row" = ?)'
        b = f'(SELECT {numeric(k2)} FROM {table} WHERE "_row" = ?)'
        params.extend([r1, r2] if p.op == "diff" else [r1, r2, r2])
        expr = f"{a} - {b}" if p.op == "diff" else f"ROUND(({a} - {b}) * 100.0 / {b}, 2)"
        if p.absolute:
            expr = f"ABS({expr})"
        return SqlStep(f'SELECT {expr} AS "{p.op}"', params, [p.op])
    where = _where(p, params)
    rows = _rows_clause(p.rows, params) if p.rows else "0"
    # The filters restate the question; the row list pins the rows the plan chose (stated
    # totals left out), so both must hold.
    condition = f"{where} AND {rows}" if where else rows
    if p.op == "count_distinct":
        assert p.answer_attr is not None
        return SqlStep(f'SELECT COUNT(DISTINCT {quote(p.answer_attr)}) AS "count" FROM {table} '
                       f"WHERE {condition}", params, ["count"])
    if p.op == "count":
        return SqlStep(f'SELECT COUNT(*) AS "count" FROM {table} WHERE {condition}', params,
                       ["count"])
    if p.op in ("sum", "avg", "max", "min"):
        [key] = p.measure
        fn = {"sum": "SUM", "avg": "AVG", "max": "MAX", "min": "MIN"}[p.op]
        return SqlStep(f'SELECT {fn}({numeric(key)}) AS "{p.op}", COUNT({numeric(key)}) AS "n" '
                       f"FROM {table} WHERE {condition}", params, [p.op])
    if p.op in ("argmax", "argmin"):
        [key] = p.measure
        assert p.answer_attr is not None
        fn = "MAX" if p.op == "argmax" else "MIN"
        inner_params = list(params)
        params.extend(inner_params)
        return SqlStep(
            f'SELECT "_row", {quote(p.answer_attr)}, {quote(key)} FROM {table} WHERE {condition} '
            f"AND {numeric(key)} = (SELECT {fn}({numeric(key)}) FROM {table} WHERE {condition}) "
            'ORDER BY "_row"', params, [p.answer_attr])
    return None
