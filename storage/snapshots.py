"""Copies of a workspace folder: the snapshot a share link shows, and the fork a viewer makes.

A copy is consistent while the chat goes on: `workspace.sqlite` is copied with SQLite's backup
API from a read-only connection (one read transaction, so a question or an upload writing at
that moment is either wholly in the copy or not at all), then the files its `sources` rows
name. A file added after the database was copied is not named in the copy, and the copy's
first open removes it (`Workspace._remove_orphan_files`); vectors are rebuilt from the copied
embeddings by `storage/vector_index.py`, whose collection is keyed by the folder.

A snapshot is also scrubbed (`scrub`): it is read by people who are not the owner.
"""

from __future__ import annotations

import json
import logging
import re
import shutil
import sqlite3
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

DB_NAME = "workspace.sqlite"
PRIVATE_TABLES = ("llm_cache", "wrong_answers")
"""What a viewer must not get: the model's prompts and replies kept as a cache, and the
owner's own notes on wrong answers."""
PRIVATE_EVENT_KEYS = ("llm",)
"""A step event's LLM calls hold every prompt sent to the model."""
HIDDEN = "…"
"""What a server path or a secret becomes in a snapshot's transcript."""


def copy_database(source: Path, target: Path) -> None:
    """Copy a SQLite database consistently (backup API), also while others write to it."""
    src = sqlite3.connect(f"{source.resolve().as_uri()}?mode=ro", uri=True)
    try:
        dst = sqlite3.connect(target)
        try:
            src.backup(dst)
        finally:
            dst.close()
    finally:
        src.close()


def copy_workspace(source: Path, target: Path) -> None:
    """Copy workspace folder `source` into the new folder `target`: its database, then the
    files the copied database names."""
    target.mkdir(parents=True)
    (target / "files").mkdir()
    copy_database(source / DB_NAME, target / DB_NAME)
    for name in _named_files(target / DB_NAME):
        path = source / "files" / name
        if path.is_file():
            shutil.copy2(path, target / "files" / name)
        else:  # removed since the copy's read: the copy's open drops what names it
            log.warning("a file of the copied workspace was gone: %s", name)


def _named_files(db: Path) -> list[str]:
    conn = sqlite3.connect(db)
    try:
        if not conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'sources'").fetchone():
            return []
        return [f"{sha}.{ext}" for sha, ext in conn.execute("SELECT sha256, ext FROM sources")]
    finally:
        conn.close()


def scrub(db: Path, hidden: Iterable[str], patterns: Iterable[re.Pattern[str]] = ()) -> None:
    """Make a copied workspace fit for someone else to read: drop the private tables and the
    LLM calls of every step (their prompts), and replace every `hidden` string (the server's
    paths, its API keys) and every match of `patterns` (a model server's address, whatever it
    was when the question ran) in the transcript; then rewrite the file, so nothing dropped
    stays in its free pages."""
    secrets = sorted({h for h in hidden if h and len(h) >= 4}, key=len, reverse=True)
    matched = list(patterns)
    conn = sqlite3.connect(db, isolation_level=None)
    try:
        conn.execute("BEGIN")
        for table in PRIVATE_TABLES:
            conn.execute(f"DROP TABLE IF EXISTS {table}")
        if conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'chat_messages'").fetchone():
            rows = conn.execute("SELECT id, kind, body FROM chat_messages").fetchall()
            for row_id, kind, body in rows:
                clean = _scrubbed_body(kind, body, secrets, matched)
                if clean != body:
                    conn.execute("UPDATE chat_messages SET body = ? WHERE id = ?",
                                 (clean, row_id))
        conn.execute("COMMIT")
        conn.execute("VACUUM")
    finally:
        conn.close()


def _scrubbed_body(kind: str, body: str, secrets: Sequence[str],
                   patterns: Sequence[re.Pattern[str]]) -> str:
    try:
        data = json.loads(body)
    except (TypeError, ValueError):
        return json.dumps({}) if kind == "event" else _hide(body, secrets, patterns)
    if kind == "event" and isinstance(data, dict):
        data = {k: v for k, v in data.items() if k not in PRIVATE_EVENT_KEYS}
    return json.dumps(_hide_all(data, secrets, patterns), ensure_ascii=False)


def _hide_all(value: Any, secrets: Sequence[str], patterns: Sequence[re.Pattern[str]]) -> Any:
    if isinstance(value, str):
        return _hide(value, secrets, patterns)
    if isinstance(value, list):
        return [_hide_all(v, secrets, patterns) for v in value]
    if isinstance(value, dict):
        return {k: _hide_all(v, secrets, patterns) for k, v in value.items()}
    return value


def _hide(text: str, secrets: Sequence[str], patterns: Sequence[re.Pattern[str]]) -> str:
    for secret in secrets:
        if secret in text:
            text = text.replace(secret, HIDDEN)
    for pattern in patterns:
        text = pattern.sub(HIDDEN, text)
    return text
