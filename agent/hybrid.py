"""Hybrid search: full-text hits and vector neighbours of a question, fused by rank.

Three ranked lists are fused by reciprocal rank fusion (`score = sum 1 / (k + rank)`, k = 60,
ranks from 1), so neither BM25's nor cosine's scale matters, only each list's order:

- **full text**: the workspace's FTS5 `search_index` (titles, column and row paths, distinct
  text values), asked as `agent/retriever.py` asks it (with its fuzzy fallback);
- **exact values**: the question's numbers and codes ("10452", "1,234.5", "AB-77") looked up
  verbatim among the data cells, since numbers are not in the full-text index and a model's
  vectors do not tell one number from another;
- **text**: the documents' text chunks found by full text (`storage/chunks.py`, BM25 over the
  chunk and its section), a list of their own so that the best chunk ranks as high as the
  best table item;
- **vectors**: the nearest points of `storage/vector_index.py` (header paths, text values,
  table descriptions, text chunks), when an index is given.

What comes out is the one item shape of CONTRACTS.md ("Retrieved items"): `{"kind", "table"?,
"ref"?, "path"?, "source"?, "score"}`, best first (`Hit.item()`); a chunk's item names it by
`"chunk"` (its id) instead of `"table"`, and its path is its section.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, cast

from agent.retriever import _question_words, _search, _search_terms
from storage.chunks import has_chunks, read_chunks, search_chunks
from storage.search_index import index_missing

if TYPE_CHECKING:
    from storage.vector_index import VectorIndex
    from storage.workspace import Workspace

RRF_K = 60
LEXICAL_LIMIT = 100
VECTOR_LIMIT = 30
EXACT_LIMIT = 50
TEXT_LIMIT = 30

ItemKind = Literal["table", "column_path", "row_path", "row", "cell", "chunk"]

_EXACT = re.compile(r"(?<![\w.,])(?:[A-Za-z]+[-/]?\d[\w./-]*|\d[\w./-]*[A-Za-z][\w./-]*"
                    r"|\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)%?(?![\w])")
"""A number or a code with digits, as written in the question ("10452", "1,234.5", "AB-77",
"7K2")."""
EXACT_MAX_CELLS = 20
"""A number or code found in more cells than this tells nothing about where to look (a "2"
among the counts of a column): its cells are left out."""


@dataclass
class Hit:
    """One thing found: what it is, where it is, and its fused score."""

    kind: ItemKind
    table: str
    text: str
    path: tuple[str, ...] = ()
    ref: str | None = None
    source: str | None = None
    score: float = 0.0
    found_by: set[str] = field(default_factory=set)
    """"fts", "exact" and/or "vector"."""

    @property
    def key(self) -> tuple[Any, ...]:
        """What makes two lists' hits the same thing."""
        if self.kind == "table":
            return ("table", self.table)
        if self.kind == "cell":
            return ("cell", self.table, self.path, _norm(self.text))
        return (self.kind, self.table, self.path)

    def item(self) -> dict[str, Any]:
        """The hit in the "Retrieved items" shape, keys absent when empty."""
        out: dict[str, Any] = ({"kind": self.kind, "chunk": self.table}
                               if self.kind == "chunk" else
                               {"kind": self.kind, "table": self.table})
        if self.ref:
            out["ref"] = self.ref
        if self.path:
            out["path"] = list(self.path)
        if self.source:
            out["source"] = self.source
        out["score"] = round(self.score, 6)
        return out


def rrf(lists: Sequence[Sequence[Hit]], k: int = RRF_K) -> list[Hit]:
    """Fuse ranked lists by reciprocal rank: a thing's score is the sum over the lists that
    hold it of 1 / (k + rank); best first, ties in first-seen order. A thing keeps the first
    ref, path and source any list gave it."""
    fused: dict[tuple[Any, ...], Hit] = {}
    for hits in lists:
        seen: set[tuple[Any, ...]] = set()
        rank = 0
        for hit in hits:
            key = hit.key
            if key in seen:  # a list counts a thing once, at its best rank
                continue
            seen.add(key)
            rank += 1
            into = fused.get(key)
            if into is None:
                into = fused[key] = Hit(hit.kind, hit.table, hit.text, hit.path, hit.ref,
                                        hit.source, 0.0, set())
            into.ref = into.ref or hit.ref
            into.source = into.source or hit.source
            into.score += 1.0 / (k + rank)
            into.found_by |= hit.found_by
    return sorted(fused.values(), key=lambda h: -h.score)


