"""The PostgreSQL connection pool the app's shared records use when `TABLELENS_DATABASE_URL`
is set: the chat index (`storage/chat_index_pg.py`), the share links
(`storage/share_links_pg.py`) and LangGraph's checkpoints (`tablelens/checkpoints.py`).

One pool per process, shared by all three, with psycopg 3. Its connections are in
autocommit mode with rows as dicts and no server-side prepared statements: that is what
LangGraph's `PostgresSaver` requires (its migrations run `CREATE INDEX CONCURRENTLY`, which
cannot run inside a transaction; prepared statements break behind a pooler such as
PgBouncer), so our own stores open an explicit transaction for each write instead.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import urlsplit

import psycopg
from psycopg.rows import dict_row
from psycopg_pool import ConnectionPool, PoolTimeout

POOL_MIN = 1
POOL_MAX = 10
"""Connections one process may hold. The checkpointer uses one at a time (it has its own
lock) and the stores' calls are short, so ten serve a busy replica; PostgreSQL's default
`max_connections` (100) then allows about nine replicas."""
CONNECT_TIMEOUT_S = 15.0
SCHEMES = ("postgresql://", "postgres://")


class DatabaseUnavailable(RuntimeError):
    """The database named by TABLELENS_DATABASE_URL could not be reached."""


def redacted(url: str) -> str:
    """The URL without its password, to name the database in messages and logs."""
    parts = urlsplit(url)
    host = parts.hostname or "localhost"
    where = f"{host}:{parts.port}" if parts.port else host
    user = f"{parts.username}@" if parts.username else ""
    return f"{parts.scheme}://{user}{where}{parts.path}"


def open_pool(url: str, *, max_size: int = POOL_MAX,
              timeout_s: float = CONNECT_TIMEOUT_S) -> ConnectionPool:
    """A pool over `url`, opened and checked: it raises DatabaseUnavailable, naming the
    database without its password, when no connection can be made in time."""
    if not url.startswith(SCHEMES):
        raise ValueError("TABLELENS_DATABASE_URL must start with postgresql://")
    # One plain connection first: a wrong host, password or database name fails at once with
    # libpq's reason (which never holds the password), where the pool would retry in silence
    # until its timeout.
    try:
        psycopg.connect(url, connect_timeout=max(1, round(timeout_s))).close()
    except psycopg.Error as exc:
        reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise DatabaseUnavailable(_unreachable(url, reason)) from exc
    kwargs: dict[str, Any] = {"autocommit": True, "row_factory": dict_row,
                              "prepare_threshold": None}
    pool = ConnectionPool(url, min_size=POOL_MIN, max_size=max_size, kwargs=kwargs,
                          # A connection is tried before it is handed out, so a database
                          # restart costs one reconnect, not a failed page.
                          check=ConnectionPool.check_connection,
                          name="tablelens", open=False)
    try:
        pool.open(wait=True, timeout=timeout_s)
    except PoolTimeout as exc:
        pool.close()
        raise DatabaseUnavailable(_unreachable(url, f"no connection within {timeout_s:g} s")
                                  ) from exc
    return pool


def _unreachable(url: str, reason: str) -> str:
    return (f"Could not connect to the database {redacted(url)} ({reason}): check "
            "TABLELENS_DATABASE_URL and that the server is running and accepts this user.")


@contextmanager
def transaction(pool: ConnectionPool, lock: str | None = None) -> Iterator[psycopg.Connection]:
    """A connection inside one transaction (committed at the end, rolled back on an error).
    With `lock`, the transaction first takes an advisory lock of that name, so that two
    processes making the same tables at once wait for each other (`CREATE TABLE IF NOT
    EXISTS` run twice at the same moment can fail in PostgreSQL)."""
    with pool.connection() as conn, conn.transaction():
        if lock is not None:
            conn.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", (lock,))
        yield conn


LOCK_POLL_S = 0.05


@contextmanager
def session_lock(pool: ConnectionPool, name: str) -> Iterator[None]:
    """Hold an advisory lock of this name on a connection of its own while the block runs
    (for work that opens its own connections, such as LangGraph's migrations).

    The lock is tried, not waited for in one statement: a statement waiting for it holds a
    snapshot, and the holder's migration (`CREATE INDEX CONCURRENTLY`) waits for every older
    snapshot to end, so two processes starting together would wait for each other forever.
    Between tries this connection is idle and holds none."""
    with pool.connection() as conn:
        while not conn.execute("SELECT pg_try_advisory_lock(hashtext(%s)) AS got",
                               (name,)).fetchone()["got"]:
            time.sleep(LOCK_POLL_S)
        try:
            yield
        finally:
            conn.execute("SELECT pg_advisory_unlock(hashtext(%s))", (name,))
