"""Write transactions on a workspace database that wait for the write lock up front."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager

import sqlite_utils

WRITE_WAIT_S = 600
"""How long a write waits for another connection's write to commit before "database is
locked". An upload holds the write lock while it stores (a big sheet: a minute or more); a
question's transcript rows and step tables wait for it rather than fail."""


@contextmanager
def write_transaction(db: sqlite_utils.Database, *, wait: bool = True) -> Iterator[bool]:
    """Run a block in one write transaction that takes the write lock up front; yield True.

    A deferred transaction that reads before it writes fails at once with "database is
    locked" when another connection committed in between (SQLite cannot wait without risking a
    deadlock); BEGIN IMMEDIATE waits for the lock instead (up to `WRITE_WAIT_S`). With
    `wait=False` a lock held elsewhere is not waited for: the block runs with no transaction
    and gets False. Nested calls join the outer one.
    """
    if db.conn.in_transaction:
        with db.atomic():
            yield True
        return
    if not _begin_immediate(db, wait):
        yield False
        return
    try:
        yield True
    except BaseException:
        db.conn.rollback()
        raise
    db.conn.commit()


def _begin_immediate(db: sqlite_utils.Database, wait: bool) -> bool:
    """BEGIN IMMEDIATE; without `wait`, return False at once if another connection writes."""
    if wait:
        db.conn.execute("BEGIN IMMEDIATE")
        return True
    db.conn.execute("PRAGMA busy_timeout = 0")
    try:
        db.conn.execute("BEGIN IMMEDIATE")
    except sqlite3.OperationalError as exc:
        if "locked" not in str(exc):
            raise
        return False
    finally:
        db.conn.execute(f"PRAGMA busy_timeout = {WRITE_WAIT_S * 1000}")
    return True