class HybridSearch:
    """Full text, exact values and (with an index) vectors over one workspace, fused."""

    def __init__(self, workspace: Workspace, vectors: VectorIndex | None = None, *,
                 k: int = RRF_K) -> None:
        self.workspace = workspace
        self.vectors = vectors
        self.k = k

    def search(self, question: str, *, tables: Iterable[str] | None = None,
               limit: int = 60, chunk_sources: Iterable[str] | None = None) -> list[Hit]:
        """The things `question` names, best first (only in `tables` when given, and only
        the text chunks of the files `chunk_sources` (sha256) names, by default those of
        `tables`' files, or every file's without `tables`)."""
        only = set(tables) if tables is not None else None
        sources = self._chunk_sources(only, chunk_sources)
        names = self._file_names()
        lists = [self.lexical(question, only), self.exact(question, only),
                 self.text(question, sources)]
        if self.vectors is not None:
            allowed = None
            if only is not None or sources is not None:
                allowed = set(only or ())
                if sources:
                    allowed |= {c.id for c in read_chunks(self.workspace.db)
                                if c.source in sources}
            lists.append(self.vector(question, allowed))
        fused = rrf(lists, self.k)
        for hit in fused:
            hit.source = hit.source or names.get(hit.table)
        # Text chunks compete with a table's many items for the first places: the chunks
        # past `limit` are kept too (up to TEXT_LIMIT), so a context can still weigh them.
        kept = fused[:limit]
        chunks = sum(1 for h in kept if h.kind == "chunk")
        kept += [h for h in fused[limit:] if h.kind == "chunk"][:max(0, TEXT_LIMIT - chunks)]
        return kept

    def _chunk_sources(self, only: set[str] | None,
                       given: Iterable[str] | None) -> set[str] | None:
        if given is not None:
            return set(given)
        if only is None:
            return None
        marks = ", ".join("?" * len(only))
        return {row[0] for row in self.workspace.db.execute(
            f"SELECT DISTINCT source FROM catalog WHERE id IN ({marks})", list(only))}

    def text(self, question: str, sources: set[str] | None = None) -> list[Hit]:
        """Text chunks of documents by full text, best (BM25) first."""
        db = self.workspace.db
        if (sources is not None and not sources) or not has_chunks(db):
            return []
        found = search_chunks(db, _question_words(question), limit=TEXT_LIMIT,
                              sources=sources)
        return [Hit("chunk", c.id, c.text, (c.chunk.section,) if c.chunk.section else (),
                    None, c.file_name, found_by={"fts"}) for c, _ in found]

    def lexical(self, question: str, only: set[str] | None = None) -> list[Hit]:
        """Full-text hits, best (BM25) first."""
        db = self.workspace.db
        index_missing(db)
        terms = _search_terms(db, _question_words(question))
        if not terms:
            return []
        hits = []
        for row in _search(db, terms):
            if only is not None and row.table not in only:
                continue
            kind = cast(ItemKind, row.kind)
            path = () if kind == "table" else (row.path or ())
            hits.append(Hit(kind, row.table, row.text, path, row.ref, found_by={"fts"}))
            if len(hits) >= LEXICAL_LIMIT:
                break
        return hits

    def exact(self, question: str, only: set[str] | None = None) -> list[Hit]:
        """Data cells whose text is a number or code of the question, verbatim (with or
        without thousands separators); the question's order, then the sheet's."""
        forms = exact_forms(question)
        if not forms:
            return []
        db = self.workspace.db
        marks = ", ".join("?" * len(forms))
        rows = db.execute(
            "SELECT table_id, row, col, ref, trim(text), role FROM cells WHERE role IN "
            f"('data', 'header') AND table_id IS NOT NULL AND trim(text) IN ({marks}) "
            "ORDER BY grid, row, col", list(forms)).fetchall()
        order = {form: i for i, form in enumerate(forms)}
        per_form: dict[str, int] = defaultdict(int)
        for row in rows:
            per_form[row[4]] += 1
        rows = [r for r in rows if per_form[r[4]] <= EXACT_MAX_CELLS]
        rows.sort(key=lambda r: order.get(r[4], len(order)))
        paths = _ColumnPaths(db)
        hits = []
        for table, row, col, ref, text, role in rows:
            if only is not None and table not in only:
                continue
            if role == "data":
                hits.append(Hit("cell", table, text, paths.get(table, col), ref,
                                found_by={"exact"}))
            elif (path := _row_label_path(db, table, row, text)) is not None:
                # A row's label (a code in the first column): the row path up to it.
                hits.append(Hit("row_path", table, text, path, ref, found_by={"exact"}))
            if len(hits) >= EXACT_LIMIT:
                break
        return hits

    def vector(self, question: str, only: set[str] | None = None) -> list[Hit]:
        """Vector neighbours of the question, nearest first."""
        assert self.vectors is not None
        found = self.vectors.search(question, limit=VECTOR_LIMIT,
                                    tables=sorted(only) if only else None)
        return [Hit(h.kind, h.table, h.text, () if h.kind == "table" else tuple(h.path),
                    h.ref, h.source, found_by={"vector"}) for h in found]

    def _file_names(self) -> dict[str, str]:
        return {row[0]: row[1] for row in
                self.workspace.db.execute("SELECT id, file_name FROM catalog")}


