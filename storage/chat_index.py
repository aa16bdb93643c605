"""The chat index: one row per chat (title, when it was made and last used, how many files),
so the app can list, search, rename and delete chats without opening their workspaces.

It lives in the data directory's `app.sqlite`, beside the LangGraph checkpoints, in its own
table `chats`. `ChatIndex` is the interface the app uses; `SqliteChatIndex` is the one shipped
in the box; `PostgresChatIndex` (`storage/chat_index_pg.py`) is used when
`TABLELENS_DATABASE_URL` is set, with the same record logic (`touched`, `renamed`).

Who may see a chat (issue 19): with login, a chat belongs to the user who made it, named by
their ID token's issuer and subject (`Owner`; never the email, which can change), and the
list shows a user their own chats only. Without login, the list shows the chats a browser
opened (made, forked or opened by URL), recorded in `chat_browsers` by the SHA-256 of the
browser's cookie (`browser_hash`), never the cookie itself; a chat nobody owns and no browser
opened yet (one made before browsers were recorded) is listed in every browser until one
opens it. Schema 2 added both; a row of
schema 1 reads as a chat with no owner (`owner` None), which `tablelens/access.py` opens only
when login is off.

Each call opens its own connection (WAL, a busy timeout) and closes it, so the page's script
threads, the run threads and a second process can all use the index at once; a call that
reads then writes takes the write lock first (`BEGIN IMMEDIATE`).
"""

from __future__ import annotations

import datetime as dt
import hashlib
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
BROWSERS = "chat_browsers"
"""Which browser opened which chat (login off): the browser's cookie hashed, the chat id."""
SCHEMA_VERSION = 2
"""2: `owner_iss` and `owner_sub` (the owner's ID-token issuer and subject), and the table
`chat_browsers`. Rows of 1 have no owner."""
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
class Owner:
    """The user a chat belongs to: the `iss` and `sub` claims of their OpenID Connect ID
    token, which together name one account for good (an email address can change hands)."""

    issuer: str
    subject: str


@dataclass(frozen=True)
class ChatRecord:
    """One chat in the index. Times are ISO 8601 in UTC, to the microsecond. `owner` is None
    for a chat made without login (or before schema 2)."""

    id: str
    title: str
    created: str
    updated: str
    files: int = 0
    title_from: TitleFrom = "default"
    owner: Owner | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ChatRecord:
        """From `to_dict`'s dict or a database row (with `owner_iss` and `owner_sub`)."""
        owner = data.get("owner")
        if isinstance(owner, dict):
            owner = Owner(str(owner["issuer"]), str(owner["subject"]))
        elif data.get("owner_iss") is not None and data.get("owner_sub") is not None:
            owner = Owner(str(data["owner_iss"]), str(data["owner_sub"]))
        return cls(id=str(data["id"]), title=str(data["title"]), created=str(data["created"]),
                   updated=str(data["updated"]), files=int(data.get("files") or 0),
                   title_from=data.get("title_from") or "default",
                   owner=owner if isinstance(owner, Owner) else None)


class ChatIndex(Protocol):
    """What the app asks of a chat index, whatever database holds it."""

    def list(self, search: str = "", limit: int | None = None, *, owner: Owner | None = None,
             browser: str | None = None) -> list[ChatRecord]:
        """The chats whose title contains `search` (any case), last used first; only those
        of `owner`, or only those `browser` opened (`remember`), when given."""
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
              files: int | None = None, owner: Owner | None = None) -> ChatRecord:
        """Record a use of the chat now (made in the index if missing, owned by `owner`): a
        question asked (the first one titles the chat), a file added (names an untitled
        chat), its file count. An existing chat's owner never changes."""
        ...

    def remember(self, browser: str, chat_id: str) -> None:
        """Record that the browser whose cookie is `browser` opened the chat."""
        ...

    def delete(self, chat_id: str) -> bool:
        """Remove the chat's row and which browsers opened it; return whether it had one."""
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


def new_record(chat_id: str, now: str, owner: Owner | None = None) -> ChatRecord:
    """The row of a chat the index meets for the first time."""
    return ChatRecord(chat_id, UNTITLED, created=now, updated=now, owner=owner)


