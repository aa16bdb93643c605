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

    Each item is `{"type", "table", "text", "path"?, "ref"?, "score"}`, as carried in
    `StepEvent.retrieved`.
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
        candidates = _search(db, terms)
        by_table: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for item in candidates:
            by_table[item["table"]].append(item)
        hits = sorted((_table_hit(table, items) for table, items in by_table.items()),
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


def _search(db: Database, terms: list[str]) -> list[dict[str, Any]]:
    """Return the index rows matching any term, best first, as retrieved items."""
    sql = (f"SELECT s.table_id, s.type, s.text, s.path, s.ref, -bm25({_FTS}) AS score "
           f"FROM {_FTS} JOIN {_INDEX} s ON s.rowid = {_FTS}.rowid "
           f"WHERE {_FTS} MATCH ? ORDER BY score DESC LIMIT ?")
    rows = db.execute(sql, [" OR ".join(terms), _CANDIDATES]).fetchall()
    return [_item(*row) for row in rows]


def _item(table: str, kind: str, text: str, path: str | None, ref: str | None,
          score: float) -> dict[str, Any]:
    """Build a retrieved item, leaving out the keys that are empty."""
    item: dict[str, Any] = {"type": kind, "table": table, "text": text}
    if path is not None:
        item["path"] = json.loads(path)
    if ref is not None:
        item["ref"] = ref
    item["score"] = round(score, 4)
    return item


def _table_hit(table: str, items: list[dict[str, Any]]) -> TableHit:
    """Score a table by its best items (items arrive best first)."""
    score = sum(item["score"] for item in items[:_TOP_ITEMS])
    why = [f"{item['type']}: {item['text']}" for item in items[:_WHY_ITEMS]]
    return TableHit(table, round(score, 4), why)


def _pick_items(per_table: list[list[dict[str, Any]]], budget: int) -> list[dict[str, Any]]:
    """Take each table's best item, then the best of the rest, up to `budget`; best first."""
    picked = [items[0] for items in per_table if items][:budget]
    rest = sorted((item for items in per_table for item in items[1:]),
                  key=lambda item: -item["score"])
    picked.extend(rest[:max(0, budget - len(picked))])
    return sorted(picked, key=lambda item: -item["score"])


# --- index maintenance ------------------------------------------------------------------------
