"""Step tables: the stored result of each step of a run, `step_<run_id>_<n>` in workspace.sqlite.

The application, not the model, writes them (CONTRACTS.md "Model-written SQL"); graph state and
step events point to them by name. Values are stored as the query returned them: a column gets
a declared type only when all its values share one, so a mixed column keeps "007" as text.
"""

from __future__ import annotations

import re
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
                       rows: Iterable[Sequence[Any]]) -> str:
    """Store a step's result as `step_<run_id>_<n>`, replacing one of that name; return the name.

    Column names are made unique (SQLite ignores case) and non-empty: "x", "x (2)", "col_3".
    """
    if n < 0:
        raise ValueError(f"step number must be >= 0, not {n}")
    name = f"{step_prefix(run_id)}{n}"
    names = unique_labels(columns, ignore_case=True)
    data = [tuple(row) for row in rows]
    for row in data:
        if len(row) != len(names):
            raise ValueError(f"a row has {len(row)} values for {len(names)} columns")
    body = ", ".join(f"{quote_identifier(c)} {_declared_type(data, i)}".rstrip()
                     for i, c in enumerate(names))
    marks = ", ".join("?" * len(names))
    with write_transaction(db):
        db.execute(f"DROP TABLE IF EXISTS {quote_identifier(name)}")
        db.execute(f"CREATE TABLE {quote_identifier(name)} ({body})")
        db.conn.executemany(f"INSERT INTO {quote_identifier(name)} VALUES ({marks})", data)
    return name


def load_step_table(db: Database, name: str, limit: int
                    ) -> tuple[list[str], list[list[Any]], int]:
    """Return a step table's columns, its first `limit` rows (in stored order) and its size."""
    if not _NAME.fullmatch(name) or not db.table(name).exists():
        raise KeyError(f"no step table {name!r}")
    table = db.table(name)
    rows = db.execute(f"SELECT * FROM {quote_identifier(name)} ORDER BY rowid LIMIT ?",
                      [limit]).fetchall()
    return [c.name for c in table.columns], [list(row) for row in rows], table.count


def step_tables(db: Database, run_id: str) -> list[str]:
    """Return the names of a run's step tables, in step order."""
    prefix = step_prefix(run_id)
    names = [row[0] for row in db.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND substr(name, 1, ?) = ?",
        [len(prefix), prefix])]
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
