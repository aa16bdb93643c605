"""The parser layer of the SQL guard: what a query names, read from its syntax tree (sqlglot).

SQLite's authorizer reports a read inside a CTE or a FROM-subquery with `source` set to the
CTE's name, so a CTE named after an allowed table (`WITH "t__wide" AS (SELECT * FROM cells)`)
looks like a read of that table. The guard therefore parses the query first and refuses any
CTE or alias that shadows a name of the workspace, SQLite's internal tables and table-valued
pragmas (with a message that says what they are), and `printf`/`format` calls whose width or
precision could build a huge string: one such call runs inside a single VM step, where neither
the progress handler nor an interrupt reaches it. `agent.sqlguard.run_select` runs this layer
before the authorizer, the limits and the watchdog.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import sqlglot
import sqlglot.dialects.sqlite  # noqa: F401  (see below)
from sqlglot import exp
from sqlglot.errors import SqlglotError

from agent.errors import SqlError, UnsafeSql

MAX_FORMAT_WIDTH = 100
"""Largest width or precision a `printf`/`format` conversion may ask for (`%.100f`)."""
_FORMAT_FUNCTIONS = frozenset({"printf", "format"})
_CONVERSION = re.compile(r"%[-+ 0#,!]*(\*|\d+)?(?:\.(\*|\d+))?")
"""A printf conversion's flags, width and precision (either may be `*`: read from an argument)."""
_INTERNAL_TABLES = ("sqlite_", "pragma_", "dbstat")
"""SQLite's own tables and table-valued pragmas: the database's internals, never report data."""


def check_names(statement: str, names: frozenset[str]) -> set[str]:
    """Refuse a query whose CTEs or aliases shadow a workspace name (`names`, casefolded),
    that reads SQLite's internals, or that formats an unbounded string; return the tables it
    names in FROM and JOIN (casefolded, its own CTEs left out), for the caller to check
    against the tables it may read.

    Raises `SqlError` when the query cannot be parsed and `UnsafeSql` with a plain reason
    otherwise.
    """
    tree = _parse(statement)
    ctes = {cte.alias_or_name.casefold() for cte in tree.find_all(exp.CTE)}
    for cte in tree.find_all(exp.CTE):
        if cte.alias_or_name.casefold() in names:
            raise UnsafeSql(f"The query names a CTE {cte.alias_or_name!r} after a table of this "
                            "workspace, which would hide the real one; give it another name.")
    for alias in tree.find_all(exp.TableAlias):
        aliased = alias.parent
        same = isinstance(aliased, exp.Table) and aliased.name.casefold() == alias.name.casefold()
        if alias.name.casefold() in names and not same:
            raise UnsafeSql(f"The query uses {alias.name!r}, a table of this workspace, as an "
                            "alias for something else; give the alias another name.")
    for name in _sources(tree):
        if name.casefold().startswith(_INTERNAL_TABLES):
            raise UnsafeSql(f"{name} is SQLite's information about the database itself, not "
                            "report data; the tables and their columns are listed with the "
                            "question.")
    for call in tree.find_all(exp.Func):
        if _function_name(call) in _FORMAT_FUNCTIONS:
            _check_format(call)
    return {table.name.casefold() for table in tree.find_all(exp.Table)
            if table.name and table.name.casefold() not in ctes}


def _parse(statement: str) -> exp.Expression:
    # sqlglot imports a dialect's module at its first parse: imported with this module
    # instead, so that a new process's first question does not pay it (about 10 ms here).
    try:
        trees = [t for t in sqlglot.parse(statement, read="sqlite") if t is not None]
    except SqlglotError as exc:
        raise SqlError(f"The query could not be read as SQLite SQL: {_first_line(exc)}") from exc
    if len(trees) != 1 or not isinstance(trees[0], exp.Query):
        raise UnsafeSql("Only one read-only query (SELECT or WITH) is allowed.")
    return trees[0]


def _first_line(exc: Exception) -> str:
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__


def _sources(tree: exp.Expression) -> Iterator[str]:
    """Every table or table-valued function the query reads from, by name."""
    for table in tree.find_all(exp.Table):
        if table.name:
            yield table.name
    for call in tree.find_all(exp.Func):
        if isinstance(call.parent, (exp.Table, exp.From)):
            yield _function_name(call)


def _function_name(call: exp.Func) -> str:
    return (call.name if isinstance(call, exp.Anonymous) else call.sql_name()).casefold()


def _check_format(call: exp.Func) -> None:
    """Allow `printf`/`format` only with a literal format whose widths are small numbers."""
    pattern = call.this if not isinstance(call, exp.Anonymous) else (
        call.expressions[0] if call.expressions else None)
    name = _function_name(call)
    if not (isinstance(pattern, exp.Literal) and pattern.is_string):
        raise UnsafeSql(f"{name}() needs a literal format string here (such as '%.2f').")
    for conversion in _CONVERSION.finditer(pattern.this):
        for size in conversion.groups():
            if size == "*":
                raise UnsafeSql(f"{name}() may not take its width from an argument ('*'); "
                                f"write the width in the format, at most {MAX_FORMAT_WIDTH}.")
            if size is not None and int(size) > MAX_FORMAT_WIDTH:
                raise UnsafeSql(f"{name}() width {size} is too large; at most "
                                f"{MAX_FORMAT_WIDTH} is allowed.")
