"""Find the tables, headers, rows and values a question talks about.

`Retriever` is the interface the agent's `retrieve` node calls; `LexicalRetriever` implements it
with SQLite full-text search (FTS5, Porter stemming) over the workspace's `search_index` table,
plus a fuzzy fallback (rapidfuzz) for words the index does not know ("expence" for "Expenses").

`search_index` lives in workspace.sqlite, one row per searchable text of a table:

    table_id  the table id (catalog.id)
    type      table  (file name > sheet), title (the title and notes around the table),
              column (a column path joined " > ", or a row-level header such as "Department"),
              row    (a row path joined " > "),
              value  (a distinct text cell of a column, up to MAX_VALUE_CHARS characters)
    text      the text searched and shown
    path      JSON list: the file name and sheet, the column or row path, or for a value the
              path of its column; NULL for titles
    ref       A1 reference of the cell the text comes from (a value's first cell), or NULL

`search_index_fts` (external content, kept in step by triggers) indexes `text`. The workspace
calls `index_tables` and `remove_from_index` inside its ingest, restructure and remove
transactions, so the index never disagrees with the catalog.
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from rapidfuzz import fuzz, process
from sqlite_utils import Database
from sqlite_utils.db import quote_identifier

from agent.text import STOPWORDS, stem, words
from storage.search_index import FTS_TABLE, SEARCH_TABLE, index_missing

if TYPE_CHECKING:
    from storage.workspace import Workspace

FUZZY_CUTOFF = 80
"""Least rapidfuzz ratio (0-100) for a label word to stand in for an unknown question word."""

_INDEX = quote_identifier(SEARCH_TABLE)
_FTS = quote_identifier(FTS_TABLE)
_LABEL_TYPES = ("title", "column", "row")
_CANDIDATES = 500
"""Index rows fetched per question, best first, before they are grouped by table."""
_TOP_ITEMS = 5
"""A table scores the sum of its best items' scores: a few strong matches, not many weak ones."""
_WHY_ITEMS = 3
INDEX_KINDS = {"table": "table", "title": "table", "column": "column_path", "row": "row_path",
               "value": "cell"}
"""The "Retrieved items" kind (CONTRACTS.md) of each `search_index` type: a title finds its
table; a value is a cell."""


@dataclass
class TableHit:
    """A table the question seems to be about, with the matches that say so."""

    table: str
    score: float
    why: list[str]
    """Its best matched items, as "type: text"."""


@dataclass
class Retrieved:
    """What a retriever found: tables best first, and the matched items (JSON-ready dicts).

    Each item has the one "Retrieved items" shape of CONTRACTS.md, as carried in
    `StepEvent.retrieved`: `{"kind": table|column_path|row_path|cell, "table", "ref"?,
    "path"?, "source"?, "text"?, "score"}`. `text` is an addition to the contract, kept where
    the path does not say what was found: a cell's value (its path is its column's) and a
    table's title.
    """

    tables: list[TableHit] = field(default_factory=list)
    items: list[dict[str, Any]] = field(default_factory=list)

    def to_json_dict(self) -> dict[str, Any]:
        """Return what was found as plain JSON-ready data."""
        return asdict(self)


class Retriever(Protocol):
    """Find what in a workspace a question is about (lexical now, embeddings later)."""

    def retrieve(self, question: str, workspace: Workspace, budget: int = 20) -> Retrieved:
        """Return the tables for `question` and at most `budget` matched items."""
        ...


class LexicalRetriever:
    """Retrieve with FTS5 over `search_index`, and fuzzy matching for unknown words.

    It names at most `max_tables` tables.
    """

    def __init__(self, max_tables: int = 5) -> None:
        self.max_tables = max_tables

    def retrieve(self, question: str, workspace: Workspace, budget: int = 20) -> Retrieved:
        """Return the best tables for `question` and at most `budget` of their matched items."""
        db = workspace.db
        index_missing(db)
        terms = _search_terms(db, _question_words(question))
        if not terms:
            return Retrieved()
        by_table: dict[str, list[IndexRow]] = defaultdict(list)
        for row in _search(db, terms):
            by_table[row.table].append(row)
        hits = sorted((_table_hit(table, rows) for table, rows in by_table.items()),
                      key=lambda hit: -hit.score)[:self.max_tables]
        return Retrieved(hits, _pick_items([by_table[hit.table] for hit in hits], budget))


