"""The full-text search index of a workspace: titles, column paths, row labels and cell values
of every table, kept in step with the catalog inside the ingest transaction.

It lives with storage because the workspace maintains it; `agent/retriever.py` searches it.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from sqlite_utils import Database
from sqlite_utils.db import quote_identifier

from ingest import cancel
from ingest.labels import matching_label
from storage.header_tree import TreeSide
from storage.records import TableInfo
from storage.views import PATH_SEPARATOR, read_catalog

SEARCH_TABLE = "search_index"
FTS_TABLE = f"{SEARCH_TABLE}_fts"
TOKENIZE = "porter unicode61 remove_diacritics 2"
CJK_TABLE = f"{SEARCH_TABLE}_cjk"
"""Trigrams of the index rows with CJK characters. unicode61 takes a run of Chinese or
Japanese characters for one word ("营业收入合计"), so a question's "营业收入" never matches it;
FTS5's trigram tokenizer finds any substring of three characters or more."""
CJK_GLOB = "*[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]*"
"""A text with a kana, CJK ideograph or Hangul character (SQLite's GLOB ranges are code
points): only those rows are put in the trigram index, which is several times larger per
character than the word index."""
MAX_VALUE_CHARS = 200
MAX_VALUES_PER_COLUMN = 5_000
"""Distinct text values indexed per column: a free-text column of a huge CSV stops here, and
does not crowd out the other columns."""

_INDEX = quote_identifier(SEARCH_TABLE)
_FTS = quote_identifier(FTS_TABLE)
_CJK = quote_identifier(CJK_TABLE)
_COLUMNS = "table_id, type, text, path, ref"
_STAGE = "temp.search_index_stage"
"""Where index rows wait to go into the index in one statement (`_insert`)."""


def ensure_index(db: Database) -> None:
    """Create `search_index`, its FTS5 table and its CJK trigram table where missing (a
    workspace stored before the trigram index gets it here, filled from its rows once)."""
    table = db.table(SEARCH_TABLE)
    if table.exists() and db.table(CJK_TABLE).exists():
        return
    with db.atomic():
        if not table.exists():
            table.create({"table_id": str, "type": str, "text": str, "path": str, "ref": str},
                         not_null={"table_id", "type", "text"})
            table.create_index(["table_id"])
            table.enable_fts(["text"], tokenize=TOKENIZE, create_triggers=True)
        if not db.table(CJK_TABLE).exists():
            _create_cjk_index(db)


def _create_cjk_index(db: Database) -> None:
    """The trigram table over the CJK rows of `search_index`, kept in step by triggers that
    see only those rows (an external-content FTS5 table must never be told to delete a row
    it does not hold), and filled from the rows already there. The index's rows are inserted
    and deleted, never updated: there is no update trigger."""
    cjk = f"{{}}.text GLOB '{CJK_GLOB}'"
    db.execute(f"CREATE VIRTUAL TABLE {_CJK} USING fts5(text, content={_INDEX}, "
               "tokenize='trigram')")
    db.execute(f"CREATE TRIGGER {quote_identifier(CJK_TABLE + '_ai')} AFTER INSERT ON {_INDEX} "
               f"WHEN {cjk.format('new')} BEGIN INSERT INTO {_CJK} (rowid, text) "
               "VALUES (new.rowid, new.text); END")
    db.execute(f"CREATE TRIGGER {quote_identifier(CJK_TABLE + '_ad')} AFTER DELETE ON {_INDEX} "
               f"WHEN {cjk.format('old')} BEGIN INSERT INTO {_CJK} ({_CJK}, rowid, text) "
               "VALUES ('delete', old.rowid, old.text); END")
    db.execute(f"INSERT INTO {_CJK} (rowid, text) SELECT rowid, text FROM {_INDEX} "
               f"WHERE {cjk.format(_INDEX)}")


def index_tables(db: Database, table_ids: Iterable[str]) -> None:
    """(Re)index the given tables; ids no longer in the catalog just leave the index.

    Runs in the caller's transaction when there is one (a savepoint), so a failed ingest
    leaves no index rows behind.
    """
    ids = list(table_ids)
    with db.atomic():
        ensure_index(db)
        remove_from_index(db, ids)
        for table_id in ids:
            cancel.check()
            for table in read_catalog(db, table_id):
                cancel.check()  # decoding a big table's tree takes a while
                _insert(db, cancel.checked(_index_rows(db, table)))


def _insert(db: Database, rows: Iterable[dict[str, Any]]) -> None:
    """Add rows to the index: staged, then moved in one INSERT ... SELECT, in their order.

    The index's triggers feed FTS5, whose work is per statement: a row per statement
    (executemany straight into the index) took 14 us a row, 40,000 row labels 0.57 s; staged,
    3 us, 0.13 s. Plain executemany, not sqlite-utils' insert_all: that re-reads
    sqlite_master once per call, and a page of many small tables makes the schema large.
    """
    conn = db.conn
    # Filled and emptied inside the caller's transaction: rolled back, it is left empty.
    conn.execute(f"CREATE TEMP TABLE IF NOT EXISTS {_STAGE} ({_COLUMNS})")
    conn.executemany(f"INSERT INTO {_STAGE} ({_COLUMNS}) "
                     "VALUES (:table_id, :type, :text, :path, :ref)", rows)
    conn.execute(f"INSERT INTO {_INDEX} ({_COLUMNS}) SELECT {_COLUMNS} FROM {_STAGE} "
                 "ORDER BY rowid")
    conn.execute(f"DELETE FROM {_STAGE}")


def remove_from_index(db: Database, table_ids: Iterable[str]) -> None:
    """Delete the index rows of the given tables (nothing to do without an index)."""
    if not db.table(SEARCH_TABLE).exists():
        return
    db.conn.executemany(f"DELETE FROM {_INDEX} WHERE table_id = ?",
                        [(table_id,) for table_id in table_ids])


