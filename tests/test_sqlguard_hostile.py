"""Hostile SQL: every query below is refused with a plain message, or stopped by the time limit.

The workspace holds the transcript, the cells of every file and SQLite's own tables; a query
may read only the tables it is given. Cases: CTEs and aliases named after an allowed table (the
authorizer sees such reads with the CTE's name as their source), direct and nested reads,
SQLite's internals, writes of every kind, file-system functions, and calls that build huge
strings or run long inside one VM step.
"""

from __future__ import annotations

import time

import pytest

from agent.errors import SqlError, SqlTimeout, UnsafeSql
from agent.sqlguard import run_select
from storage.workspace import Workspace
from tablelens import chat_store
from tests.conftest import SAMPLES

WIDE = "financial__p_l__t0__wide"
LONG = "financial__p_l__t0__long"
ALLOWED = {WIDE, LONG}
PROTECTED = ["cells", "chat_messages", "sqlite_master", "sqlite_schema", "catalog", "sources",
             "meta", "row_paths", "search_index"]
"""Tables a question must not read (chat_messages exists once a chat has a turn)."""
TIME_LIMIT_S = 0.3
GRACE_S = 3.0
"""How far past the time limit a stopped query may end on a loaded machine; the queries this
bounds ran 17-24 s before the watchdog and the format check."""


def _shadowed(target: str) -> list[str]:
    quoted = f'"{WIDE}"'
    return [
        f"WITH {quoted} AS (SELECT * FROM {target}) SELECT * FROM {quoted}",
        f'WITH "{WIDE.upper()}" AS (SELECT * FROM {target}) SELECT * FROM {quoted}',
        f"WITH a AS (SELECT 1), {quoted} AS (SELECT * FROM {target}) SELECT * FROM {quoted}",
        f"WITH {quoted}(x) AS (SELECT 1 FROM {target}) SELECT x FROM {quoted}",
        f'WITH "{LONG}" AS (SELECT * FROM {target}) SELECT count(*) FROM "{LONG}"',
        f"SELECT * FROM (SELECT * FROM {target}) AS {quoted}",
        f"SELECT * FROM {quoted} JOIN (SELECT * FROM {target}) AS \"{LONG}\" ON 1",
        f"SELECT * FROM {quoted} WHERE _row IN (WITH {quoted} AS (SELECT rowid AS _row FROM "
        f"{target}) SELECT _row FROM {quoted})",
        f"WITH RECURSIVE {quoted}(n) AS (SELECT 1 FROM {target} UNION ALL SELECT n + 1 FROM "
        f"{quoted} WHERE n < 3) SELECT n FROM {quoted}",
    ]


def _direct(target: str) -> list[str]:
    return [
        f"SELECT * FROM {target}",
        f'SELECT _row FROM "{WIDE}" UNION SELECT 1 FROM {target}',
        f'SELECT (SELECT count(*) FROM {target}) FROM "{WIDE}"',
        f'SELECT * FROM "{WIDE}" WHERE EXISTS (SELECT 1 FROM {target})',
        f"WITH x AS (SELECT * FROM {target}) SELECT * FROM x",
        f'SELECT * FROM "{WIDE}" w JOIN {target} t ON 1',
    ]


SHADOWED = [sql for target in PROTECTED for sql in _shadowed(target)]
DIRECT = [sql for target in PROTECTED for sql in _direct(target)]
INTERNALS = [
    "SELECT * FROM pragma_table_info('cells')",
    "SELECT * FROM pragma_database_list",
    "SELECT name FROM pragma_table_list",
    "SELECT * FROM pragma_module_list",
    "SELECT * FROM dbstat",
    "SELECT * FROM sqlite_dbpage",
    "SELECT * FROM sqlite_stat1",
    f'SELECT * FROM "{WIDE}" WHERE _row IN (SELECT cid FROM pragma_table_info(\'cells\'))',
]
WRITES = [
    f'DROP TABLE "{WIDE}"',
    f'DELETE FROM "{WIDE}"',
    f'UPDATE "{WIDE}" SET _row = 0',
    f'INSERT INTO "{WIDE}" (_row) VALUES (1)',
    f'WITH x AS (SELECT 1) DELETE FROM "{WIDE}"',
    f'WITH x AS (SELECT 1) UPDATE "{WIDE}" SET _row = 0',
    "CREATE TABLE x (a)",
    f'CREATE VIEW v AS SELECT * FROM "{WIDE}"',
    "CREATE TEMP TABLE x AS SELECT * FROM cells",
    "ATTACH DATABASE '/tmp/other.sqlite' AS o",
    "DETACH DATABASE main",
    "PRAGMA writable_schema = 1",
    "PRAGMA journal_mode = DELETE",
    "VACUUM",
    "VACUUM INTO '/tmp/copy.sqlite'",
    "REINDEX",
    "ANALYZE",
    "BEGIN",
    "SAVEPOINT s",
    f'SELECT 1; DROP TABLE "{WIDE}"',
    "SELECT 1; SELECT * FROM cells",
    f'REPLACE INTO "{WIDE}" (_row) VALUES (1)',
]
FUNCTIONS = [
    "SELECT load_extension('/tmp/evil.so')",
    "SELECT readfile('/etc/passwd')",
    "SELECT writefile('/tmp/x', 'y')",
    "SELECT edit('x')",
    "SELECT fts3_tokenizer('simple')",
    "SELECT printf('%.*c', 300000000, 'x')",
    "SELECT printf('%.*c', 2147483647, 'x')",
    "SELECT printf('%*c', 2147483647, 'x')",
    "SELECT printf('%2147483647c', 'x')",
    "SELECT printf('%.100000000f', 1.5)",
    "SELECT format('%.*c', 300000000, 'x')",
    f'SELECT printf(level_1, 300000000) FROM "{WIDE}"',
    "SELECT " + ", ".join(["printf('%.*c', 300000000, 'x')"] * 20),
]
STOPPED = [
    "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c",
    "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) "
    "SELECT max(x) FROM c ORDER BY 1",
    "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 100000) "
    "SELECT count(*) FROM c a, c b",
    "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 100000000) "
    "SELECT x FROM c ORDER BY random() LIMIT 1",
    "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 100000000) "
    "SELECT length(group_concat(x)) FROM c",
]
MISC = [
    "",
    "VALUES (1)",
    "SELECT * FROM nowhere",
    f'SELECT * FROM "{WIDE}" AS cells',  # an alias hiding a protected name: refused as well
    f'SELECT * FROM "{WIDE}" AS "{LONG}"',
]
HOSTILE = SHADOWED + DIRECT + INTERNALS + WRITES + FUNCTIONS + MISC


