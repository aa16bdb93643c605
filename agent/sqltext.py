"""The pieces every operation's SQL form is built from (pure: builds text, runs nothing).

An operation of `agent/plan.py` restates its computation as one SELECT over the table's wide
view; executing it is an independent derivation of the answer that `validate` compares with
the tree walk.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agent.plan import Filter


@dataclass(frozen=True)
class SqlStep:
    sql: str
    params: list[object]
    result_columns: list[str]
    """Columns whose values are the answer (compared with the tree walk's result)."""
    tables: list[str] | None = None
    """The tables it reads, when more than the plan's own wide view."""

    def answer_values(self, columns: list[str], rows: list[list[object]]) -> list[object] | None:
        """The non-empty values of the answer columns in its result, row by row; None when
        the result has none of them."""
        index = [columns.index(c) for c in self.result_columns if c in columns]
        if not index:
            return None
        return [row[i] for row in rows for i in index if row[i] is not None]


def quote(name: str) -> str:
    """Quote an identifier for SQLite."""
    return '"' + name.replace('"', '""') + '"'


def numeric(column: str) -> str:
    """The column's value when it is a number, else NULL (text such as "-" is not zero)."""
    q = quote(column)
    return f"CASE WHEN typeof({q}) IN ('integer', 'real') THEN {q} END"


def where(filters: list[Filter], params: list[object]) -> str:
    """The filters as SQL conditions joined by AND ("" when there are none)."""
    clauses = []
    for f in filters:
        q = quote(f.column)
        if f.op == "=":
            clauses.append(f"{q} = ?")
            params.append(f.value)
        elif f.op == "in":
            clauses.append(f"{q} IN ({', '.join('?' * len(f.values))})")
            params.extend(f.values)
        elif f.op == "between":
            clauses.append(f"{numeric(f.column)} BETWEEN ? AND ?")
            params.extend([f.value, f.high])
        else:
            clauses.append(f"{numeric(f.column)} {f.op} ?")
            params.append(f.value)
    return " AND ".join(clauses)


RUN = 3
"""Consecutive rows from which a BETWEEN is shorter than listing them."""


def rows_clause(rows: list[int], params: list[object]) -> str:
    """The rows a plan chose: `_row IN (...)`, with each run of consecutive rows as a BETWEEN
    (all 100,000 rows of a big table are one condition, not 100,000 parameters that the step
    shows and the answer carries)."""
    runs: list[list[int]] = []
    for r in sorted(set(rows)):
        if runs and r == runs[-1][-1] + 1:
            runs[-1].append(r)
        else:
            runs.append([r])
    single = [r for run in runs if len(run) < RUN for r in run]
    clauses = []
    for run in runs:
        if len(run) >= RUN:
            clauses.append('"_row" BETWEEN ? AND ?')
            params.extend([run[0], run[-1]])
    if single:
        clauses.append(f'"_row" IN ({", ".join("?" * len(single))})')
        params.extend(single)
    if not clauses:
        return "0"
    return clauses[0] if len(clauses) == 1 else "(" + " OR ".join(clauses) + ")"
