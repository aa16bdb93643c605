"""Connections to the data directory's `app.sqlite`, shared by the stores kept there (the chat
index, `storage/chat_index.py`; share links, `storage/share_links.py`).

One connection per call: WAL (readers never wait for a writer), a busy timeout, rows by
name, and for a write BEGIN IMMEDIATE, so a call that reads then writes takes the write lock
up front instead of failing with "database is locked" when another process wrote between.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

FILE_NAME = "app.sqlite"
BUSY_TIMEOUT_MS = 5000


@contextmanager
def connect(path: str | Path, write: bool = False) -> Iterator[sqlite3.Connection]:
    """A connection of this call only; with `write`, inside BEGIN IMMEDIATE (committed at the
    end, rolled back on an error)."""
    conn = sqlite3.connect(path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None)
    try:
        conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        if conn.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
            conn.execute("PRAGMA journal_mode=WAL")
        conn.row_factory = sqlite3.Row
        if not write:
            yield conn
            return
        conn.execute("BEGIN IMMEDIATE")
        try:
            yield conn
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")
    finally:
        conn.close()
