"""The app's LangGraph checkpointer: every chat's graph state in `app.sqlite` of the data
directory (or in PostgreSQL when `TABLELENS_DATABASE_URL` is set: `open_postgres_checkpointer`),
keyed by `thread_id` = chat id, so a follow-up question ("and for Q3?") reads the previous
turn, also after the server restarts.

One connection for the process, shared by the run threads: `SqliteSaver` takes its own lock
around each use; WAL and a busy timeout let another process (a second app server, the CLI on
the same data directory) read and write beside it. The serializer restores only the agent's
own types (`agent.state.checkpoint_types`): a checkpoint is data, never code to import.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING, Any

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer
from langgraph.checkpoint.sqlite import SqliteSaver

from agent.state import checkpoint_types

if TYPE_CHECKING:
    from langgraph.checkpoint.postgres import PostgresSaver
    from psycopg_pool import ConnectionPool

BUSY_TIMEOUT_MS = 5000
FILE_NAME = "app.sqlite"


def open_checkpointer(data_dir: str | Path) -> SqliteSaver:
    """The checkpointer over `<data_dir>/app.sqlite` (made when missing)."""
    path = Path(data_dir) / FILE_NAME
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(path, check_same_thread=False, timeout=BUSY_TIMEOUT_MS / 1000)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
    # WAL with NORMAL: a commit does not wait for the disk; a power cut may lose the last
    # turns' checkpoints (never corrupt the file), the transcript in the workspace stays.
    conn.execute("PRAGMA synchronous=NORMAL")
    saver = SqliteSaver(conn, serde=_serializer())
    saver.setup()
    return saver


def open_postgres_checkpointer(pool: ConnectionPool) -> PostgresSaver:
    """LangGraph's PostgreSQL checkpointer over the app's pool (`storage/postgres.py`), its
    tables made or migrated when needed.

    One process at a time runs the migrations (an advisory lock): LangGraph's `setup` reads
    the version it is at, then applies the rest, so two replicas starting together would both
    apply them and one would fail. The saver takes a pooled connection per call.
    """
    from langgraph.checkpoint.postgres import PostgresSaver

    from storage.postgres import session_lock

    saver = PostgresSaver(pool, serde=_serializer())
    with session_lock(pool, "tablelens langgraph setup"):
        saver.setup()
    return saver


def _serializer() -> JsonPlusSerializer:
    return JsonPlusSerializer(allowed_msgpack_modules=checkpoint_types())


def copy_thread(saver: BaseCheckpointSaver, source: str, target: str) -> bool:
    """Write the latest checkpoint of thread `source` (with its pending writes) as thread
    `target`'s; return whether `source` had one. Only the latest: a follow-up question reads
    that state, and the history of how it was reached stays with the source."""
    found = saver.get_tuple({"configurable": {"thread_id": source, "checkpoint_ns": ""}})
    if found is None:
        return False
    checkpoint = found.checkpoint
    config = saver.put({"configurable": {"thread_id": target, "checkpoint_ns": ""}},
                       checkpoint, found.metadata, checkpoint.get("channel_versions", {}))
    by_task: dict[str, list[tuple[str, Any]]] = {}
    for task_id, channel, value in found.pending_writes or []:
        by_task.setdefault(task_id, []).append((channel, value))
    for task_id, writes in by_task.items():
        saver.put_writes(config, writes, task_id)
    return True
