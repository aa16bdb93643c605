"""The chat index in PostgreSQL (`TABLELENS_DATABASE_URL`): the same `ChatIndex` as
`SqliteChatIndex`, for several app servers sharing one list of chats.

The table `chats` has the SQLite table's columns and stores the same strings: times stay ISO
8601 text in UTC and every text column compares bytewise (`COLLATE "C"`), so the list comes
out in the same order from either backend whatever the server's locale. A search matches
`title_search`, the title casefolded in Python when it is written, because PostgreSQL's
`lower()` and Python's `casefold()` disagree on some letters (ß).

The owner columns and `chat_browsers` (schema 2) are added to a table of schema 1 when the
index opens; its rows keep no owner.

A call that reads then writes (`touch`, `rename`) locks the chat's row (`SELECT ... FOR
UPDATE`) for its transaction, so a rename and a question arriving at once on two servers
cannot undo each other.
"""

from __future__ import annotations

from typing import Any

from psycopg_pool import ConnectionPool

from storage.chat_index import (
    BROWSERS,
    SCHEMA_VERSION,
    TABLE,
    ChatRecord,
    EmptyTitle,
    Owner,
    UnknownChat,
    browser_hash,
    clean_title,
    list_filter,
    new_record,
    now_iso,
    owner_columns,
    renamed,
    touched,
)
from storage.postgres import transaction

_COLUMNS = "id, title, title_from, created, updated, files, owner_iss, owner_sub"


class PostgresChatIndex:
    """The chat index in a PostgreSQL database, over a shared connection pool."""

    def __init__(self, pool: ConnectionPool) -> None:
        self.pool = pool
        with transaction(pool, lock=f"tablelens schema {TABLE}") as conn:
            conn.execute(f"""CREATE TABLE IF NOT EXISTS {TABLE} (
                id TEXT COLLATE "C" PRIMARY KEY,
                title TEXT NOT NULL,
                title_search TEXT COLLATE "C" NOT NULL,
                title_from TEXT NOT NULL DEFAULT 'default',
                created TEXT COLLATE "C" NOT NULL,
                updated TEXT COLLATE "C" NOT NULL,
                files INTEGER NOT NULL DEFAULT 0,
                schema_version INTEGER NOT NULL DEFAULT {SCHEMA_VERSION})""")
            for column in ("owner_iss", "owner_sub"):  # an index of schema 1 gains them
                conn.execute(f'ALTER TABLE {TABLE} ADD COLUMN IF NOT EXISTS {column} '
                             f'TEXT COLLATE "C"')
            conn.execute(f"CREATE INDEX IF NOT EXISTS {TABLE}_updated ON {TABLE} (updated)")
            conn.execute(f"CREATE INDEX IF NOT EXISTS {TABLE}_owner ON {TABLE} "
                         "(owner_iss, owner_sub, updated)")
            conn.execute(f"""CREATE TABLE IF NOT EXISTS {BROWSERS} (
                browser TEXT COLLATE "C" NOT NULL,
                chat TEXT COLLATE "C" NOT NULL,
                opened TEXT COLLATE "C" NOT NULL,
                PRIMARY KEY (browser, chat))""")
            conn.execute(f"CREATE INDEX IF NOT EXISTS {BROWSERS}_chat ON {BROWSERS} (chat)")

    def list(self, search: str = "", limit: int | None = None, *, owner: Owner | None = None,
             browser: str | None = None) -> list[ChatRecord]:
        where, params = list_filter(search, owner, browser, "%s")
        sql = f"SELECT {_COLUMNS} FROM {TABLE}" + where
        sql += " ORDER BY updated DESC, created DESC, id"
        if limit is not None:
            sql += " LIMIT %s"
            params.append(limit)
        with self.pool.connection() as conn:
            return [ChatRecord.from_dict(row) for row in conn.execute(sql, params)]

    def get(self, chat_id: str) -> ChatRecord | None:
        with self.pool.connection() as conn:
            row = conn.execute(f"SELECT {_COLUMNS} FROM {TABLE} WHERE id = %s",
                               (chat_id,)).fetchone()
        return ChatRecord.from_dict(row) if row is not None else None

    def upsert(self, record: ChatRecord) -> None:
        with transaction(self.pool) as conn:
            _write(conn, record)

    def rename(self, chat_id: str, title: str) -> ChatRecord:
        if not clean_title(title):
            raise EmptyTitle()
        with transaction(self.pool) as conn:
            row = _locked(conn, chat_id)
            if row is None:
                raise UnknownChat(chat_id)
            record = renamed(ChatRecord.from_dict(row), title)
            _write(conn, record)
        return record

    def touch(self, chat_id: str, *, question: str | None = None, file_name: str | None = None,
              files: int | None = None, owner: Owner | None = None) -> ChatRecord:
        now = now_iso()
        with transaction(self.pool) as conn:
            # Make the row if it is missing, then lock it: two first uses of a chat at once
            # then queue on the row instead of both inserting it.
            _write(conn, new_record(chat_id, now, owner), replace=False)
            record = touched(ChatRecord.from_dict(_locked(conn, chat_id)), now,
                             question=question, file_name=file_name, files=files)
            _write(conn, record)
        return record

    def remember(self, browser: str, chat_id: str) -> None:
        with transaction(self.pool) as conn:
            conn.execute(f"INSERT INTO {BROWSERS} (browser, chat, opened) VALUES (%s, %s, %s) "
                         "ON CONFLICT DO NOTHING", (browser_hash(browser), chat_id, now_iso()))

    def delete(self, chat_id: str) -> bool:
        with transaction(self.pool) as conn:
            conn.execute(f"DELETE FROM {BROWSERS} WHERE chat = %s", (chat_id,))
            return conn.execute(f"DELETE FROM {TABLE} WHERE id = %s",
                                (chat_id,)).rowcount > 0


def _locked(conn: Any, chat_id: str) -> dict[str, Any] | None:
    return conn.execute(f"SELECT {_COLUMNS} FROM {TABLE} WHERE id = %s FOR UPDATE",
                        (chat_id,)).fetchone()


def _write(conn: Any, record: ChatRecord, *, replace: bool = True) -> None:
    """Store the record; with `replace` False, only when the chat has no row yet."""
    on_conflict = ("DO UPDATE SET title = EXCLUDED.title, title_search = EXCLUDED.title_search, "
                   "title_from = EXCLUDED.title_from, created = EXCLUDED.created, "
                   "updated = EXCLUDED.updated, files = EXCLUDED.files, "
                   "schema_version = EXCLUDED.schema_version, owner_iss = EXCLUDED.owner_iss, "
                   "owner_sub = EXCLUDED.owner_sub") if replace else "DO NOTHING"
    conn.execute(f"INSERT INTO {TABLE} (id, title, title_search, title_from, created, updated, "
                 f"files, schema_version, owner_iss, owner_sub) "
                 f"VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s) "
                 f"ON CONFLICT (id) {on_conflict}",
                 (record.id, record.title, record.title.casefold(), record.title_from,
                  record.created, record.updated, record.files, SCHEMA_VERSION,
                  *owner_columns(record)))
