"""Model-written SQL runs read-only, on allowed tables only, within time and row limits; step
tables store results faithfully."""

from __future__ import annotations

import hashlib
import threading
from pathlib import Path

import pytest

from agent.errors import SqlCancelled, SqlError, SqlTimeout, UnsafeSql
from agent.sqlguard import run_select
from agent.steptables import load_step_table, persist_step_table, step_tables
from storage.workspace import Workspace

WIDE = "financial__p_l__t0__wide"
LONG = "hr__staff__t0__long"
ALLOWED = {WIDE, "financial__p_l__t0__long", "hr__staff__t0__wide", LONG}
COUNT_TO_A_BILLION = ("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c "
                      "WHERE x < 1000000000) SELECT count(*) FROM c")


@pytest.fixture
def ws(tmp_path, samples) -> Workspace:
    ws = Workspace(tmp_path / "w")
    ws.add_file(samples / "financial.xlsx")
    ws.add_file(samples / "hr.xlsx")
    return ws


@pytest.fixture
def db_path(ws) -> Path:
    return ws.root / "workspace.sqlite"


def select(db_path: Path, sql: str, params=(), **kwargs):
    kwargs.setdefault("allowed_tables", ALLOWED)
    return run_select(db_path, sql, params, **kwargs)


def test_a_select_with_parameters_runs(db_path):
    result = select(db_path, f'SELECT level_2, "H1 2024 > Q2" FROM "{WIDE}" '
                             "WHERE level_1 = ? ORDER BY _row", ["Operating Expenses"])
    assert result.columns == ["level_2", "H1 2024 > Q2"]
    assert result.rows == [("Salaries", 230), ("Rent", 50), ("Marketing", 95)]
    assert not result.truncated and result.elapsed_ms >= 0


@pytest.mark.parametrize("sql", [
    "SELECT 1;",
    "  -- the answer\nSELECT 1; -- done\n",
    "/* why */ with x(a) as (select 1) select a from x",
    "SELECT 1 -- a comment; not a statement",
    "SELECT 1 /* ; */ ;",
])
def test_comments_and_one_trailing_semicolon_are_fine(db_path, sql):
    assert select(db_path, sql).rows == [(1,)]


def test_a_semicolon_inside_a_string_is_not_a_second_statement(db_path):
    assert select(db_path, "SELECT 'a;b', \"x;y\" FROM (SELECT 1 AS \"x;y\")").rows == [
        ("a;b", 1)]


def test_reads_of_the_long_table_and_json_functions_are_allowed(db_path):
    result = select(db_path, f'SELECT j.value FROM "{LONG}" l, json_each(l.row_path) j '
                             "WHERE l.ref = :ref ORDER BY j.key", {"ref": "C2"})
    assert result.rows == [("Engineering",), ("Ana Ruiz",)]
    assert select(db_path, f'SELECT count(*) FROM "{LONG}"').rows == [(14,)]


def test_counting_the_rows_of_a_cte_is_allowed(db_path):
    sql = f'WITH t AS (SELECT * FROM "{LONG}" WHERE kind = ?) SELECT count(*) FROM t'
    assert select(db_path, sql, ["text"]).rows == [(7,)]


UNSAFE = [
    f'DROP TABLE "{WIDE}"',
    f'INSERT INTO "{WIDE}" (_row) VALUES (99)',
    "ATTACH DATABASE ':memory:' AS other",
    "PRAGMA table_info(sources)",
    "SELECT 1; SELECT 2",
    f'SELECT 1; DROP TABLE "{WIDE}"',
    "SELECT load_extension('/tmp/evil.so')",
    "SELECT * FROM sources",
    "SELECT count(*) FROM sources",
    "SELECT name FROM sqlite_master",
    "SELECT count(*) FROM sqlite_master",
    "SELECT * FROM pragma_table_info('sources')",
    f'WITH x AS (SELECT 1) DELETE FROM "{WIDE}"',
    f'SELECT * FROM "{WIDE}" WHERE _row IN (SELECT rowid FROM cells)',
    "SELECT count(*) FROM cells",  # the long views' shared table stays closed
    "SELECT row_path FROM row_paths",  # a view's helper table, read directly
    "VALUES (1)",
    "",
    "  -- nothing\n",
]


@pytest.mark.parametrize("written_by", ["model", "engine"])
@pytest.mark.parametrize("sql", UNSAFE)
def test_anything_but_one_select_of_allowed_tables_is_unsafe(db_path, sql, written_by):
    # The engine's own SQL skips the parser layer only: the authorizer, the read-only
    # connection and the statement check still refuse every one of these.
    with pytest.raises(UnsafeSql):
        select(db_path, sql, written_by=written_by)


