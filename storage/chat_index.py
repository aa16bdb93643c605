"""The chat index: one row per chat (title, when it was made and last used, how many files),
so the app can list, search, rename and delete chats without opening their workspaces.

It lives in the data directory's `app.sqlite`, beside the LangGraph checkpoints, in its own
table `chats`. `ChatIndex` is the interface the app uses; `SqliteChatIndex` is the one shipped
in the box; `PostgresChatIndex` (`storage/chat_index_pg.py`) is used when
`TABLELENS_DATABASE_URL` is set, with the same record logic (`touched`, `renamed`).

Each call opens its own connection (WAL, a busy timeout) and closes it, so the page's script
threads, the run threads and a second process can all use the index at once; a call that
reads then writes takes the write lock first (`BEGIN IMMEDIATE`).
"""

from __future__ import annotations

import datetime as dt
import re
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any, Literal, Protocol

from storage import app_sqlite
from storage.app_sqlite import FILE_NAME

TABLE = "chats"
SCHEMA_VERSION = 1
TITLE_CHARS = 60
"""A title made from a question is cut to this many characters (at a word when it can)."""
MAX_TITLE_CHARS = 200
"""A title the user types is cut to this many."""
UNTITLED = "Untitled chat"

TitleFrom = Literal["default", "question", "user"]
"""Where a chat's title came from: `default` (no question yet: "Untitled chat" or its first
file's name, replaced by the first question), `question` (the first question), `user` (a
rename; never replaced)."""


class ChatIndexError(Exception):
    """A problem with the chat index."""


class UnknownChat(ChatIndexError, KeyError):
    """No chat has this id in the index."""


class EmptyTitle(ChatIndexError, ValueError):
    """A chat's title cannot be empty."""

    message = "A chat's title cannot be empty: type a few words."


@dataclass(frozen=True)
class ChatRecord:
    """One chat in the index. Times are ISO 8601 in UTC, to the microsecond."""

    id: str
    title: str
    created: str
    updated: str
    files: int = 0
    title_from: TitleFrom = "default"

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ChatRecord:
        return cls(id=str(data["id"]), title=str(data["title"]), created=str(data["created"]),
                   updated=str(data["updated"]), files=int(data.get("files") or 0),
                   title_from=data.get("title_from") or "default")


class ChatIndex(Protocol):
    """What the app asks of a chat index, whatever database holds it."""

    def list(self, search: str = "", limit: int | None = None) -> list[ChatRecord]:
        """The chats whose title contains `search` (any case), last used first."""
        ...

    def get(self, chat_id: str) -> ChatRecord | None:
        ...

    def upsert(self, record: ChatRecord) -> None:
        """Store the record as it is, replacing the chat's row if it has one."""
        ...

    def rename(self, chat_id: str, title: str) -> ChatRecord:
        """Give the chat the title a user typed (kept from then on); raises UnknownChat or
        EmptyTitle."""
        ...

    def touch(self, chat_id: str, *, question: str | None = None, file_name: str | None = None,
              files: int | None = None) -> ChatRecord:
        """Record a use of the chat now (made in the index if missing): a question asked (the
        first one titles the chat), a file added (names an untitled chat), its file count."""
        ...

    def delete(self, chat_id: str) -> bool:
        """Remove the chat's row; return whether it had one."""
        ...


def now_iso() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="microseconds")


def clean_title(text: str, limit: int = MAX_TITLE_CHARS) -> str:
    """The text on one line, spaces collapsed, cut to `limit` characters (at a word when one
    ends in the last third, with an ellipsis)."""
    text = re.sub(r"\s+", " ", text).strip()
    if len(text) <= limit:
        return text
    cut = text[:limit - 1]
    space = cut.rfind(" ")
    if space > limit * 2 // 3:
        cut = cut[:space]
    return cut.rstrip(" ,;:-") + "…"


def title_of_question(question: str) -> str:
    """A chat's title made from its first question."""
    return clean_title(question, TITLE_CHARS)


def new_record(chat_id: str, now: str) -> ChatRecord:
    """The row of a chat the index meets for the first time."""
    return ChatRecord(chat_id, UNTITLED, created=now, updated=now)


def touched(record: ChatRecord, now: str, *, question: str | None = None,
            file_name: str | None = None, files: int | None = None) -> ChatRecord:
    """The record after a use at `now` (`ChatIndex.touch`), the same for every backend."""
    record = replace(record, updated=now, files=record.files if files is None else files)
    if record.title_from == "default":
        if question and question.strip():
            record = replace(record, title=title_of_question(question), title_from="question")
        elif file_name and record.title == UNTITLED:
            record = replace(record, title=clean_title(file_name, TITLE_CHARS))
    return record


