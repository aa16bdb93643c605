"""Stop ends a long SQL statement a step runs on the workspace, not only the Python loops
around it: validate's re-reading of a big evidence set went on for half an hour after Stop
(a browser tester, on a 550k-row CSV)."""

from __future__ import annotations

import threading
from types import SimpleNamespace

import pytest

from agent.graph import _Stoppable
from agent.stop import Cancelled
from storage.workspace import Workspace

# About 10^8 rows counted: tens of seconds unless the statement is ended.
LONG = ("WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n LIMIT 100000000) "
        "SELECT COUNT(*) FROM n")


def _node(state, runtime):
    [(count,)] = runtime.context.workspace.db.conn.execute(state["sql"]).fetchall()
    return {"count": count}


def _run(workspace: Workspace, flag: threading.Event, sql: str):
    runtime = SimpleNamespace(context=SimpleNamespace(workspace=workspace, cancel=flag))
    return _Stoppable(_node)({"sql": sql}, runtime)


def test_stop_ends_a_long_statement_of_a_step(tmp_path):
    ws = Workspace(tmp_path / "ws")
    try:
        stopped = threading.Event()
        stopped.set()
        with pytest.raises(Cancelled):
            _run(ws, stopped, LONG)
        # Outside the step the connection runs statements to their end again.
        assert ws.db.conn.execute("SELECT COUNT(*) FROM (SELECT 1 UNION ALL SELECT 2)"
                                  ).fetchone() == (2,)
        assert _run(ws, threading.Event(), "SELECT 40 + 2") == {"count": 42}
    finally:
        ws.close()
