"""Ending a long SQL statement from outside it, for Stop and time limits.

A Python loop can check a flag between items; a statement (a batch of inserts, a view's query,
validate's re-reading of a big evidence set) runs in SQLite until it is done. A progress
handler asks every `STEPS` VM steps whether to go on, and an abort it causes is raised as the
caller's own typed error (Stop pressed, the time limit passed), not as SQLite's "interrupted".
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager

STEPS = 20_000
"""SQLite VM steps between two calls of the handler (about a millisecond)."""


@contextmanager
def ending_statements(conn: sqlite3.Connection, ended: Callable[[], bool],
                      raise_ended: Callable[[], None]) -> Iterator[None]:
    """For the block, let `ended()` end any statement run on `conn`; a statement so ended
    raises what `raise_ended()` raises, chained to SQLite's abort."""
    conn.set_progress_handler(ended, STEPS)
    try:
        yield
    except sqlite3.OperationalError:
        if ended():
            raise_ended()
        raise
    finally:
        conn.set_progress_handler(None, 0)