def renamed(record: ChatRecord, title: str) -> ChatRecord:
    """The record with a title the user typed (`ChatIndex.rename`); raises EmptyTitle."""
    title = clean_title(title)
    if not title:
        raise EmptyTitle()
    return replace(record, title=title, title_from="user")


def like_pattern(search: str) -> str:
    """A LIKE pattern (escape character: backslash) for titles holding `search`, matched
    against the casefolded title: a `%` or `_` the user types is literal."""
    return "%" + re.sub(r"([\\%_])", r"\\\1", search.strip().casefold()) + "%"


class SqliteChatIndex:
    """The chat index in a SQLite file (`<data_dir>/app.sqlite`)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self._connect() as conn:
            conn.execute(f"""CREATE TABLE IF NOT EXISTS {TABLE} (
                id TEXT PRIMARY KEY,
                title TEXT NOT NULL,
                title_from TEXT NOT NULL DEFAULT 'default',
                created TEXT NOT NULL,
                updated TEXT NOT NULL,
                files INTEGER NOT NULL DEFAULT 0,
                schema_version INTEGER NOT NULL DEFAULT {SCHEMA_VERSION})""")
            conn.execute(f"CREATE INDEX IF NOT EXISTS {TABLE}_updated ON {TABLE} (updated)")

    @classmethod
    def in_data_dir(cls, data_dir: str | Path) -> SqliteChatIndex:
        return cls(Path(data_dir) / FILE_NAME)

    @contextmanager
    def _connect(self, write: bool = False) -> Iterator[sqlite3.Connection]:
        """An `app.sqlite` connection of this call only (`storage.app_sqlite.connect`), with
        the `casefold` a title search compares with."""
        with app_sqlite.connect(self.path, write) as conn:
            conn.create_function("casefold", 1, lambda s: s.casefold() if s else s,
                                 deterministic=True)
            yield conn

    def list(self, search: str = "", limit: int | None = None) -> list[ChatRecord]:
        sql = f"SELECT * FROM {TABLE}"
        params: list[Any] = []
        if search.strip():
            sql += " WHERE casefold(title) LIKE ? ESCAPE '\\'"
            params.append(like_pattern(search))
        sql += " ORDER BY updated DESC, created DESC, id"
        if limit is not None:
            sql += " LIMIT ?"
            params.append(limit)
        with self._connect() as conn:
            return [_record(row) for row in conn.execute(sql, params)]

    def get(self, chat_id: str) -> ChatRecord | None:
        with self._connect() as conn:
            row = conn.execute(f"SELECT * FROM {TABLE} WHERE id = ?", (chat_id,)).fetchone()
        return _record(row) if row is not None else None

    def upsert(self, record: ChatRecord) -> None:
        with self._connect(write=True) as conn:
            _write(conn, record)

    def rename(self, chat_id: str, title: str) -> ChatRecord:
        if not clean_title(title):
            raise EmptyTitle()
        with self._connect(write=True) as conn:
            row = conn.execute(f"SELECT * FROM {TABLE} WHERE id = ?", (chat_id,)).fetchone()
            if row is None:
                raise UnknownChat(chat_id)
            record = renamed(_record(row), title)
            _write(conn, record)
        return record

    def touch(self, chat_id: str, *, question: str | None = None, file_name: str | None = None,
              files: int | None = None) -> ChatRecord:
        now = now_iso()
        with self._connect(write=True) as conn:
            row = conn.execute(f"SELECT * FROM {TABLE} WHERE id = ?", (chat_id,)).fetchone()
            record = touched(_record(row) if row is not None else new_record(chat_id, now),
                             now, question=question, file_name=file_name, files=files)
            _write(conn, record)
        return record

    def delete(self, chat_id: str) -> bool:
        with self._connect(write=True) as conn:
            return conn.execute(f"DELETE FROM {TABLE} WHERE id = ?", (chat_id,)).rowcount > 0


def _record(row: sqlite3.Row) -> ChatRecord:
    return ChatRecord.from_dict(dict(row))


def _write(conn: sqlite3.Connection, record: ChatRecord) -> None:
    conn.execute(f"INSERT OR REPLACE INTO {TABLE} (id, title, title_from, created, updated, "
                 f"files, schema_version) VALUES (?, ?, ?, ?, ?, ?, ?)",
                 (record.id, record.title, record.title_from, record.created, record.updated,
                  record.files, SCHEMA_VERSION))
