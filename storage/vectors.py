"""What a workspace embeds, and the vectors it keeps in workspace.sqlite.

The texts (`vector_items`, a pure read of the catalog and the long views): one per column path
and one per row path, each with its ancestors ("H1 2024 > Q2"); one per row-level header
("Department"); the distinct text values of each column, most frequent first, up to a cap
(numbers, dates and other typed values never); one description per table (its title,
file and sheet, and its paths); and one per text chunk of a document (`chunk_items`).

The vectors (`vectors`, keyed by the sha256 of the model's name and the text, so a text is
embedded once per model whatever tables share it) and which files use them (`vector_sources`)
are written when vectors are first asked for (`storage/vector_index.py`), never at ingest:
embedding imports torch. `Workspace.remove_source` deletes a file's links and the vectors no
other file uses, in its own transaction. The Qdrant index is rebuilt from these rows.
"""

from __future__ import annotations

import hashlib
import json
import re
import uuid
from array import array
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from sqlite_utils import Database
from sqlite_utils.db import quote_identifier

from ingest.labels import matching_label
from storage.chunks import StoredChunk
from storage.embedder import VALUES_PER_COLUMN, Embedder, Progress, _no_progress
from storage.records import TableInfo
from storage.transactions import write_transaction
from storage.views import PATH_SEPARATOR

VECTORS_TABLE = "vectors"
SOURCES_TABLE = "vector_sources"
MAX_VALUE_CHARS = 200
DESCRIPTION_PATHS = 40
"""Column and row paths named in a table's description, at most (the model reads 256 pieces)."""

Kind = Literal["column_path", "row_path", "cell", "table", "chunk"]

_SCHEMA = (
    f"""CREATE TABLE IF NOT EXISTS {VECTORS_TABLE} (
        hash TEXT PRIMARY KEY, model TEXT NOT NULL, text TEXT NOT NULL, dim INTEGER NOT NULL,
        vector BLOB NOT NULL) WITHOUT ROWID""",
    f"""CREATE TABLE IF NOT EXISTS {SOURCES_TABLE} (
        source TEXT NOT NULL, hash TEXT NOT NULL, PRIMARY KEY (source, hash)) WITHOUT ROWID""",
    f"CREATE INDEX IF NOT EXISTS vector_sources_by_hash ON {SOURCES_TABLE} (hash)",
)
_NUMBER = re.compile(r"[\s\d.,:%/()+\-–]*")
"""A label of digits and separators only ("2019", "1.2", "(3)"): no words to embed."""


@dataclass(frozen=True, slots=True)
class VectorItem:
    """One text to embed and the point it becomes: what it is and where it comes from."""

    kind: Kind
    table: str
    source: str
    """The file's sha256."""
    file_name: str
    text: str
    """What is embedded."""
    path: tuple[str, ...]
    """The column or row path as the cells show it; a value's column path; a table's file and
    sheet."""
    ref: str | None

    def key(self, model: str) -> str:
        return text_hash(model, self.text)

    def point_id(self) -> str:
        """A stable point id: the same item gets the same id in every process."""
        name = json.dumps([self.table, self.kind, self.text, list(self.path)],
                          ensure_ascii=False)
        return str(uuid.uuid5(uuid.NAMESPACE_URL, name))

    def payload(self) -> dict[str, Any]:
        return {"kind": self.kind, "table": self.table, "path": list(self.path),
                "path_text": PATH_SEPARATOR.join(self.path), "ref": self.ref,
                "source": self.file_name, "sha256": self.source, "text": self.text}


def text_hash(model: str, text: str) -> str:
    """The key of a stored vector: sha256 of the model's name and the text."""
    return hashlib.sha256(f"{model}\n{text}".encode()).hexdigest()


# --- what is embedded (pure reads) -------------------------------------------------------------

def vector_items(db: Database, table: TableInfo, values_per_column: int = VALUES_PER_COLUMN
                 ) -> list[VectorItem]:
    """The texts of one catalog table to embed, each once per kind and path."""
    items: list[VectorItem] = []
    seen: set[tuple[str, str, tuple[str, ...]]] = set()

    def add(kind: Kind, text: str, path: Sequence[str], ref: str | None) -> None:
        text = " ".join(text.split())
        if not text or _NUMBER.fullmatch(text) or (kind, text, tuple(path)) in seen:
            return
        seen.add((kind, text, tuple(path)))
        items.append(VectorItem(kind, table.id, table.source, table.file_name, text,
                                tuple(path), ref))

    tree = table.tree
    for level in tree.rows.levels:
        if level and level.strip():
            add("column_path", matching_label(level), (level,), None)
    for kind, side in (("column_path", tree.columns), ("row_path", tree.rows)):
        refs = {node.id: node.ref for node in side.nodes}
        for entry in side.paths:
            add(kind, PATH_SEPARATOR.join(filter(None, map(matching_label, entry.path))),
                entry.path, refs.get(entry.nodes[-1]) if entry.nodes else None)
    for text, path, ref in frequent_text_values(db, table, values_per_column):
        add("cell", text, path, ref)
    add("table", describe(table), (table.file_name, table.sheet), None)
    return items


def chunk_items(chunks: Iterable[StoredChunk]) -> list[VectorItem]:
    """The text chunks of documents to embed: each chunk's section heading and text (the
    point's `table` is the chunk's id, its path the section)."""
    items = []
    for stored in chunks:
        chunk = stored.chunk
        text = f"{chunk.section}: {chunk.text}" if chunk.section else chunk.text
        items.append(VectorItem("chunk", stored.id, stored.source, stored.file_name, text,
                                (chunk.section,) if chunk.section else (), None))
    return items