@pytest.fixture(scope="module")
def db_path(tmp_path_factory):
    ws = Workspace(tmp_path_factory.mktemp("hostile") / "w")
    ws.add_file(SAMPLES / "financial.xlsx")
    # the transcript lives in the same database
    chat_store.add_question(ws, "r1", "What was the total operating expense for Q2 2024?")
    ws.close()
    return ws.root / "workspace.sqlite"


def test_there_are_more_than_a_hundred_cases():
    assert len(HOSTILE) + len(STOPPED) >= 100


@pytest.mark.parametrize("sql", HOSTILE)
def test_a_hostile_query_is_refused_with_a_plain_message(db_path, sql):
    with pytest.raises((UnsafeSql, SqlError)) as refused:
        run_select(db_path, sql, allowed_tables=ALLOWED, time_limit_s=TIME_LIMIT_S)
    message = str(refused.value)
    assert message.endswith((".", ")")) and len(message) > 20
    assert "sqlite_master" not in message or "sqlite_master" in sql


@pytest.mark.parametrize("sql", STOPPED + FUNCTIONS[5:])
def test_a_costly_query_ends_near_its_time_limit(db_path, sql):
    started = time.monotonic()
    with pytest.raises((SqlTimeout, UnsafeSql, SqlError)):
        run_select(db_path, sql, allowed_tables=ALLOWED, time_limit_s=TIME_LIMIT_S)
    assert time.monotonic() - started < TIME_LIMIT_S + GRACE_S


def test_long_queries_are_stopped_by_the_time_limit_not_refused(db_path):
    for sql in STOPPED:
        with pytest.raises(SqlTimeout, match=f"{TIME_LIMIT_S:g} s"):
            run_select(db_path, sql, allowed_tables=ALLOWED, time_limit_s=TIME_LIMIT_S)


@pytest.mark.parametrize("sql, says", [
    (f'WITH "{WIDE}" AS (SELECT * FROM cells) SELECT * FROM "{WIDE}"', "CTE"),
    ("SELECT * FROM (SELECT * FROM cells) AS \"" + WIDE + "\"", "alias"),
    ("SELECT * FROM pragma_table_info('cells')", "SQLite's information"),
    ("SELECT * FROM dbstat", "SQLite's information"),
    ("SELECT printf('%.*c', 300000000, 'x')", "width"),
    ("SELECT printf('%.100000000f', 1.5)", "too large"),
    ("SELECT * FROM chat_messages", "'chat_messages'"),
])
def test_refusals_say_what_is_wrong(db_path, says, sql):
    with pytest.raises(UnsafeSql, match=says):
        run_select(db_path, sql, allowed_tables=ALLOWED)


def test_a_long_view_not_allowed_is_named_by_its_view_not_its_tables(db_path):
    with pytest.raises(UnsafeSql, match=f"'{LONG}'") as refused:
        run_select(db_path, f'SELECT ref FROM "{LONG}"', allowed_tables={WIDE})
    assert "row_paths" not in str(refused.value)


@pytest.mark.parametrize("sql", [
    f'WITH totals AS (SELECT sum("H1 2024 > Q2") AS t FROM "{WIDE}") SELECT t FROM totals',
    f'SELECT w._row FROM "{WIDE}" AS w WHERE w.level_2 = \'Rent\'',
    f'SELECT "{WIDE}"._row FROM "{WIDE}" AS "{WIDE}" WHERE level_2 = \'Rent\'',
    f'SELECT printf(\'%.2f\', "H1 2024 > Q2") FROM "{WIDE}" WHERE level_2 = \'Rent\'',
    f'SELECT printf(\'%5d%%\', _row) FROM "{WIDE}" WHERE level_2 = \'Rent\'',
    f'SELECT j.value FROM "{LONG}" l, json_each(l.row_path) j WHERE l.ref = \'C6\' '
    "ORDER BY j.key LIMIT 1",
])
def test_ordinary_queries_still_run(db_path, sql):
    assert run_select(db_path, sql, allowed_tables=ALLOWED).rows