def test_unsafe_messages_say_what_to_fix(db_path):
    with pytest.raises(UnsafeSql, match="'sources'.*financial__p_l__t0__long"):
        select(db_path, "SELECT * FROM sources")
    with pytest.raises(UnsafeSql, match="load_extension"):
        select(db_path, "SELECT load_extension('x')")
    with pytest.raises(UnsafeSql, match="one SQL statement"):
        select(db_path, "SELECT 1; SELECT 2")


@pytest.mark.parametrize("sql, message", [
    (f'SELECT nope FROM "{WIDE}"', "no such column"),
    ("SELECT 'unterminated", "not closed"),
    ("SELECT 1 /* unterminated", "not closed"),
    ('SELECT [a;b FROM x', "not closed"),
    ("SELECT length(randomblob(100000000))", "too big"),
])
def test_other_failures_are_sql_errors(db_path, sql, message):
    with pytest.raises(SqlError, match=message):
        select(db_path, sql)


def test_wrong_parameters_are_sql_errors(db_path):
    with pytest.raises(SqlError):
        select(db_path, "SELECT ?", [1, 2])


def test_a_runaway_query_times_out(db_path):
    with pytest.raises(SqlTimeout, match="0.2 s"):
        select(db_path, COUNT_TO_A_BILLION, time_limit_s=0.2)


def test_a_set_cancel_flag_stops_the_query(db_path):
    cancel = threading.Event()
    cancel.set()
    with pytest.raises(SqlCancelled):
        select(db_path, "SELECT 1", cancel=cancel)


def test_cancelling_while_the_query_runs_stops_it(db_path):
    cancel = threading.Event()
    timer = threading.Timer(0.05, cancel.set)
    timer.start()
    try:
        with pytest.raises(SqlCancelled):
            select(db_path, COUNT_TO_A_BILLION, time_limit_s=120, cancel=cancel)
    finally:
        timer.cancel()


def test_rows_past_max_rows_are_cut_and_flagged(db_path):
    sql = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 25) " \
          "SELECT x FROM c"
    cut = select(db_path, sql, max_rows=10)
    assert cut.rows == [(x,) for x in range(1, 11)] and cut.truncated
    whole = select(db_path, sql, max_rows=25)
    assert len(whole.rows) == 25 and not whole.truncated


def test_the_database_file_is_unchanged(ws, db_path):
    ws.close()
    before = (hashlib.sha256(db_path.read_bytes()).hexdigest(), db_path.stat().st_mtime_ns)
    files = set(db_path.parent.iterdir())
    select(db_path, f'SELECT * FROM "{WIDE}"')
    for sql in (f'DROP TABLE "{WIDE}"', f'WITH x AS (SELECT 1) DELETE FROM "{WIDE}"',
                "ATTACH DATABASE 'other.sqlite' AS o", "PRAGMA user_version = 7"):
        with pytest.raises(UnsafeSql):
            select(db_path, sql)
    with pytest.raises(SqlTimeout):
        select(db_path, COUNT_TO_A_BILLION, time_limit_s=0.2)
    after = (hashlib.sha256(db_path.read_bytes()).hexdigest(), db_path.stat().st_mtime_ns)
    assert after == before
    # Workspaces use WAL: a reader may leave the shared-memory index (-shm) and an empty
    # write-ahead log (-wal) beside the database; neither holds data.
    journal = {p for p in db_path.parent.iterdir() if p.name.endswith(("-wal", "-shm"))}
    assert all(p.stat().st_size == 0 for p in journal if p.name.endswith("-wal"))
    assert set(db_path.parent.iterdir()) - journal == files


def test_a_missing_or_broken_database_is_an_sql_error(tmp_path):
    with pytest.raises(SqlError):
        run_select(tmp_path / "nope.sqlite", "SELECT 1", allowed_tables=set())
    assert not (tmp_path / "nope.sqlite").exists()
    (tmp_path / "junk.sqlite").write_bytes(b"not a database" * 100)
    with pytest.raises(SqlError):
        run_select(tmp_path / "junk.sqlite", "SELECT 1", allowed_tables=set())


# --- step tables ------------------------------------------------------------------------------

@pytest.mark.parametrize("queryable", [False, True])
def test_step_tables_round_trip_values_as_returned(ws, queryable):
    rows = [(1, "007", 1.5, None, b"\x00"), (2, 7, 2.0, "x", b"\x01"),
            (None, None, float("inf"), None, None)]
    name = persist_step_table(ws.db, "run-1/é", 0, ["n", "code", "N", "", "blob"], rows,
                              queryable=queryable)
    assert name == "step_run_1___0"
    assert ws.db.table(name).exists() == queryable
    columns, loaded, count = load_step_table(ws.db, name, limit=10)
    assert columns == ["n", "code", "N (2)", "col_4", "blob"]
    assert loaded == [list(r) for r in rows] and count == 3
    assert [type(v) for v in loaded[1]] == [int, int, float, str, bytes]
    columns, loaded, count = load_step_table(ws.db, name, limit=1)
    assert len(loaded) == 1 and count == 3


