"""Share links: read-only links to a snapshot of a chat, stored by the SHA-256 of their token.

A link's token (`secrets.token_urlsafe(24)`, 192 bits) is shown to the owner once and never
stored: the table `share_links` in the data directory's `app.sqlite` keeps only its hash, so
a copy of the database (a backup, a log of its rows) opens no chat. A lookup hashes the
token it is given and finds the row by that hash.

A link is usable while it is neither revoked nor past its expiry; `resolve` answers None for
a revoked, expired or unknown token alike, so the page a viewer gets cannot tell them apart.

`ShareLinks` is the interface the app uses; `SqliteShareLinks` is the one shipped in the box
(`PostgresShareLinks` in `storage/share_links_pg.py` when `TABLELENS_DATABASE_URL` is set),
beside the chat index (`storage/chat_index.py`) and in the same style: a connection per call,
WAL and a busy timeout, writes inside BEGIN IMMEDIATE. The table is made when missing, so an
`app.sqlite` from before share links opens as it was and gains the empty table.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import secrets
import sqlite3
from contextlib import AbstractContextManager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Protocol

from storage import app_sqlite
from storage.app_sqlite import FILE_NAME

TABLE = "share_links"
SCHEMA_VERSION = 1
TOKEN_BYTES = 24
"""Random bytes of a token (at least 16: 128 bits); 32 URL-safe characters, so a token never
looks like a chat id (22 characters)."""


def new_token() -> str:
    return secrets.token_urlsafe(TOKEN_BYTES)


def new_link_id() -> str:
    """The link's own id: names its snapshot folder and its widgets, never shown, and opens
    nothing by itself."""
    return secrets.token_hex(12)


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def now_utc() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


def iso(when: dt.datetime) -> str:
    return when.astimezone(dt.UTC).isoformat(timespec="microseconds")


@dataclass(frozen=True)
class ShareLink:
    """One link. Times are ISO 8601 in UTC; `expires` None means never, `revoked` None
    means not revoked."""

    id: str
    chat_id: str
    title: str
    created: str
    expires: str | None = None
    revoked: str | None = None
    allow_files: bool = False
    """Whether the viewer may download the chat's original files."""
    turns: int = 0
    """How many questions the snapshot holds, to say so in the list (links made before
    2026-12-05 counted uploads too)."""

    def usable(self, now: dt.datetime | None = None) -> bool:
        if self.revoked is not None:
            return False
        if self.expires is None:
            return True
        return dt.datetime.fromisoformat(self.expires) > (now or now_utc())

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ShareLink:
        return cls(id=str(data["id"]), chat_id=str(data["chat_id"]), title=str(data["title"]),
                   created=str(data["created"]), expires=data.get("expires"),
                   revoked=data.get("revoked"), allow_files=bool(data.get("allow_files")),
                   turns=int(data.get("turns") or 0))


class ShareLinks(Protocol):
    """What the app asks of the store of share links, whatever database holds it."""

    def add(self, link_id: str, chat_id: str, *, title: str, turns: int = 0,
            allow_files: bool = False, expires_in: dt.timedelta | None = None,
            now: dt.datetime | None = None) -> tuple[ShareLink, str]:
        """Store a new link (its snapshot is already made); return it and its token, the
        only time the token exists outside the viewer's URL."""
        ...

    def resolve(self, token: str, now: dt.datetime | None = None) -> ShareLink | None:
        """The usable link this token opens; None when it is unknown, revoked or expired."""
        ...

    def for_chat(self, chat_id: str, now: dt.datetime | None = None) -> list[ShareLink]:
        """The chat's links not revoked (expired ones included, to say so), newest first."""
        ...

    def get(self, link_id: str) -> ShareLink | None:
        ...

    def revoke(self, link_id: str, now: dt.datetime | None = None) -> bool:
        """Stop the link from opening anything; return whether it was usable until now."""
        ...

    def delete_chat(self, chat_id: str) -> list[ShareLink]:
        """Remove every link of a deleted chat; return them (their snapshots go too)."""
        ...

    def unusable(self, now: dt.datetime | None = None) -> list[ShareLink]:
        """Links revoked or expired: their snapshots can be removed."""
        ...


def new_link(link_id: str, chat_id: str, *, title: str, turns: int = 0,
             allow_files: bool = False, expires_in: dt.timedelta | None = None,
             now: dt.datetime | None = None) -> tuple[ShareLink, str]:
    """A new link and its token (`ShareLinks.add` stores the link with the token's hash)."""
    now = now or now_utc()
    link = ShareLink(link_id, chat_id, title, created=iso(now),
                     expires=iso(now + expires_in) if expires_in is not None else None,
                     allow_files=allow_files, turns=turns)
    return link, new_token()


