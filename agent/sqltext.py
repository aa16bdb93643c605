"""The pieces every operation's SQL form is built from (pure: builds text, runs nothing).

An operation of `agent/plan.py` restates its computation as one SELECT over the table's wide
view; executing it is an independent derivation of the answer that `validate` compares with
the tree walk.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from agent import row_runs

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
    digits: int | None = None
    """Decimals the answer is rounded to, here rather than by SQLite's ROUND: that rounds a
    value lying on a half (-100.005, stored as -100.00499…) away from zero where Python's
    round, which the tree walk uses, does not, and the two forms must agree."""

    def answer_values(self, columns: list[str], rows: list[list[object]]) -> list[object] | None:
        """The non-empty values of the answer columns in its result, row by row (rounded to
        `digits`); None when the result has none of them."""
        index = [columns.index(c) for c in self.result_columns if c in columns]
        if not index:
            return None
        values = [row[i] for row in rows for i in index if row[i] is not None]
        if self.digits is None:
            return values
        return [round(v, self.digits) if isinstance(v, float) else v for v in values]


def quote(name: str) -> str:
    """Quote an identifier for SQLite."""
    return '"' + name.replace('"', '""') + '"'


def is_number(column: str) -> str:
    """Whether the column's value is a number (text such as "-" is not zero)."""
    return f"typeof({quote(column)}) IN ('integer', 'real')"


def numeric(column: str) -> str:
    """The column's value when it is a number, else NULL."""
    return f"CASE WHEN {is_number(column)} THEN {quote(column)} END"


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
        elif f.other is not None:
            clauses.append(f"{numeric(f.column)} {f.op} {numeric(f.other)}")
        elif f.op == "between":
            clauses.append(f"{numeric(f.column)} BETWEEN ? AND ?")
            params.extend([f.value, f.high])
        else:
            clauses.append(f"{numeric(f.column)} {f.op} ?")
            params.append(f.value)
    return " AND ".join(clauses)


MIN_RANGE_ROWS = 16
MAX_RANGES = 64
"""A run of consecutive rows this long becomes one `BETWEEN`; more runs than this go into
the `IN` list (SQLite nests each OR one level deeper, and refuses past a depth of 1,000)."""


def rows_clause(rows: list[int], params: list[object]) -> str:
    """The rows a plan chose, as long runs of consecutive rows (`_row BETWEEN ...`) and the
    others (`_row IN (...)`): a thousand rows in a block are one range, not a thousand
    parameters for every check of the query to read."""
    # The rows of the ranges are never listed one by one (a whole-table aggregate's 20,000
    # rows are one or a few runs).
    runs = row_runs.runs(row_runs.ordered(rows))
    ranges = [(a, b) for a, b in runs if b - a + 1 >= MIN_RANGE_ROWS]
    if len(ranges) > MAX_RANGES:
        ranges = []
    kept = set(ranges)
    single = [r for a, b in runs if (a, b) not in kept for r in range(a, b + 1)]
    clauses = []
    for a, b in ranges:
        clauses.append('"_row" BETWEEN ? AND ?')
        params.extend([a, b])
    if single or not clauses:
        clauses.append(f'"_row" IN ({", ".join("?" * len(single))})')
        params.extend(single)
    return clauses[0] if len(clauses) == 1 else "(" + " OR ".join(clauses) + ")"
