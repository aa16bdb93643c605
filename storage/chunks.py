"""The text chunks of a workspace's documents, and their full-text index, in workspace.sqlite.

`chunks` holds one row per chunk (`ingest/text_chunks.py`): its id `<file-slug>__c<k>`, its
file (sha256), its text and location (page, section, paragraph, character span). They are
written in the ingest's transaction and deleted with their file. `chunks_fts` (FTS5, external
content, kept in step by triggers, the same tokenizer as the tables' `search_index`) indexes
each chunk's text and section. Vectors of chunks are kept like the tables' (keyed by the hash
of the model and the text, `storage/vectors.py`), written when vectors are first asked for.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from sqlite_utils import Database

from ingest import cancel
from ingest.text_chunks import Chunk
from storage.search_index import TOKENIZE

CHUNKS_TABLE = "chunks"
CHUNKS_FTS = "chunks_fts"

SCHEMA = (
    f"""CREATE TABLE IF NOT EXISTS {CHUNKS_TABLE} (
        id TEXT PRIMARY KEY, source TEXT NOT NULL REFERENCES sources(sha256),
        idx INTEGER NOT NULL, text TEXT NOT NULL, paragraph INTEGER NOT NULL,
        start INTEGER NOT NULL, "end" INTEGER NOT NULL, page INTEGER, section TEXT)""",
    f"CREATE INDEX IF NOT EXISTS chunks_by_source ON {CHUNKS_TABLE} (source, idx)",
    f"""CREATE VIRTUAL TABLE IF NOT EXISTS {CHUNKS_FTS} USING fts5(text, section,
        content='{CHUNKS_TABLE}', content_rowid='rowid', tokenize='{TOKENIZE}')""",
    f"""CREATE TRIGGER IF NOT EXISTS chunks_ai AFTER INSERT ON {CHUNKS_TABLE} BEGIN
        INSERT INTO {CHUNKS_FTS} (rowid, text, section) VALUES (new.rowid, new.text,
        new.section); END""",
    f"""CREATE TRIGGER IF NOT EXISTS chunks_ad AFTER DELETE ON {CHUNKS_TABLE} BEGIN
        INSERT INTO {CHUNKS_FTS} ({CHUNKS_FTS}, rowid, text, section) VALUES ('delete',
        old.rowid, old.text, old.section); END""",
)


@dataclass(frozen=True, slots=True)
class StoredChunk:
    """One stored chunk: its id, its file (hash and name) and the chunk itself."""

    id: str
    source: str
    """The file's sha256."""
    file_name: str
    file_slug: str
    chunk: Chunk

    @property
    def text(self) -> str:
        return self.chunk.text

    def title(self) -> str:
        """Where it is, as a person reads it: "report.pdf, page 2, Results"."""
        parts = [self.file_name]
        if self.chunk.page is not None:
            parts.append(f"page {self.chunk.page}")
        if self.chunk.section:
            parts.append(self.chunk.section)
        parts.append(f"paragraph {self.chunk.paragraph + 1}")
        return ", ".join(parts)


def ensure_schema(conn: sqlite3.Connection) -> None:
    """Create the chunk tables (in the caller's transaction)."""
    for statement in SCHEMA:
        conn.execute(statement)


def chunk_id(file_slug: str, index: int) -> str:
    return f"{file_slug}__c{index}"