def frequent_text_values(db: Database, table: TableInfo, per_column: int
                         ) -> Iterator[tuple[str, list[str], str]]:
    """Yield each column's distinct text values, most frequent first, up to `per_column`,
    with the column's path and the value's first ref."""
    if per_column <= 0:
        return
    rows = db.execute(
        "SELECT col_path, text, ref FROM (SELECT col_path, text, min(ref) AS ref, "
        "count(*) AS n, row_number() OVER (PARTITION BY col_path ORDER BY count(*) DESC, "
        f"min(row), text) AS rank FROM {quote_identifier(table.long)} "
        "WHERE kind = 'text' AND length(text) <= ? AND trim(text) != '' "
        "GROUP BY col_path, text) WHERE rank <= ? ORDER BY col_path, rank",
        [MAX_VALUE_CHARS, per_column])
    for col_path, text, ref in rows:
        yield text.strip(), json.loads(col_path), ref


def describe(table: TableInfo) -> str:
    """A table's description: title, file and sheet, then its column and row paths."""
    def named(paths: Iterable[Sequence[str]]) -> str:
        texts = dict.fromkeys(PATH_SEPARATOR.join(p) for p in paths if any(map(str.strip, p)))
        return "; ".join(list(texts)[:DESCRIPTION_PATHS])

    parts = [table.title or "", f"{table.file_name}{PATH_SEPARATOR}{table.sheet}",
             "columns: " + named(p.path for p in table.tree.columns.paths),
             "rows: " + named(p.path for p in table.tree.rows.paths[:4 * DESCRIPTION_PATHS])]
    return ". ".join(p for p in parts if p and not p.endswith(": "))


# --- stored vectors ----------------------------------------------------------------------------

def ensure_schema(db: Database) -> None:
    for statement in _SCHEMA:
        db.execute(statement)


def _has_schema(db: Database) -> bool:
    return db.execute("SELECT 1 FROM sqlite_master WHERE name = ?",
                      [SOURCES_TABLE]).fetchone() is not None


@dataclass
class Embedded:
    """The vectors of some items by key, and how many texts had to be embedded for them."""

    vectors: dict[str, list[float]]
    embedded: int


def ensure_vectors(db: Database, embedder: Embedder, items: Iterable[VectorItem],
                   progress: Progress = _no_progress) -> Embedded:
    """Return the vectors of `items`, embedding (in batches) only texts not stored yet.

    `items` must hold all the items of each file they touch: that file's links to stored
    vectors are replaced by theirs, and vectors no file links any more are deleted (the old
    headers of a re-read table). The model runs outside any transaction (it may take
    seconds); the new vectors and the links are written in one transaction afterwards. A
    file removed meanwhile gets no links, and its vectors are deleted again at once.
    """
    model = embedder.name
    items = list(items)
    keys: dict[str, str] = {}
    by_source: dict[str, set[str]] = {}
    for item in items:
        key = item.key(model)
        keys.setdefault(key, item.text)
        by_source.setdefault(item.source, set()).add(key)
    if not _has_schema(db):
        with write_transaction(db):
            ensure_schema(db)
    found = _read_vectors(db, keys)
    missing = [key for key in keys if key not in found]
    new = embedder.encode([keys[k] for k in missing], progress) if missing else []
    found.update(zip(missing, new, strict=True))
    with write_transaction(db):
        db.conn.executemany(
            f"INSERT OR IGNORE INTO {VECTORS_TABLE} (hash, model, text, dim, vector) "
            "VALUES (?, ?, ?, ?, ?)",
            ((key, model, keys[key], len(vec), array("f", vec).tobytes())
             for key, vec in zip(missing, new, strict=True)))
        for source, source_keys in by_source.items():
            db.execute(f"DELETE FROM {SOURCES_TABLE} WHERE source = ?", [source])
            if db.execute("SELECT 1 FROM sources WHERE sha256 = ?", [source]).fetchone():
                db.conn.executemany(f"INSERT INTO {SOURCES_TABLE} (source, hash) VALUES (?, ?)",
                                    ((source, key) for key in source_keys))
        _delete_unused(db)
    return Embedded(found, len(missing))


def _read_vectors(db: Database, keys: Mapping[str, str]) -> dict[str, list[float]]:
    found: dict[str, list[float]] = {}
    wanted = list(keys)
    for start in range(0, len(wanted), 500):
        chunk = wanted[start:start + 500]
        marks = ", ".join("?" * len(chunk))
        for key, blob in db.execute(
                f"SELECT hash, vector FROM {VECTORS_TABLE} WHERE hash IN ({marks})", chunk):
            vec = array("f")
            vec.frombytes(blob)
            found[key] = vec.tolist()
    return found


def _delete_unused(db: Database) -> None:
    db.execute(f"DELETE FROM {VECTORS_TABLE} WHERE NOT EXISTS (SELECT 1 FROM {SOURCES_TABLE} s "
               f"WHERE s.hash = {VECTORS_TABLE}.hash)")


def remove_source_vectors(db: Database, source: str) -> None:
    """Delete a file's links and the vectors no other file uses (in the caller's
    transaction)."""
    if not _has_schema(db):
        return
    db.execute(f"DELETE FROM {SOURCES_TABLE} WHERE source = ?", [source])
    _delete_unused(db)


def stored_vector_count(db: Database, source: str | None = None) -> int:
    """How many vectors are stored (those a file uses, with `source`)."""
    if not _has_schema(db):
        return 0
    if source is None:
        return db.execute(f"SELECT count(*) FROM {VECTORS_TABLE}").fetchone()[0]
    return db.execute(f"SELECT count(*) FROM {SOURCES_TABLE} WHERE source = ?",
                      [source]).fetchone()[0]
