"""Step tables: the stored result of each step of a run, `step_<run_id>_<n>` in workspace.sqlite.

The application, not the model, writes them (CONTRACTS.md "Model-written SQL"); graph state and
step events point to them by name. Values are kept as the query returned them.

A step's result is stored as rows of two shared tables: `step_results` (its columns and size)
and `step_cells` (its values, in a column without affinity, so that "007" stays text, 7 an
integer and a blob a blob). A table of its own for every step grew the schema with every
question, and each new connection parses the whole schema: with 170 step tables in a
workspace, that was 6 ms of each question in a new process (the SQL step opens one).

A step table that a later query reads (the column step's, which the SQL step computes on) is
still a table of its own (`queryable`), with a declared type only where all of a column's
values share one (so a mixed column keeps "007" as text). Step tables of a workspace made
before these rows existed are tables too, and read as before.
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Iterable, Sequence
from typing import Any

from sqlite_utils import Database
from sqlite_utils.db import quote_identifier

from storage.slug import unique_labels
from storage.workspace import write_transaction

_UNSAFE = re.compile(r"[^A-Za-z0-9_]")
_NAME = re.compile(r"step_[A-Za-z0-9_]+_[0-9]+")
_STEP = re.compile(r"[0-9]+")
_TYPES = {int: "INTEGER", float: "REAL", str: "TEXT", bytes: "BLOB"}


def step_prefix(run_id: str) -> str:
    """Return the name prefix of a run's step tables.

    Run id characters outside [A-Za-z0-9_] become "_", so the name never needs escaping.
    """
    return f"step_{_UNSAFE.sub('_', run_id)}_"


def persist_step_table(db: Database, run_id: str, n: int, columns: Sequence[str],
                       rows: Iterable[Sequence[Any]], *, queryable: bool = False) -> str:
    """Store a step's result as `step_<run_id>_<n>`, replacing one of that name; return the name.

    `queryable` makes it a table of its own, which SQL can read. Column names are made unique
    (SQLite ignores case) and non-empty: "x", "x (2)", "col_3".
    """
    if n < 0:
        raise ValueError(f"step number must be >= 0, not {n}")
    name = f"{step_prefix(run_id)}{n}"
    names = unique_labels(columns, ignore_case=True)
    data = [tuple(row) for row in rows]
    for row in data:
        if len(row) != len(names):
            raise ValueError(f"a row has {len(row)} values for {len(names)} columns")
    with write_transaction(db):
        _remove(db, name)
        if queryable:
            _create_table(db, name, names, data)
        else:
            db.execute("INSERT INTO step_results VALUES (?, ?, ?)",
                       [name, json.dumps(names, ensure_ascii=False), len(data)])
            # Empty values are not stored: a row reads back None where it has no cell.
            db.conn.executemany("INSERT INTO step_cells VALUES (?, ?, ?, ?)",
                                ((name, i, j, v) for i, row in enumerate(data)
                                 for j, v in enumerate(row) if v is not None))
    return name


def _remove(db: Database, name: str) -> None:
    db.execute(f"DROP TABLE IF EXISTS {quote_identifier(name)}")
    db.execute("DELETE FROM step_cells WHERE name = ?", [name])
    db.execute("DELETE FROM step_results WHERE name = ?", [name])


def _create_table(db: Database, name: str, names: list[str],
                  data: list[tuple[Any, ...]]) -> None:
    body = ", ".join(f"{quote_identifier(c)} {_declared_type(data, i)}".rstrip()
                     for i, c in enumerate(names))
    marks = ", ".join("?" * len(names))
    db.execute(f"CREATE TABLE {quote_identifier(name)} ({body})")
    db.conn.executemany(f"INSERT INTO {quote_identifier(name)} VALUES ({marks})", data)


def load_step_table(db: Database | sqlite3.Connection, name: str, limit: int
                    ) -> tuple[list[str], list[list[Any]], int]:
    """Return a step table's columns, its first `limit` rows (in stored order) and its size.
    `db` may be a read-only connection. Raises KeyError when there is no such step table."""
    if not _NAME.fullmatch(name):
        raise KeyError(f"no step table {name!r}")
    try:
        stored = db.execute("SELECT columns, row_count FROM step_results WHERE name = ?",
                            [name]).fetchone()
    except sqlite3.OperationalError:
        stored = None  # a workspace made before step results were stored as rows
    if stored is None:
        return _load_table(db, name, limit)
    columns, count = json.loads(stored[0]), stored[1]
    rows: list[list[Any]] = [[None] * len(columns) for _ in range(min(limit, count))]
    for i, j, value in db.execute("SELECT row, col, value FROM step_cells WHERE name = ? AND "
                                  "row < ?", [name, limit]):
        rows[i][j] = value
    return columns, rows, count


def _load_table(db: Database | sqlite3.Connection, name: str, limit: int
                ) -> tuple[list[str], list[list[Any]], int]:
    """A step stored as a table of its own."""
    if db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?",
                  [name]).fetchone() is None:
        raise KeyError(f"no step table {name!r}")
    cursor = db.execute(f"SELECT * FROM {quote_identifier(name)} ORDER BY rowid LIMIT ?",
                        [limit])
    rows = [list(row) for row in cursor.fetchall()]
    count = db.execute(f"SELECT COUNT(*) FROM {quote_identifier(name)}").fetchone()[0]
    return [d[0] for d in cursor.description], rows, count


def step_tables(db: Database, run_id: str) -> list[str]:
    """Return the names of a run's step tables, in step order."""
    prefix = step_prefix(run_id)
    names = [row[0] for row in db.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND substr(name, 1, ?) = ? "
        "UNION SELECT name FROM step_results WHERE substr(name, 1, ?) = ?",
        [len(prefix), prefix, len(prefix), prefix])]
    # The prefix of run "a" also starts the tables of run "a_1": keep "<prefix><digits>" only.
    steps = [(int(name[len(prefix):]), name) for name in names
             if _STEP.fullmatch(name, len(prefix))]
    return [name for _, name in sorted(steps)]


def _declared_type(rows: list[tuple[Any, ...]], i: int) -> str:
    """Return the type all of column i's values share, or "" (no affinity) when they differ."""
    kinds = {type(row[i]) for row in rows if row[i] is not None}
    if len(kinds) == 1:
        return _TYPES.get(kinds.pop(), "")
    return ""
