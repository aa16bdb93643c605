"""Run one model- or engine-written SELECT on a workspace database, safely.

CONTRACTS.md "Model-written SQL": a single SELECT (WITH allowed) runs on a read-only connection
(`mode=ro`) with an authorizer that allows reads of the given tables only, a progress handler
and a watchdog thread for the time limit and cancellation, and a row cap. The layers overlap on
purpose: the text check gives clear messages; the parser layer (`agent/sqlparse_guard.py`)
refuses CTEs and aliases that shadow a workspace name, SQLite's internals and unbounded
`printf` widths; the authorizer enforces what the syntax cannot show (a `WITH ... DELETE`, a
function call, a table a view reads); the watchdog interrupts a single long VM step that the
progress handler never reaches; and the read-only connection stops any write that slips through.
`run_select` is the only entry point. SQL the engine compiled from a typed plan
(`written_by="engine"`) skips the parser layer only: its names are quoted from the catalog and
it writes no CTE, alias, internal table or printf of its own, while parsing it cost about 2 ms
of every question (4 ms of a new process's first). Every other layer still applies to it.
"""

from __future__ import annotations

import os
import re
import sqlite3
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from sqlite_utils.db import quote_identifier

from agent.errors import SqlCancelled, SqlError, SqlTimeout, UnsafeSql
from agent.sqlparse_guard import check_names

DENIED_FUNCTIONS = frozenset({"load_extension", "readfile", "writefile", "edit", "fts3_tokenizer"})
"""SQL functions that reach the file system or the process, refused even if registered."""
TABLE_FUNCTIONS = ("json_each", "json_tree")
"""Read-only table-valued functions a query may use (to walk the long views' JSON paths)."""
MAX_VALUE_BYTES = 16_000_000
"""Largest string or blob a query may build, so `randomblob(1e9)` fails instead of allocating."""
_PROGRESS_STEPS = 1000
"""SQLite virtual-machine steps between two time/cancel checks."""
_WATCH_S = 0.02
"""How often the watchdog looks at the clock and the cancel flag."""
_START = re.compile(r"(?:select|with)\b", re.IGNORECASE)
_QUOTES = {"'": "'", '"': '"', "`": "`", "[": "]"}
"""Opening and closing characters of SQL strings and quoted names."""
_SHOWN_TABLES = 12
"""Allowed tables named in an error message; more would drown the message."""


@dataclass(frozen=True)
class QueryResult:
    """The rows of a query, at most `max_rows` of them (`truncated` says there were more)."""

    columns: list[str]
    rows: list[tuple[Any, ...]]
    truncated: bool
    elapsed_ms: int


def run_select(db_path: str | Path, sql: str, params: Sequence[Any] | Mapping[str, Any] = (), *,
               allowed_tables: set[str], time_limit_s: float = 5.0, max_rows: int = 10_000,
               cancel: threading.Event | None = None,
               written_by: Literal["model", "engine"] = "model") -> QueryResult:
    """Run a single SELECT read-only, reading only `allowed_tables`; return up to max_rows rows.

    Raises `UnsafeSql` for anything else, `SqlTimeout` past the time limit, `SqlCancelled` when
    `cancel` is set, and `SqlError` for any other SQLite error. Values always go in `params`.
    """
    statement = check_select(sql)
    if cancel is not None and cancel.is_set():
        raise SqlCancelled("The run was cancelled before the query started.")
    conn, readable = _open_read_only(Path(db_path), time_limit_s)
    start = time.monotonic()
    try:
        named = check_names(statement, readable) if written_by == "model" else set()
        views, view_tables = _views(conn, allowed_tables)
        guard = _Guard(allowed_tables, readable, start + time_limit_s, cancel, view_tables,
                       views)
        guard.check_named(named)
        conn.set_authorizer(guard.authorize)
        conn.set_progress_handler(guard.progress, _PROGRESS_STEPS)
        with _WATCHDOG.watching(conn, guard):
            try:
                cursor = conn.execute(statement, params)
                rows = cursor.fetchmany(max_rows + 1)
            except sqlite3.Error as exc:
                raise guard.error(exc, time_limit_s) from exc
        columns = [d[0] for d in cursor.description or ()]
    finally:
        conn.close()
    return QueryResult(columns, rows[:max_rows], len(rows) > max_rows,
                       round((time.monotonic() - start) * 1000))


