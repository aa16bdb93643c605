"""The app's chats as a list: indexing the workspace folders, deleting a chat for good, and
the words the sidebar shows for each chat.

The index itself is `storage/chat_index.py`; a chat's content is its workspace folder
(`<data_dir>/workspaces/<id>/`) and its LangGraph checkpoints (`app.sqlite`, thread = chat id).
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import re
import shutil
import sqlite3
from pathlib import Path
from typing import Any

from storage.chat_index import (
    UNTITLED,
    ChatIndex,
    ChatRecord,
    clean_title,
    title_of_question,
)
from tablelens import runs

log = logging.getLogger(__name__)

CHAT_ID = re.compile(r"[A-Za-z0-9_-]{22}")
"""A chat id (`secrets.token_urlsafe(16)`); match the whole string (`fullmatch`)."""
STOP_WAIT_S = 30.0
"""How long a delete waits for the chat's running question to end once told to stop."""


class RunStillGoing(Exception):
    """The chat's question did not stop in time, so the chat was not deleted."""

    message = ("This chat's question did not stop in time, so the chat was kept. Wait a "
               "moment, then delete it again.")


def is_chat_id(text: str) -> bool:
    return bool(CHAT_ID.fullmatch(text))


def workspaces_dir(data_dir: str | Path) -> Path:
    return Path(data_dir) / "workspaces"


def index_unlisted(data_dir: str | Path, index: ChatIndex, *,
                   drop_missing: bool = True) -> list[str]:
    """Index the workspace folders that have no row yet (made before the index, or by another
    process), and drop the rows whose folder is gone unless `drop_missing` is False; return
    the ids indexed. The app keeps rows without a folder when the index is in PostgreSQL:
    there, a server started with a data directory that is not the shared one would otherwise
    drop every other server's chats from the list.

    A folder is titled by its transcript's first question, else its first file's name, else
    "Untitled chat"; one holding neither a file nor a message is left out (nobody used it).
    """
    root = workspaces_dir(data_dir)
    folders = {p.name: p for p in root.iterdir()
               if p.is_dir() and is_chat_id(p.name)} if root.is_dir() else {}
    listed = {record.id for record in index.list()}
    if drop_missing:
        for gone in listed - set(folders):
            index.delete(gone)
    added = []
    for chat_id in sorted(set(folders) - listed):
        record = record_of_folder(folders[chat_id])
        if record is not None:
            index.upsert(record)
            added.append(chat_id)
    if added:
        log.info("indexed %d chats made before the chat index", len(added))
    return added


def record_of_folder(folder: Path) -> ChatRecord | None:
    """The index row a workspace folder describes; None when it holds nothing a user made
    or cannot be read."""
    db = folder / "workspace.sqlite"
    if not db.exists():
        return None
    try:
        conn = sqlite3.connect(f"{db.resolve().as_uri()}?mode=ro", uri=True)
    except sqlite3.Error:
        return None
    try:
        tables = {row[0] for row in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table'")}
        names = ([row[0] for row in conn.execute(
            "SELECT name FROM sources ORDER BY added_at, rowid")]
                 if "sources" in tables else [])
        question, first, last = None, None, None
        if "chat_messages" in tables:
            first, last = conn.execute(
                "SELECT MIN(created_at), MAX(created_at) FROM chat_messages").fetchone()
            row = conn.execute("SELECT body FROM chat_messages WHERE kind = 'question' "
                               "ORDER BY id LIMIT 1").fetchone()
            question = _question_text(row[0]) if row else None
    except sqlite3.Error:
        log.warning("could not index chat %s: its database could not be read", folder.name)
        return None
    finally:
        conn.close()
    if not names and first is None:
        return None
    changed = dt.datetime.fromtimestamp(db.stat().st_mtime, dt.UTC).isoformat(
        timespec="microseconds")
    created = first or changed
    updated = max(last or created, created)
    if question:
        title, title_from = title_of_question(question), "question"
    else:
        title, title_from = (clean_title(names[0], 60) if names else UNTITLED), "default"
    return ChatRecord(folder.name, title, created=created, updated=updated, files=len(names),
                      title_from=title_from)


def _question_text(body: str) -> str | None:
    try:
        text = json.loads(body).get("text")
    except (TypeError, ValueError, AttributeError):
        return None
    return text if isinstance(text, str) and text.strip() else None


def delete_chat(data_dir: str | Path, chat_id: str, *, index: ChatIndex, checkpointer: Any,
                stop_wait_s: float = STOP_WAIT_S) -> None:
    """Delete a chat for good: stop its running question (and wait for it to end), then
    remove its workspace folder, its index row and its checkpoints.

    Raises RunStillGoing (nothing deleted) when the question does not end in time, and
    ValueError for a string that is not a chat id (never a path to remove).
    """
    if not is_chat_id(chat_id):
        raise ValueError(f"not a chat id: {chat_id!r}")
    if not runs.stop_chat(chat_id, stop_wait_s):
        raise RunStillGoing()
    folder = workspaces_dir(data_dir) / chat_id
    if folder.exists():
        shutil.rmtree(folder)
    index.delete(chat_id)
    checkpointer.delete_thread(chat_id)


def when_text(iso: str, now: dt.datetime | None = None) -> str:
    """When a chat was last used, in the server's local time: "today, 14:05", "yesterday,
    09:12", "3 Dec, 14:05" this year, "3 Dec 2025" before."""
    try:
        when = dt.datetime.fromisoformat(iso).astimezone()
    except ValueError:
        return ""
    now = (now or dt.datetime.now(dt.UTC)).astimezone()
    clock = f"{when:%H:%M}"
    days = (now.date() - when.date()).days
    if days == 0:
        return f"today, {clock}"
    if days == 1:
        return f"yesterday, {clock}"
    if when.year == now.year:
        return f"{when.day} {when:%b}, {clock}"
    return f"{when.day} {when:%b %Y}"


def chat_caption(record: ChatRecord, current: bool, now: dt.datetime | None = None) -> str:
    """The line under a chat's title in the list: "This chat · 2 files · today, 14:05"."""
    files = f"{record.files} file{'s' * (record.files != 1)}" if record.files else "no files"
    parts = (["This chat"] if current else []) + [files, when_text(record.updated, now)]
    return " · ".join(p for p in parts if p)