def index_missing(db: Database) -> None:
    """Index the tables of a workspace stored before it had a search index."""
    ensure_index(db)
    missing = [row[0] for row in db.execute(
        "SELECT id FROM catalog c WHERE NOT EXISTS "
        f"(SELECT 1 FROM {_INDEX} s WHERE s.table_id = c.id)")]
    if missing:
        index_tables(db, missing)


def index_flat_table(db: Database, table: TableInfo, labels: str,
                     values: Iterable[tuple[int, str, str]]) -> None:
    """Index a flat table (storage/flat_table.py) from set-based SQL, without decoding its
    tree (a node per record): `labels` is a SELECT of each distinct row label with the ref of
    its first cell, `values` gives each distinct text value as (column, text, first ref)."""
    paths = {path.position: path.path for path in table.tree.columns.paths}
    tid = table.id
    with db.atomic():
        ensure_index(db)
        _insert(db, cancel.checked(_outline_rows(db, table, (("column", table.tree.columns),))))
        # A label is matched without footnote markers or a list number; only a label that
        # ends in a marker's character or has "." or ")" near its start can have one, so the
        # Python function runs on those alone (640k distinct labels took 5 s through it).
        db.conn.create_function(_MATCHING, 1, matching_label, deterministic=True)
        cancel.check()
        db.conn.execute(
            f"INSERT INTO {_INDEX} (table_id, type, text, path, ref) SELECT ?, 'row', "
            f"CASE WHEN label GLOB '*[])*†‡§¶]' OR substr(label, 1, 7) "
            f"GLOB '*[.)]*' THEN {_MATCHING}(label) ELSE label END, json_array(label), ref "
            f"FROM ({labels}) WHERE trim(label) != ''", [tid])
        _insert(db, cancel.checked(
            _row(tid, "value", text, paths.get(col, ()), ref) for col, text, ref in values
            if text.strip()))


_MATCHING = "tablelens_matching_label"
"""`ingest.labels.matching_label` as an SQL function (registered where it is used)."""


def _row(tid: str, kind: str, text: str, path: Sequence[str] | None = None,
         ref: str | None = None) -> dict[str, Any]:
    """One row of the index."""
    return {"table_id": tid, "type": kind, "text": text,
            "path": json.dumps(list(path), ensure_ascii=False) if path is not None else None,
            "ref": ref}


def _index_rows(db: Database, table: TableInfo) -> Iterator[dict[str, Any]]:
    """Yield the index rows of one catalog table."""
    tree = table.tree
    yield from _outline_rows(db, table, (("column", tree.columns), ("row", tree.rows)))
    yield from (_row(table.id, "value", text, path, ref)
                for text, path, ref in _text_values(db, table))


def _outline_rows(db: Database, table: TableInfo, sides: Iterable[tuple[str, TreeSide]]
                  ) -> Iterator[dict[str, Any]]:
    """Yield the index rows of a table's place, titles, row levels and the header paths of
    the given tree sides."""
    tid = table.id
    place = [table.file_name, table.sheet]
    yield _row(tid, "table", PATH_SEPARATOR.join(place), place)
    yield from (_row(tid, "title", text, ref=ref) for text, ref in _titles(db, table))
    # Header labels are indexed without their footnote markers ("Total area[2]" is found by
    # "total area", not by "2"); `path` keeps them as the cells show them.
    for level in table.tree.rows.levels:
        if level and level.strip():
            yield _row(tid, "column", matching_label(level), [level])
    seen: set[tuple[str, str]] = set()
    for kind, side in sides:
        refs = {node.id: node.ref for node in side.nodes}
        for entry in side.paths:
            text = PATH_SEPARATOR.join(entry.path)
            if not text.strip() or (kind, text) in seen:
                continue
            seen.add((kind, text))
            yield _row(tid, kind, PATH_SEPARATOR.join(map(matching_label, entry.path)),
                       entry.path, refs.get(entry.nodes[-1]) if entry.nodes else None)


def _titles(db: Database, table: TableInfo) -> Iterator[tuple[str, str | None]]:
    """Yield the table's title and notes with the reference of their first cell."""
    if not (table.title or table.notes):
        # Nothing to find: the query below reads every cell of the sheet (0.13 s at 1M).
        return
    # The grid narrows the scan to the table's sheet (cells are keyed by grid, row, col).
    cells = list(db.execute("SELECT role, text, ref FROM cells WHERE grid = ? AND table_id = ? "
                            "AND role IN ('title', 'note') ORDER BY row, col",
                            [table.grid, table.id]))
    if table.title:
        # An HTML caption is a title without a cell.
        yield table.title, next((ref for role, _, ref in cells if role == "title"), None)
    yield from ((text.strip(), ref) for role, text, ref in cells
                if role == "note" and text.strip())


def _text_values(db: Database, table: TableInfo) -> Iterator[tuple[str, list[str], str]]:
    """Yield each distinct short text value of each column, with its column path and first ref."""
    seen: set[tuple[str, str]] = set()
    per_column: Counter[str] = Counter()
    rows = db.execute(f"SELECT text, col_path, ref FROM {quote_identifier(table.long)} "
                      "WHERE kind = 'text' AND length(text) <= ? ORDER BY row, col",
                      [MAX_VALUE_CHARS])
    for n, (text, col_path, ref) in enumerate(rows):
        if not n & 1023:
            cancel.check()
        if (not text.strip() or (text, col_path) in seen
                or per_column[col_path] >= MAX_VALUES_PER_COLUMN):
            continue
        seen.add((text, col_path))
        per_column[col_path] += 1
        yield text, json.loads(col_path), ref