def check_select(sql: str) -> str:
    """Return the statement of `sql` without its trailing semicolon if it is a single SELECT.

    Raises `UnsafeSql` for more than one statement or one that does not start with SELECT or
    WITH, and `SqlError` for an unterminated string, quoted name or comment.
    """
    end = _first_semicolon(sql)
    statement = sql if end is None else sql[:end]
    if end is not None and _skip_blanks(sql, end + 1) < len(sql):
        raise UnsafeSql("Only one SQL statement is allowed; remove everything after the first "
                        "';'.")
    if not statement.strip():
        raise UnsafeSql("The query is empty; write one SELECT statement.")
    # A string, quoted name or block comment left open would swallow the terminating ';' (the
    # newline ends a closing line comment, which is fine).
    if not sqlite3.complete_statement(statement + "\n;"):
        raise SqlError("The query is incomplete: a string, quoted name or comment is not "
                       "closed.")
    if not _START.match(statement, _skip_blanks(statement, 0)):
        raise UnsafeSql("Only a read-only query is allowed: one statement starting with SELECT "
                        "or WITH.")
    return statement


def _skip_blanks(sql: str, i: int) -> int:
    """Return the index of the first character at or after i that is not space or comment."""
    n = len(sql)
    while i < n:
        if sql[i].isspace():
            i += 1
        elif sql.startswith("--", i):
            newline = sql.find("\n", i)
            i = n if newline < 0 else newline + 1
        elif sql.startswith("/*", i):
            close = sql.find("*/", i + 2)
            i = n if close < 0 else close + 2
        else:
            break
    return i


def _first_semicolon(sql: str) -> int | None:
    """Return the index of the first ';' outside strings, quoted names and comments."""
    i, n = 0, len(sql)
    while i < n:
        ch = sql[i]
        if ch == ";":
            return i
        if ch in _QUOTES:
            i = _closing(sql, i, _QUOTES[ch])
        elif sql.startswith(("--", "/*"), i):
            i = _skip_blanks(sql, i)
        else:
            i += 1
    return None


def _closing(sql: str, start: int, closer: str) -> int:
    """Return the index just past a quoted token opened at `start` (len(sql) if never closed).

    A doubled closing quote ('' or "") stands for the quote itself inside the token.
    """
    i = start + 1
    while True:
        i = sql.find(closer, i)
        if i < 0:
            return len(sql)
        if closer != "]" and sql.startswith(closer * 2, i):
            i += 2
            continue
        return i + 1


def _open_read_only(path: Path, busy_timeout_s: float
                    ) -> tuple[sqlite3.Connection, frozenset[str]]:
    """Open the database read-only (no statement can change it, whatever the authorizer).

    Also return the casefolded names of its tables and virtual-table modules.
    """
    try:
        conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True,
                               timeout=busy_timeout_s)
    except sqlite3.Error as exc:
        raise SqlError(f"The workspace database could not be opened: {exc}.") from exc
    try:
        conn.setlimit(sqlite3.SQLITE_LIMIT_ATTACHED, 0)
        conn.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, MAX_VALUE_BYTES)
        # Eponymous table-valued functions register themselves in the schema on first use,
        # which the authorizer would see as a write; register them before it is installed.
        for name in TABLE_FUNCTIONS:
            conn.execute(f"SELECT * FROM {name}('[]')").fetchall()
        names = {row[0] for row in conn.execute("SELECT name FROM sqlite_master")}
        names.update(row[0] for row in conn.execute("SELECT name FROM pragma_module_list"))
    except sqlite3.Error as exc:
        conn.close()
        raise SqlError(f"The workspace database could not be read: {exc}.") from exc
    return conn, frozenset(name.casefold() for name in names)


_WRITES = {sqlite3.SQLITE_INSERT: "write to", sqlite3.SQLITE_UPDATE: "write to",
           sqlite3.SQLITE_DELETE: "delete from"}


def _views(conn: sqlite3.Connection, allowed_tables: set[str]
           ) -> tuple[frozenset[str], frozenset[str]]:
    """Return the casefolded names of the database's views, and the tables that exactly one
    view reads when that view is allowed.

    SQLite reports one table a view joins (its last FROM item) as a column-less read without
    naming the view; the guard lets a query touch such a table only that way, so a view's own
    helper tables (a long view's path tables) work while shared tables such as `cells` stay
    closed.
    """
    reads = _view_reads(conn)
    readers: dict[str, set[str]] = {}
    for view, tables in reads.items():
        for table in tables:
            readers.setdefault(table, set()).add(view)
    allowed = {name.casefold() for name in allowed_tables}
    return (frozenset(reads),
            frozenset(table for table, views_reading in readers.items()
                      if len(views_reading) == 1 and views_reading <= allowed))


