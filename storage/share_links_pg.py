"""Share links in PostgreSQL (`TABLELENS_DATABASE_URL`): the same `ShareLinks` as
`SqliteShareLinks`, so a link made on one app server opens on every other.

The table `share_links` has the SQLite table's columns: the token's SHA-256, never the token;
times as ISO 8601 text in UTC compared bytewise (`COLLATE "C"`), exactly as in `app.sqlite`.
A revoke locks the link's row, so of two revokes at once only one reports the link as
usable until then.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from psycopg_pool import ConnectionPool

from storage.postgres import transaction
from storage.share_links import (
    SCHEMA_VERSION,
    TABLE,
    ShareLink,
    iso,
    new_link,
    now_utc,
    token_hash,
)

_COLUMNS = "id, chat_id, title, created, expires, revoked, allow_files, turns"


class PostgresShareLinks:
    """Share links in a PostgreSQL database, over a shared connection pool."""

    def __init__(self, pool: ConnectionPool) -> None:
        self.pool = pool
        with transaction(pool, lock=f"tablelens schema {TABLE}") as conn:
            conn.execute(f"""CREATE TABLE IF NOT EXISTS {TABLE} (
                id TEXT COLLATE "C" PRIMARY KEY,
                token_sha256 TEXT COLLATE "C" NOT NULL UNIQUE,
                chat_id TEXT COLLATE "C" NOT NULL,
                title TEXT NOT NULL,
                created TEXT COLLATE "C" NOT NULL,
                expires TEXT COLLATE "C",
                revoked TEXT COLLATE "C",
                allow_files BOOLEAN NOT NULL DEFAULT FALSE,
                turns INTEGER NOT NULL DEFAULT 0,
                schema_version INTEGER NOT NULL DEFAULT {SCHEMA_VERSION})""")
            conn.execute(f"CREATE INDEX IF NOT EXISTS {TABLE}_chat ON {TABLE} (chat_id)")

    def add(self, link_id: str, chat_id: str, *, title: str, turns: int = 0,
            allow_files: bool = False, expires_in: dt.timedelta | None = None,
            now: dt.datetime | None = None) -> tuple[ShareLink, str]:
        link, token = new_link(link_id, chat_id, title=title, turns=turns,
                               allow_files=allow_files, expires_in=expires_in, now=now)
        with transaction(self.pool) as conn:
            conn.execute(f"INSERT INTO {TABLE} (id, token_sha256, chat_id, title, created, "
                         "expires, revoked, allow_files, turns, schema_version) "
                         "VALUES (%s, %s, %s, %s, %s, %s, NULL, %s, %s, %s)",
                         (link.id, token_hash(token), link.chat_id, link.title, link.created,
                          link.expires, link.allow_files, link.turns, SCHEMA_VERSION))
        return link, token

    def resolve(self, token: str, now: dt.datetime | None = None) -> ShareLink | None:
        if not token:
            return None
        link = self._one("token_sha256", token_hash(token))
        return link if link is not None and link.usable(now) else None

    def for_chat(self, chat_id: str, now: dt.datetime | None = None) -> list[ShareLink]:
        return self._many(f"SELECT {_COLUMNS} FROM {TABLE} WHERE chat_id = %s "
                          "AND revoked IS NULL ORDER BY created DESC, id", (chat_id,))

    def get(self, link_id: str) -> ShareLink | None:
        return self._one("id", link_id)

    def revoke(self, link_id: str, now: dt.datetime | None = None) -> bool:
        when = now or now_utc()
        with transaction(self.pool) as conn:
            row = conn.execute(f"SELECT {_COLUMNS} FROM {TABLE} WHERE id = %s FOR UPDATE",
                               (link_id,)).fetchone()
            if row is None or row["revoked"] is not None:
                return False
            conn.execute(f"UPDATE {TABLE} SET revoked = %s WHERE id = %s", (iso(when), link_id))
        return ShareLink.from_dict(row).usable(when)

    def delete_chat(self, chat_id: str) -> list[ShareLink]:
        with transaction(self.pool) as conn:
            rows = conn.execute(f"DELETE FROM {TABLE} WHERE chat_id = %s RETURNING {_COLUMNS}",
                                (chat_id,)).fetchall()
        return [ShareLink.from_dict(row) for row in rows]

    def unusable(self, now: dt.datetime | None = None) -> list[ShareLink]:
        return self._many(f"SELECT {_COLUMNS} FROM {TABLE} WHERE revoked IS NOT NULL "
                          "OR (expires IS NOT NULL AND expires <= %s)", (iso(now or now_utc()),))

    def _one(self, column: str, value: str) -> ShareLink | None:
        with self.pool.connection() as conn:
            row = conn.execute(f"SELECT {_COLUMNS} FROM {TABLE} WHERE {column} = %s",
                               (value,)).fetchone()
        return ShareLink.from_dict(row) if row is not None else None

    def _many(self, sql: str, params: tuple[Any, ...]) -> list[ShareLink]:
        with self.pool.connection() as conn:
            return [ShareLink.from_dict(row) for row in conn.execute(sql, params)]
