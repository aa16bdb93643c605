"""Time a SQL statement the way a hand-written query would run: on a read-only connection to a
workspace database, without the engine around it. This is the floor a question is held to."""

from __future__ import annotations

import sqlite3
import statistics
import time
from pathlib import Path
from typing import Any

RUNS = 21


def connect(database: Path) -> sqlite3.Connection:
    """A read-only connection, so timing a query can never change the workspace."""
    return sqlite3.connect(f"file:{database}?mode=ro", uri=True)


def time_sql(conn: sqlite3.Connection, sql: str, params: tuple[Any, ...] = (),
             runs: int = RUNS) -> tuple[float, list[tuple[Any, ...]]]:
    """(median milliseconds over `runs` runs after one untimed run, the rows it returned).

    The untimed run reads the pages into SQLite's cache, as a warm question finds them."""
    rows = conn.execute(sql, params).fetchall()
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        conn.execute(sql, params).fetchall()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times), rows