_VIEW_READS: dict[tuple[tuple[str, str], ...], dict[str, frozenset[str]]] = {}
"""What the views read, by the definitions of all of a database's views: a workspace holds a
view per table, and compiling each of them again for every query cost about 0.15 ms a view."""
_VIEW_READS_KEPT = 64


def _view_reads(conn: sqlite3.Connection) -> dict[str, frozenset[str]]:
    """The casefolded views and the casefolded tables each one reads.

    What a view reads is found by compiling `SELECT * FROM view` with an authorizer that
    records its reads (nothing runs). A broken view reads nothing (a query on it reports the
    error), and is compiled again next time: what it reads may have been created since.
    """
    definitions = tuple(sorted(conn.execute(
        "SELECT name, coalesce(sql, '') FROM sqlite_master WHERE type = 'view'")))
    known = _VIEW_READS.get(definitions)
    if known is not None:
        return known
    reads: dict[str, set[str]] = {}
    current = ""

    def record(action: int, arg1: str | None, _arg2: str | None, _db: str | None,
               source: str | None) -> int:
        if action == sqlite3.SQLITE_READ and source is not None and arg1:
            reads[current].add(arg1.casefold())
        return sqlite3.SQLITE_OK

    broken = False
    conn.set_authorizer(record)
    try:
        for name, _ in definitions:
            current = name.casefold()
            reads[current] = set()
            try:
                conn.execute(f"EXPLAIN SELECT * FROM {quote_identifier(name)}").fetchall()
            except sqlite3.Error:
                broken = True
    finally:
        conn.set_authorizer(None)
    found = {view: frozenset(tables) for view, tables in reads.items()}
    if not broken:
        if len(_VIEW_READS) >= _VIEW_READS_KEPT:
            _VIEW_READS.clear()
        _VIEW_READS[definitions] = found
    return found


