"""Model replies kept in the chat's workspace.sqlite, so asking the same thing again is free.

The table lives in the workspace because a cached reply is derived from that chat's tables:
deleting the chat deletes its folder and the cache with it. The key is a hash of everything
that shapes the reply (model, server, method, schema, the messages, temperature, token limit)
and never the API key, which must not reach the disk. The SQL guard only opens the tables a
plan may read, so model-written SQL cannot see this one.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import sqlite_utils

from storage.workspace import write_transaction

TABLE = "llm_cache"

_SCHEMA = f"""CREATE TABLE IF NOT EXISTS {TABLE} (
    key TEXT PRIMARY KEY, model TEXT NOT NULL, method TEXT NOT NULL, response TEXT NOT NULL,
    prompt_tokens INTEGER NOT NULL, completion_tokens INTEGER NOT NULL, created_at TEXT NOT NULL)
"""


@dataclass(frozen=True)
class CachedReply:
    """A reply as it was stored: its text, how it was asked for and what it cost then."""

    response: str
    method: str
    prompt_tokens: int = 0
    completion_tokens: int = 0


def cache_key(*, model: str, base_url: str | None, method: str, schema: dict[str, Any],
              messages: Sequence[dict[str, str]], temperature: float,
              max_output_tokens: int) -> str:
    """Return the sha256 naming one request's reply (no secret goes into it)."""
    material = json.dumps(
        {"model": model, "base_url": base_url, "method": method, "schema": schema,
         "messages": list(messages), "temperature": temperature,
         "max_output_tokens": max_output_tokens},
        sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(material.encode("utf-8")).hexdigest()


class ResponseCache:
    """The `llm_cache` table of one workspace database."""

    def __init__(self, db: sqlite_utils.Database) -> None:
        self.db = db
        # Only write when the table is missing: opening a chat must not wait for the write
        # lock while a run is writing its step tables.
        exists = db.conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?",
                                 (TABLE,)).fetchone()
        if exists is None:
            with write_transaction(db):
                db.conn.execute(_SCHEMA)

    def get(self, key: str) -> CachedReply | None:
        """Return the reply stored under `key`; None when there is none or it is unreadable
        (a damaged row costs one request, never the question)."""
        try:
            row = self.db.conn.execute(
                f"SELECT response, method, prompt_tokens, completion_tokens FROM {TABLE} "
                "WHERE key = ?", (key,)).fetchone()
        except sqlite3.DatabaseError:
            return None
        if row is None:
            return None
        response, method, prompt_tokens, completion_tokens = row
        if not (isinstance(response, str) and isinstance(method, str)
                and isinstance(prompt_tokens, int) and isinstance(completion_tokens, int)):
            return None
        return CachedReply(response, method, prompt_tokens, completion_tokens)

    def put(self, key: str, model: str, reply: CachedReply) -> None:
        """Store a reply under `key`, replacing what was there, in one transaction."""
        created = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
        with write_transaction(self.db):
            self.db.conn.execute(
                f"INSERT OR REPLACE INTO {TABLE} (key, model, method, response, prompt_tokens,"
                " completion_tokens, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (key, model, reply.method, reply.response, reply.prompt_tokens,
                 reply.completion_tokens, created))
