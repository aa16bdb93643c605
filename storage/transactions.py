"""Write transactions on a workspace database that wait for the write lock up front."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import sqlite_utils

WRITE_WAIT_S = 600
"""How long a write waits for another connection's write to commit before "database is
locked". An upload holds the write lock while it stores (a big sheet: a minute or more); a
question's transcript rows and step tables wait for it rather than fail."""
STOP_CHECK_S = 0.1
"""With a `stop` check, the wait for the lock is cut into slices this long, with the check
between them: SQLite's own wait cannot be interrupted (not even by `interrupt()`)."""


@contextmanager
def write_transaction(db: sqlite_utils.Database, *, wait: bool = True,
                      stop: Callable[[], None] | None = None) -> Iterator[bool]:
    """Run a block in one write transaction that takes the write lock up front; yield True.

    A deferred transaction that reads before it writes fails at once with "database is
    locked" when another connection committed in between (SQLite cannot wait without risking a
    deadlock); BEGIN IMMEDIATE waits for the lock instead (up to `WRITE_WAIT_S`). While it
    waits, `stop` is called every `STOP_CHECK_S` and may raise to give up (an upload's Stop).
    With `wait=False` a lock held elsewhere is not waited for: the block runs with no
    transaction and gets False. Nested calls join the outer one.
    """
    if db.conn.in_transaction:
        with db.atomic():
            yield True
        return
    if not _begin_immediate(db, wait, stop):
        yield False
        return
    try:
        yield True
    except BaseException:
        db.conn.rollback()
        raise
    db.conn.commit()


def _begin_immediate(db: sqlite_utils.Database, wait: bool,
                     stop: Callable[[], None] | None = None) -> bool:
    """BEGIN IMMEDIATE; without `wait`, return False at once if another connection writes."""
    if wait:
        if stop is None:
            db.conn.execute("BEGIN IMMEDIATE")
        else:
            _begin_stoppable(db, stop)
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


def _begin_stoppable(db: sqlite_utils.Database, stop: Callable[[], None]) -> None:
    """BEGIN IMMEDIATE, waiting for the lock up to `WRITE_WAIT_S` in slices, with `stop`
    called between them."""
    deadline = time.monotonic() + WRITE_WAIT_S
    db.conn.execute(f"PRAGMA busy_timeout = {int(STOP_CHECK_S * 1000)}")
    try:
        while True:
            try:
                db.conn.execute("BEGIN IMMEDIATE")
                return
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) or time.monotonic() >= deadline:
                    raise
            stop()
    finally:
        db.conn.execute(f"PRAGMA busy_timeout = {WRITE_WAIT_S * 1000}")