class _Guard:
    """The authorizer and progress handler of one query, remembering why they refused."""

    def __init__(self, allowed_tables: set[str], readable: frozenset[str], deadline: float,
                 cancel: threading.Event | None, view_tables: frozenset[str] = frozenset(),
                 views: frozenset[str] = frozenset()) -> None:
        # SQLite compares identifiers case-insensitively.
        self.allowed = {name.casefold() for name in allowed_tables}
        self.view_tables = view_tables
        self.views = views
        self.readable = readable
        self.shown = sorted(allowed_tables)[:_SHOWN_TABLES]
        self.deadline = deadline
        self.cancel = cancel
        self.denied: str | None = None
        self.stopped: type[SqlTimeout] | type[SqlCancelled] | None = None

    def authorize(self, action: int, arg1: str | None, arg2: str | None, _db: str | None,
                  source: str | None) -> int:
        """Allow SELECT, recursion, reads of allowed tables and safe functions; deny the rest.

        `source` names the innermost view or CTE behind a read: an allowed view (a long view)
        may read the tables it is defined over, and only through its own columns and WHERE
        clause. A CTE gets no such right, even one named after an allowed view (the parser
        layer refuses those names; this is the second layer).
        """
        if action in (sqlite3.SQLITE_SELECT, sqlite3.SQLITE_RECURSIVE):
            return sqlite3.SQLITE_OK
        if action == sqlite3.SQLITE_READ:
            table = (arg1 or "").casefold()
            via = (source or "").casefold()
            if table in self.allowed or table in TABLE_FUNCTIONS or (
                    via in self.allowed and via in self.views) or (
                    arg2 == "" and table in self.view_tables) or (
                    arg2 == "" and not self._is_readable(table)):
                return sqlite3.SQLITE_OK
            # A view's own tables are its business: name the view the query used.
            named = source if via in self.views else arg1
            return self._deny(f"The query reads {named!r}, which it may not use. "
                              f"Tables available: {self._tables()}.")
        if action == sqlite3.SQLITE_FUNCTION:
            if (arg2 or "").casefold() not in DENIED_FUNCTIONS:
                return sqlite3.SQLITE_OK
            return self._deny(f"The function {arg2}() is not allowed.")
        if action in _WRITES:
            return self._deny(f"The query tries to {_WRITES[action]} {arg1!r}; only reading "
                              "is allowed.")
        if action == sqlite3.SQLITE_PRAGMA:
            return self._deny(f"PRAGMA {arg1} is not allowed; only a SELECT may run.")
        if action == sqlite3.SQLITE_ATTACH:
            return self._deny("ATTACH is not allowed; only this workspace's tables may be read.")
        return self._deny("Only a read-only SELECT may run; the query tries to change the "
                          "database or its settings.")

    def check_named(self, tables: set[str]) -> None:
        """Refuse tables the query names itself that it may not read. The authorizer lets a
        query read a view's own tables without columns (as SQLite reports a view's last
        join); named in the query, such a read would count a hidden table's rows."""
        for table in sorted(tables - self.allowed - set(TABLE_FUNCTIONS)):
            if table in self.readable:
                raise UnsafeSql(f"The query reads {table!r}, which it may not use. "
                                f"Tables available: {self._tables()}.")

    def _is_readable(self, table: str) -> bool:
        """Tell whether a FROM name is a table, module or pragma rather than a CTE of the query.

        SQLite reports a FROM item it takes no column from (`count(*) FROM c`) as a read of
        column "", CTEs included; only such reads of a CTE are allowed, nothing else leaks.
        """
        return table in self.readable or table.startswith(("sqlite_", "pragma_"))

    def _deny(self, reason: str) -> int:
        self.denied = self.denied or reason
        return sqlite3.SQLITE_DENY

    def _tables(self) -> str:
        more = len(self.allowed) - len(self.shown)
        names = ", ".join(self.shown) or "none"
        return f"{names} and {more} more" if more > 0 else names

    def progress(self) -> int:
        """Return non-zero (which makes SQLite abort the query) on cancel or past the deadline."""
        if self.cancel is not None and self.cancel.is_set():
            self.stopped = SqlCancelled
        elif time.monotonic() > self.deadline:
            self.stopped = SqlTimeout
        return 1 if self.stopped else 0

    def watch(self) -> bool:
        """The watchdog's check: True once the query must stop (cancel or past the deadline)."""
        return bool(self.progress())

    def error(self, exc: sqlite3.Error, time_limit_s: float) -> Exception:
        """Turn a SQLite error into the typed error that says why the query failed."""
        if self.denied is not None:
            return UnsafeSql(self.denied)
        if self.stopped is SqlCancelled:
            return SqlCancelled("The run was cancelled; the query was stopped.")
        if self.stopped is SqlTimeout:
            return SqlTimeout(f"The query took longer than {time_limit_s:g} s and was stopped. "
                              "Simplify it: filter earlier, avoid large joins and deep "
                              "recursion.")
        return SqlError(f"SQLite could not run the query: {exc}.")


class _Watchdog:
    """One thread that interrupts a watched connection once its guard says stop.

    The progress handler runs only between VM steps, so one long step (a sort of a huge
    result, a costly function) would outlive the time limit and Stop; `interrupt()` is the
    one call SQLite allows from another thread, and it ends the running statement. One
    thread serves every query of the process: a thread per query cost its start and, on a
    busy machine, tens of milliseconds to join (a third of a lookup on a 1M-cell table).
    A connection is interrupted only while it is watched: both happen under one lock.
    """

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self._watched: dict[int, tuple[sqlite3.Connection, _Guard]] = {}
        self._thread: threading.Thread | None = None

    @contextmanager
    def watching(self, conn: sqlite3.Connection, guard: _Guard) -> Iterator[None]:
        with self._changed:
            self._watched[id(conn)] = (conn, guard)
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="sql-watchdog",
                                                daemon=True)
                self._thread.start()
            self._changed.notify()
        try:
            yield
        finally:
            with self._changed:
                self._watched.pop(id(conn), None)

    def _run(self) -> None:
        with self._changed:
            while True:
                if not self._watched:
                    self._changed.wait()  # idle: no wake-ups while no query runs
                    continue
                for key, (conn, guard) in list(self._watched.items()):
                    if guard.watch():
                        conn.interrupt()
                        del self._watched[key]
                self._changed.wait(_WATCH_S)


_WATCHDOG = _Watchdog()


def _new_watchdog_in_child() -> None:
    # A forked child has no watchdog thread, and its lock may have been held at the fork.
    global _WATCHDOG
    _WATCHDOG = _Watchdog()


os.register_at_fork(after_in_child=_new_watchdog_in_child)