class SqliteShareLinks:
    """Share links in a SQLite file (`<data_dir>/app.sqlite`, table `share_links`)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self._connect(write=True) as conn:
            conn.execute(f"""CREATE TABLE IF NOT EXISTS {TABLE} (
                id TEXT PRIMARY KEY,
                token_sha256 TEXT NOT NULL UNIQUE,
                chat_id TEXT NOT NULL,
                title TEXT NOT NULL,
                created TEXT NOT NULL,
                expires TEXT,
                revoked TEXT,
                allow_files INTEGER NOT NULL DEFAULT 0,
                turns INTEGER NOT NULL DEFAULT 0,
                schema_version INTEGER NOT NULL DEFAULT {SCHEMA_VERSION})""")
            conn.execute(f"CREATE INDEX IF NOT EXISTS {TABLE}_chat ON {TABLE} (chat_id)")

    @classmethod
    def in_data_dir(cls, data_dir: str | Path) -> SqliteShareLinks:
        return cls(Path(data_dir) / FILE_NAME)

    def _connect(self, write: bool = False) -> AbstractContextManager[sqlite3.Connection]:
        return app_sqlite.connect(self.path, write)

    def add(self, link_id: str, chat_id: str, *, title: str, turns: int = 0,
            allow_files: bool = False, expires_in: dt.timedelta | None = None,
            now: dt.datetime | None = None) -> tuple[ShareLink, str]:
        link, token = new_link(link_id, chat_id, title=title, turns=turns,
                               allow_files=allow_files, expires_in=expires_in, now=now)
        with self._connect(write=True) as conn:
            conn.execute(f"INSERT INTO {TABLE} (id, token_sha256, chat_id, title, created, "
                         "expires, revoked, allow_files, turns, schema_version) "
                         "VALUES (?, ?, ?, ?, ?, ?, NULL, ?, ?, ?)",
                         (link.id, token_hash(token), link.chat_id, link.title, link.created,
                          link.expires, int(link.allow_files), link.turns, SCHEMA_VERSION))
        return link, token

    def resolve(self, token: str, now: dt.datetime | None = None) -> ShareLink | None:
        if not token:
            return None
        with self._connect() as conn:
            row = conn.execute(f"SELECT * FROM {TABLE} WHERE token_sha256 = ?",
                               (token_hash(token),)).fetchone()
        link = _link(row) if row is not None else None
        return link if link is not None and link.usable(now) else None

    def for_chat(self, chat_id: str, now: dt.datetime | None = None) -> list[ShareLink]:
        with self._connect() as conn:
            rows = conn.execute(f"SELECT * FROM {TABLE} WHERE chat_id = ? AND revoked IS NULL "
                                "ORDER BY created DESC, id", (chat_id,)).fetchall()
        return [_link(row) for row in rows]

    def get(self, link_id: str) -> ShareLink | None:
        with self._connect() as conn:
            row = conn.execute(f"SELECT * FROM {TABLE} WHERE id = ?", (link_id,)).fetchone()
        return _link(row) if row is not None else None

    def revoke(self, link_id: str, now: dt.datetime | None = None) -> bool:
        when = now or now_utc()
        with self._connect(write=True) as conn:
            row = conn.execute(f"SELECT * FROM {TABLE} WHERE id = ?", (link_id,)).fetchone()
            if row is None or row["revoked"] is not None:
                return False
            conn.execute(f"UPDATE {TABLE} SET revoked = ? WHERE id = ?", (iso(when), link_id))
        return _link(row).usable(when)

    def delete_chat(self, chat_id: str) -> list[ShareLink]:
        with self._connect(write=True) as conn:
            rows = conn.execute(f"SELECT * FROM {TABLE} WHERE chat_id = ?",
                                (chat_id,)).fetchall()
            conn.execute(f"DELETE FROM {TABLE} WHERE chat_id = ?", (chat_id,))
        return [_link(row) for row in rows]

    def unusable(self, now: dt.datetime | None = None) -> list[ShareLink]:
        now = now or now_utc()
        with self._connect() as conn:
            rows = conn.execute(f"SELECT * FROM {TABLE} WHERE revoked IS NOT NULL "
                                "OR (expires IS NOT NULL AND expires <= ?)",
                                (iso(now),)).fetchall()
        return [_link(row) for row in rows]


def _link(row: sqlite3.Row) -> ShareLink:
    return ShareLink.from_dict(dict(row))