def _question_words(question: str) -> list[str]:
    """Return the question's distinct content words (stopwords and lone letters dropped)."""
    return list(dict.fromkeys(w for w in words(question)
                              if w not in STOPWORDS and (len(w) > 1 or w.isdigit())))


def _fts_term(word: str) -> str:
    """Quote a word for an FTS5 query, so words such as NEAR or `a*b` stay plain text."""
    return '"' + word.replace('"', '""') + '"'


def _search_terms(db: Database, question_words: list[str]) -> list[str]:
    """Return FTS terms: each word the index knows, else label words close to it."""
    terms: list[str] = []
    unknown: list[str] = []
    for word in question_words:
        term = _fts_term(word)
        if db.execute(f"SELECT 1 FROM {_FTS} WHERE {_FTS} MATCH ? LIMIT 1",
                      [term]).fetchone():
            terms.append(term)
        elif len(word) >= 4 and not any(ch.isdigit() for ch in word):
            # Numbers and short words are left out: "2023" is not a typo of "2024".
            unknown.append(word)
    if unknown:
        labels = _label_words(db)
        for word in unknown:
            matches = process.extract(stem(word), labels.keys(), scorer=fuzz.ratio,
                                      score_cutoff=FUZZY_CUTOFF, limit=3)
            terms.extend(_fts_term(labels[match]) for match, _score, _ in matches)
    return list(dict.fromkeys(terms))


def _label_words(db: Database) -> dict[str, str]:
    """Map the stems of the words of titles, headers and row labels to one of their words."""
    marks = ", ".join("?" * len(_LABEL_TYPES))
    out: dict[str, str] = {}
    for (text,) in db.execute(f"SELECT text FROM {_INDEX} WHERE type IN ({marks})",
                              _LABEL_TYPES):
        for word in words(text):
            if len(word) >= 3:
                out.setdefault(stem(word), word)
    return out


@dataclass(frozen=True)
class IndexRow:
    """One `search_index` row a full-text query matched, with its BM25 score."""

    table: str
    type: str
    text: str
    path: tuple[str, ...] | None
    ref: str | None
    score: float

    @property
    def kind(self) -> str:
        return INDEX_KINDS.get(self.type, "cell")


def _search(db: Database, terms: list[str]) -> list[IndexRow]:
    """Return the index rows matching any term, best first."""
    sql = (f"SELECT s.table_id, s.type, s.text, s.path, s.ref, -bm25({_FTS}) AS score "
           f"FROM {_FTS} JOIN {_INDEX} s ON s.rowid = {_FTS}.rowid "
           f"WHERE {_FTS} MATCH ? ORDER BY score DESC LIMIT ?")
    rows = db.execute(sql, [" OR ".join(terms), _CANDIDATES]).fetchall()
    return [IndexRow(table, kind, text, tuple(json.loads(path)) if path is not None else None,
                     ref, score) for table, kind, text, path, ref, score in rows]


def _item(row: IndexRow) -> dict[str, Any]:
    """The row as a retrieved item, keys absent when empty. A table row's path is its file
    and sheet: the file is the item's source."""
    item: dict[str, Any] = {"kind": row.kind, "table": row.table}
    if row.ref is not None:
        item["ref"] = row.ref
    if row.type == "table":
        if row.path:
            item["source"] = row.path[0]
    elif row.path:
        item["path"] = list(row.path)
    if row.type in ("title", "value"):
        item["text"] = row.text
    item["score"] = round(row.score, 4)
    return item


def _table_hit(table: str, rows: list[IndexRow]) -> TableHit:
    """Score a table by its best rows (rows arrive best first)."""
    score = sum(row.score for row in rows[:_TOP_ITEMS])
    why = [f"{row.type}: {row.text}" for row in rows[:_WHY_ITEMS]]
    return TableHit(table, round(score, 4), why)


def _pick_items(per_table: list[list[IndexRow]], budget: int) -> list[dict[str, Any]]:
    """Take each table's best row, then the best of the rest, up to `budget`; as items,
    best first."""
    picked = [rows[0] for rows in per_table if rows][:budget]
    rest = sorted((row for rows in per_table for row in rows[1:]), key=lambda row: -row.score)
    picked.extend(rest[:max(0, budget - len(picked))])
    return [_item(row) for row in sorted(picked, key=lambda row: -row.score)]


# --- index maintenance ------------------------------------------------------------------------