def exact_forms(question: str) -> list[str]:
    """The question's numbers and codes as a cell may write them: as written, and a number
    with and without thousands separators ("1234" and "1,234"). A lone digit is left out
    ("Region 2", "the 3 players": too common to point anywhere)."""
    forms: list[str] = []
    for match in _EXACT.finditer(question):
        text = match.group().rstrip("%.")
        if len(text) < 2:
            continue
        forms.append(match.group())
        forms.append(text)
        plain = text.replace(",", "")
        if _PLAIN_NUMBER.fullmatch(plain):
            forms.append(plain)
            whole, _, frac = plain.partition(".")
            if len(whole) > 3 and not (len(whole) == 4 and 1800 <= int(whole) <= 2100):
                forms.append(f"{int(whole):,}" + (f".{frac}" if frac else ""))
    return list(dict.fromkeys(forms))


_PLAIN_NUMBER = re.compile(r"\d+(?:\.\d+)?")


class _ColumnPaths:
    """Column paths of cells by (table, sheet column), read once per table."""

    def __init__(self, db: Any) -> None:
        self.db = db
        self._paths: dict[str, dict[int, tuple[str, ...]]] = defaultdict(dict)
        self._read: set[str] = set()

    def get(self, table: str, col: int) -> tuple[str, ...]:
        if table not in self._read:
            self._read.add(table)
            for c, path in self.db.execute(
                    "SELECT col, col_path FROM col_paths WHERE table_id = ?", [table]):
                self._paths[table][c] = tuple(json.loads(path))
        return self._paths[table].get(col, ())


def _row_label_path(db: Any, table: str, row: int, text: str) -> tuple[str, ...] | None:
    """The row path of a row header cell, up to the label it holds; None for a cell of the
    header rows (a column's label, which full text finds)."""
    found = db.execute("SELECT row_path FROM row_paths WHERE table_id = ? AND row = ? "
                       "ORDER BY col LIMIT 1", [table, row]).fetchone()
    if found is None:
        return None
    path = tuple(json.loads(found[0]))
    folded = _norm(text)
    for n, label in enumerate(path, start=1):
        if _norm(label) == folded:
            return path[:n]
    return path


def _norm(text: str) -> str:
    return " ".join(text.split()).casefold()