def test_a_step_table_replaced_by_one_of_the_other_kind_is_gone(ws):
    name = persist_step_table(ws.db, "r", 0, ["a"], [(1,), (2,)], queryable=True)
    persist_step_table(ws.db, "r", 0, ["b"], [(3,)])
    assert not ws.db.table(name).exists()
    assert load_step_table(ws.db, name, limit=5) == (["b"], [[3]], 1)
    persist_step_table(ws.db, "r", 0, ["c"], [(4,)], queryable=True)
    assert load_step_table(ws.db, name, limit=5) == (["c"], [[4]], 1)
    assert step_tables(ws.db, "r") == [name]


def test_a_step_table_can_be_replaced_and_read_by_the_guard(ws, db_path):
    result = select(db_path, f'SELECT level_1, "H1 2024 > Q1" FROM "{WIDE}" ORDER BY _row')
    name = persist_step_table(ws.db, "r", 1, result.columns, [(0, 0)], queryable=True)
    name = persist_step_table(ws.db, "r", 1, result.columns, result.rows, queryable=True)
    again = select(db_path, f'SELECT * FROM "{name}"', allowed_tables={name})
    assert again.columns == result.columns and again.rows == result.rows


def test_step_tables_lists_a_runs_tables_in_step_order(ws):
    for n in (10, 2, 0):
        persist_step_table(ws.db, "run", n, ["x"], [(n,)])
    persist_step_table(ws.db, "run_1", 0, ["x"], [(1,)])
    assert step_tables(ws.db, "run") == ["step_run_0", "step_run_2", "step_run_10"]
    assert step_tables(ws.db, "run_1") == ["step_run_1_0"]
    assert step_tables(ws.db, "other") == []


def test_only_step_tables_can_be_loaded(ws):
    for name in ("sources", "step_nope_0", f"{WIDE}"):
        with pytest.raises(KeyError):
            load_step_table(ws.db, name, limit=5)


def test_rows_must_match_the_columns(ws):
    with pytest.raises(ValueError):
        persist_step_table(ws.db, "r", 0, ["a", "b"], [(1,)])


def test_the_watchdog_interrupts_a_statement_the_progress_handler_never_reaches(tmp_path):
    """The watchdog alone (no progress handler) ends a running statement once its guard says
    stop, and a connection it no longer watches is left alone."""
    import sqlite3
    import time

    from agent.sqlguard import _WATCHDOG, _Guard

    conn = sqlite3.connect(tmp_path / "x.sqlite", check_same_thread=False)
    endless = ("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) "
               "SELECT count(*) FROM n")
    guard = _Guard(set(), frozenset(), time.monotonic() + 0.2, None)
    started = time.monotonic()
    with pytest.raises(sqlite3.OperationalError, match="interrupted"), \
            _WATCHDOG.watching(conn, guard):
        conn.execute(endless).fetchall()
    assert time.monotonic() - started < 30
    # Past its deadline but no longer watched: nothing interrupts the next statement.
    time.sleep(0.1)
    assert conn.execute("SELECT 1").fetchall() == [(1,)]
    conn.close()


def test_one_watchdog_thread_serves_every_query(db_path):
    for _ in range(20):
        select(db_path, f'SELECT level_1 FROM "{WIDE}" LIMIT 1')
    assert [t.name for t in threading.enumerate()].count("sql-watchdog") == 1


def test_what_a_view_reads_follows_its_definition(tmp_path):
    """The views' reads are kept between queries, and read again when a view changes."""
    import sqlite3

    from agent.sqlguard import _VIEW_READS, _views

    conn = sqlite3.connect(tmp_path / "v.sqlite")
    conn.executescript("CREATE TABLE a (x); CREATE TABLE b (y); "
                       "CREATE VIEW v AS SELECT x FROM a")
    assert _views(conn, {"v"}) == (frozenset({"v"}), frozenset({"a"}))
    assert (("v", "CREATE VIEW v AS SELECT x FROM a"),) in _VIEW_READS  # kept
    assert _views(conn, {"v"}) == (frozenset({"v"}), frozenset({"a"}))
    conn.executescript("DROP VIEW v; CREATE VIEW v AS SELECT y FROM b")
    assert _views(conn, {"v"}) == (frozenset({"v"}), frozenset({"b"}))
    conn.executescript("CREATE VIEW w AS SELECT z FROM c")  # broken: c does not exist yet
    assert _views(conn, {"w"})[1] == frozenset()
    assert not any("w" in dict(key) for key in _VIEW_READS)  # a broken view is not kept
    conn.executescript("CREATE TABLE c (z)")
    assert _views(conn, {"w"})[1] == frozenset({"c"})
    conn.close()