def write_chunks(conn: sqlite3.Connection, source: str, file_slug: str,
                 chunks: Iterable[Chunk]) -> int:
    """Insert a file's chunks (in the ingest's transaction); return how many."""
    rows = [(chunk_id(file_slug, c.index), source, c.index, c.text, c.paragraph, c.start,
             c.end, c.page, c.section) for c in chunks]
    for start in range(0, len(rows), 1000):
        cancel.check()
        conn.executemany(f"INSERT INTO {CHUNKS_TABLE} VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                         rows[start:start + 1000])
    return len(rows)


def remove_source_chunks(conn: sqlite3.Connection, source: str) -> None:
    """Delete a file's chunks (their index rows go with them, by trigger)."""
    conn.execute(f"DELETE FROM {CHUNKS_TABLE} WHERE source = ?", [source])


_SELECT = (f"SELECT c.id, c.source, s.name, s.slug, c.idx, c.text, c.paragraph, c.start, "
           f'c."end", c.page, c.section FROM {CHUNKS_TABLE} c JOIN sources s '
           "ON s.sha256 = c.source")


def _stored(row: Sequence[Any]) -> StoredChunk:
    cid, source, name, slug, idx, text, paragraph, start, end, page, section = row
    return StoredChunk(cid, source, name, slug,
                       Chunk(idx, text, paragraph, start, end, page, section))


def read_chunks(db: Database, source: str | None = None,
                ids: Sequence[str] | None = None, limit: int | None = None
                ) -> list[StoredChunk]:
    """The stored chunks (of one file, or with the given ids), in reading order (the first
    `limit` of them when given)."""
    sql, args = _SELECT, []
    if source is not None:
        sql += " WHERE c.source = ?"
        args.append(source)
    elif ids is not None:
        if not ids:
            return []
        sql += f" WHERE c.id IN ({', '.join('?' * len(ids))})"
        args.extend(ids)
    sql += " ORDER BY s.added_at, s.rowid, c.idx"
    if limit is not None:
        sql += " LIMIT ?"
        args.append(limit)
    return [_stored(row) for row in db.execute(sql, args)]


FEW_SOURCES = 50
"""Files searched among themselves in SQL; past this many, the first places are filtered."""


def search_chunks(db: Database, words: Sequence[str], *, limit: int = 50,
                  sources: set[str] | None = None) -> list[tuple[StoredChunk, float]]:
    """Chunks matching any of `words`, best (BM25) first, with their scores."""
    if not words:
        return []
    query = " OR ".join('"' + w.replace('"', '""') + '"' for w in words)
    # A few files (a table's report text) are searched among themselves: read past the
    # first places of the whole workspace, their chunks would be missed.
    among, args = "", [query]
    if sources is not None and len(sources) <= FEW_SOURCES:
        among = f" AND c.source IN ({', '.join('?' * len(sources))})"
        args.extend(sorted(sources))
    rows = db.execute(
        f"SELECT c.id, -bm25({CHUNKS_FTS}) AS score FROM {CHUNKS_FTS} "
        f"JOIN {CHUNKS_TABLE} c ON c.rowid = {CHUNKS_FTS}.rowid WHERE {CHUNKS_FTS} MATCH ?"
        f"{among} ORDER BY score DESC LIMIT ?",
        [*args, limit * 4 if sources else limit]).fetchall()
    by_id = {c.id: c for c in read_chunks(db, ids=[r[0] for r in rows])}
    out = [(by_id[cid], score) for cid, score in rows if cid in by_id
           and (sources is None or by_id[cid].source in sources)]
    return out[:limit]


def has_chunks(db: Database) -> bool:
    try:
        return db.execute(f"SELECT 1 FROM {CHUNKS_TABLE} LIMIT 1").fetchone() is not None
    except sqlite3.OperationalError:
        return False


def text_file_names(db: Database, sources: set[str] | None = None) -> list[str]:
    """The names of the files that have text (of `sources` only, when given), in the order
    they were added."""
    try:
        rows = db.execute(f"SELECT s.name, s.sha256 FROM sources s WHERE EXISTS (SELECT 1 FROM "
                          f"{CHUNKS_TABLE} c WHERE c.source = s.sha256) "
                          "ORDER BY s.added_at, s.rowid").fetchall()
    except sqlite3.OperationalError:
        return []
    return [name for name, source in rows if sources is None or source in sources]


def count_chunks(db: Database, source: str) -> int:
    """How many chunks (passages) a file's text became."""
    try:
        return db.execute(f"SELECT COUNT(*) FROM {CHUNKS_TABLE} WHERE source = ?",
                          [source]).fetchone()[0]
    except sqlite3.OperationalError:
        return 0  # a workspace from before documents: no chunks table yet