def browser_hash(browser: str) -> str:
    """What the index keeps of a browser's cookie: its SHA-256, so a copy of the database
    cannot be replayed as someone's cookie to see their list."""
    return hashlib.sha256(browser.encode()).hexdigest()


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
        # Under the write lock: two processes upgrading an index of schema 1 at once would
        # otherwise both add its columns, and the second would fail.
        with self._connect(write=True) as conn:
            conn.execute(f"""CREATE TABLE IF NOT EXISTS {TABLE} (
                id TEXT PRIMARY KEY,
                title TEXT NOT NULL,
                title_from TEXT NOT NULL DEFAULT 'default',
                created TEXT NOT NULL,
                updated TEXT NOT NULL,
                files INTEGER NOT NULL DEFAULT 0,
                schema_version INTEGER NOT NULL DEFAULT {SCHEMA_VERSION},
                owner_iss TEXT,
                owner_sub TEXT)""")
            columns = {row["name"] for row in conn.execute(f"PRAGMA table_info({TABLE})")}
            for column in ("owner_iss", "owner_sub"):  # an index of schema 1 gains them
                if column not in columns:
                    conn.execute(f"ALTER TABLE {TABLE} ADD COLUMN {column} TEXT")
            conn.execute(f"CREATE INDEX IF NOT EXISTS {TABLE}_updated ON {TABLE} (updated)")
            conn.execute(f"CREATE INDEX IF NOT EXISTS {TABLE}_owner ON {TABLE} "
                         "(owner_iss, owner_sub, updated)")
            conn.execute(f"""CREATE TABLE IF NOT EXISTS {BROWSERS} (
                browser TEXT NOT NULL,
                chat TEXT NOT NULL,
                opened TEXT NOT NULL,
                PRIMARY KEY (browser, chat))""")
            conn.execute(f"CREATE INDEX IF NOT EXISTS {BROWSERS}_chat ON {BROWSERS} (chat)")

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

    def list(self, search: str = "", limit: int | None = None, *, owner: Owner | None = None,
             browser: str | None = None) -> list[ChatRecord]:
        where, params = list_filter(search, owner, browser, "?")
        sql = f"SELECT * FROM (SELECT *, casefold(title) AS title_search FROM {TABLE})" + where
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
              files: int | None = None, owner: Owner | None = None) -> ChatRecord:
        now = now_iso()
        with self._connect(write=True) as conn:
            row = conn.execute(f"SELECT * FROM {TABLE} WHERE id = ?", (chat_id,)).fetchone()
            record = touched(_record(row) if row is not None
                             else new_record(chat_id, now, owner),
                             now, question=question, file_name=file_name, files=files)
            _write(conn, record)
        return record

    def remember(self, browser: str, chat_id: str) -> None:
        with self._connect(write=True) as conn:
            conn.execute(f"INSERT OR IGNORE INTO {BROWSERS} (browser, chat, opened) "
                         "VALUES (?, ?, ?)", (browser_hash(browser), chat_id, now_iso()))

    def delete(self, chat_id: str) -> bool:
        with self._connect(write=True) as conn:
            conn.execute(f"DELETE FROM {BROWSERS} WHERE chat = ?", (chat_id,))
            return conn.execute(f"DELETE FROM {TABLE} WHERE id = ?", (chat_id,)).rowcount > 0


def list_filter(search: str, owner: Owner | None, browser: str | None,
                mark: str) -> tuple[str, list[Any]]:
    """The WHERE clause of `ChatIndex.list` and its parameters, written with the driver's
    placeholder `mark` (`?` for sqlite3, `%s` for psycopg); both backends name the casefolded
    title `title_search` in it (a column in PostgreSQL, an expression in SQLite)."""
    terms: list[str] = []
    params: list[Any] = []
    if search.strip():
        terms.append(f"title_search LIKE {mark} ESCAPE '\\'")
        params.append(like_pattern(search))
    if owner is not None:
        terms.append(f"owner_iss = {mark} AND owner_sub = {mark}")
        params += [owner.issuer, owner.subject]
    if browser is not None:
        # A chat no browser has opened and nobody owns was made before browsers were
        # recorded: every browser lists it, as every browser did then, until one opens it.
        terms.append(f"(id IN (SELECT chat FROM {BROWSERS} WHERE browser = {mark}) OR "
                     f"(owner_iss IS NULL AND id NOT IN (SELECT chat FROM {BROWSERS})))")
        params.append(browser_hash(browser))
    return (" WHERE " + " AND ".join(terms) if terms else ""), params


def _record(row: sqlite3.Row) -> ChatRecord:
    return ChatRecord.from_dict(dict(row))


def owner_columns(record: ChatRecord) -> tuple[str | None, str | None]:
    """The record's `owner_iss` and `owner_sub` column values."""
    owner = record.owner
    return (owner.issuer, owner.subject) if owner is not None else (None, None)


def _write(conn: sqlite3.Connection, record: ChatRecord) -> None:
    conn.execute(f"INSERT OR REPLACE INTO {TABLE} (id, title, title_from, created, updated, "
                 f"files, schema_version, owner_iss, owner_sub) "
                 f"VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                 (record.id, record.title, record.title_from, record.created, record.updated,
                  record.files, SCHEMA_VERSION, *owner_columns(record)))
