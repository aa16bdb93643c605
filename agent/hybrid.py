"""Hybrid search: full-text hits and vector neighbours of a question, fused by rank.

Ranked lists are fused by reciprocal rank fusion (`score = sum 1 / (k + rank)`, k = 60,
ranks from 1), so neither BM25's nor cosine's scale matters, only each list's order:

- **full text**: the workspace's FTS5 `search_index` (titles, column and row paths, distinct
  text values), asked as `agent/retriever.py` asks it (with its fuzzy fallback);
- **CJK trigrams**: the trigram index of the index rows with CJK text
  (`storage/search_index.py`), asked with the three-character pieces of the question's CJK
  text, which the word index takes for one long word;
- **exact values**: the question's numbers and codes ("10452", "1,234.5", "AB-77") looked up
  verbatim among the data cells, since numbers are not in the full-text index and a model's
  vectors do not tell one number from another;
- **text**: the documents' text chunks found by full text (`storage/chunks.py`, BM25 over the
  chunk and its section), a list of their own so that the best chunk ranks as high as the
  best table item;
- **vectors**: the nearest points of `storage/vector_index.py` (header paths, text values,
  table descriptions, text chunks), when an index is given.

`rank_tables` chooses a question's tables from the same sources, table by table (its words,
numbers and codes by rarity, its nearest points): a table's many items do not outweigh
another's few better ones, as they do in a fused list of items.

What comes out is the one item shape of CONTRACTS.md ("Retrieved items"): `{"kind", "table"?,
"ref"?, "path"?, "source"?, "score"}`, best first (`Hit.item()`); a chunk's item names it by
`"chunk"` (its id) instead of `"table"`, and its path is its section.
"""

from __future__ import annotations

import itertools
import json
import math
import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, cast

from sqlite_utils.db import quote_identifier

from agent.retriever import (
    _CANDIDATES,
    INDEX_KINDS,
    Retrieved,
    TableHit,
    _fts_term,
    _question_words,
    _search,
    _search_terms,
)
from storage.chunks import has_chunks, read_chunks, search_chunks
from storage.search_index import CJK_TABLE, FTS_TABLE, SEARCH_TABLE, index_missing

if TYPE_CHECKING:
    from storage.vector_index import VectorIndex
    from storage.workspace import Workspace

RRF_K = 60
LEXICAL_LIMIT = 100
VECTOR_LIMIT = 30
EXACT_LIMIT = 50
TEXT_LIMIT = 30
WHY_ITEMS = 3
TABLE_VECTOR_LIMIT = 100
"""Vector neighbours of the question read for table choice: a table's vector evidence is its
nearest point among them; and the tables whose descriptions are nearest, as many."""
TABLE_WEIGHTS = {"labels": 1.0, "values": 0.5, "pairs": 0.75, "exact": 0.25, "vector": 0.75,
                 "described": 0.75, "item": 1.0}
"""Each signal's weight in a table's score (`rank_tables`). Tuned on bench-train half A,
pooled (all four suites, 528 questions), by how often the first table is the question's own
(the 500-token context shows one table) and how often it is among the first four (1,500
tokens): words (labels, values, pairs, exact) alone 63.6%, vectors alone 59.3%; the former
weights (labels, values, vector 1.0, pairs, described 0.5, exact 0.25, no "item") 69.7% /
89.4%; these 71.0% / 90.9% (without "item", re-tuned: 70.1% / 89.6%). Sharpening the cosines
(a power of their share), a table's mean of its three nearest points, dividing word evidence
by a table's size (BM25's length norm) and sharper rarity weights (squared, BM25's idf) did
not help."""
PAIR_GAP = 3
"""Two adjacent question words count as a pair in a text when at most this many words stand
between them ("sales and marketing")."""

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


_INDEX = quote_identifier(SEARCH_TABLE)
_FTS = quote_identifier(FTS_TABLE)
_CJK = quote_identifier(CJK_TABLE)
_CJK_RUN = re.compile("[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]{3,}")
"""Three or more kana, CJK ideographs or Hangul in a row: what the trigram index can find (a
run of two is left to the word index, which finds it only as a whole word)."""


class HybridSearch:
    """Full text, exact values and (with an index) vectors over one workspace, fused."""

    def __init__(self, workspace: Workspace, vectors: VectorIndex | None = None, *,
                 k: int = RRF_K) -> None:
        self.workspace = workspace
        self.vectors = vectors
        self.k = k
        self._exact_kept: tuple[tuple[Any, ...], list[tuple[Any, ...]]] | None = None

    def search(self, question: str, *, tables: Iterable[str] | None = None,
               limit: int = 60, chunk_sources: Iterable[str] | None = None) -> list[Hit]:
        """The things `question` names, best first (only in `tables` when given, and only
        the text chunks of the files `chunk_sources` (sha256) names, by default those of
        `tables`' files, or every file's without `tables`)."""
        only = set(tables) if tables is not None else None
        sources = self._chunk_sources(only, chunk_sources)
        names = self._file_names()
        lists = [self.lexical(question, only), self.cjk(question, only),
                 self.exact(question, only), self.text(question, sources)]
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

    def chunk_sources(self, only: set[str] | None) -> set[str]:
        """The files (sha256) of the tables `only` names and the files beside them
        (`Workspace.beside`), or every file."""
        if only is None:
            return {row[0] for row in self.workspace.db.execute("SELECT sha256 FROM sources")}
        return self._chunk_sources(only, None) or set()

    def _chunk_sources(self, only: set[str] | None,
                       given: Iterable[str] | None) -> set[str] | None:
        if given is not None:
            return set(given)
        if only is None:
            return None
        marks = ", ".join("?" * len(only))
        files = {row[0] for row in self.workspace.db.execute(
            f"SELECT DISTINCT source FROM catalog WHERE id IN ({marks})", list(only))}
        # A table's text is its own file's and that of the documents added beside it.
        return files | self.workspace.beside(files)

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

    def cjk(self, question: str, only: set[str] | None = None) -> list[Hit]:
        """Hits of the trigram index for the question's CJK text, best (BM25) first: a row
        scores by how many of the question's three-character pieces it holds, and how rare
        they are."""
        terms = cjk_terms(question)
        if not terms:
            return []
        db = self.workspace.db
        index_missing(db)
        rows = db.execute(
            f"SELECT s.table_id, s.type, s.text, s.path, s.ref FROM {_CJK} JOIN {_INDEX} s "
            f"ON s.rowid = {_CJK}.rowid WHERE {_CJK} MATCH ? ORDER BY bm25({_CJK}) LIMIT ?",
            [" OR ".join(terms), _CANDIDATES]).fetchall()
        hits = []
        for table, kind, text, path, ref in rows:
            if only is not None and table not in only:
                continue
            item = cast(ItemKind, INDEX_KINDS.get(kind, "cell"))
            hits.append(Hit(item, table, text,
                            () if item == "table" or path is None else tuple(json.loads(path)),
                            ref, found_by={"fts"}))
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
        rows = self._exact_cells(forms)
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

    def rank_tables(self, question: str, tables: Iterable[str] | None = None
                    ) -> list[tuple[str, float]]:
        """The workspace's tables (or `tables`) by their evidence for the question, best
        first: each signal of `table_evidence` is scaled to its best table's (1.0) and
        weighed (`TABLE_WEIGHTS`). Tables without evidence come last, in
        catalog order, with score 0; a lone table scores 1."""
        allowed = list(tables) if tables is not None else self.workspace.table_ids()
        if len(allowed) == 1:  # nothing to choose between: no search
            return [(allowed[0], 1.0)]
        evidence = self.table_evidence(question, set(allowed) if tables is not None else None)
        scores: dict[str, float] = defaultdict(float)
        for signal, per in evidence.items():
            top = max(per.values(), default=0.0)
            if top <= 0:
                continue
            for table, value in per.items():
                scores[table] += TABLE_WEIGHTS[signal] * max(0.0, value / top)
        ranked = sorted(((t, s) for t, s in scores.items() if s > 0), key=lambda ts: -ts[1])
        seen = {t for t, _ in ranked}
        return ranked + [(t, 0.0) for t in allowed if t not in seen]

    def table_evidence(self, question: str, only: set[str] | None = None
                       ) -> dict[str, dict[str, float]]:
        """Per signal, each table's raw evidence for the question: "labels" and "values",
        its question words by rarity (`_term_evidence`); "item", its best single label or
        value (`_item_evidence`); "exact", its numbers and codes of
        the question; with vectors, "vector", the cosine of its point nearest the question
        (a column or row path, a value, its description), and "described", its
        description's."""
        db = self.workspace.db
        index_missing(db)
        out: dict[str, dict[str, float]] = {}
        n = len(only) if only is not None else len(self.workspace.table_ids())
        known = _search_terms(db, _question_words(question))
        out["labels"], out["values"], out["pairs"] = self._term_evidence(question, known,
                                                                          only, n)
        out["item"] = self._item_evidence(known, only)
        out["exact"] = self._exact_evidence(question, only, n)
        if self.vectors is not None:
            found = self.vectors.search(question, limit=TABLE_VECTOR_LIMIT,
                                        tables=sorted(only) if only else None)
            best: dict[str, float] = {}
            for h in found:
                if h.kind != "chunk":
                    best[h.table] = max(best.get(h.table, -1.0), h.score)
            out["vector"] = best
            described = self.vectors.described(question, sorted(only) if only else None)
            out["described"] = dict(sorted(described.items(), key=lambda kv: -kv[1])
                                    [:TABLE_VECTOR_LIMIT])
        return out

    def _item_evidence(self, known: list[str], only: set[str] | None) -> dict[str, float]:
        """Each table's best index row (a title, header path, row label or value) by BM25
        for the question's words: one label naming several of them ("total score") weighs
        more than the same words strewn over a table's many labels, which is all the
        per-word evidence sees."""
        if not known:
            return {}
        best: dict[str, float] = {}
        for row in _search(self.workspace.db, known):  # best first: a table's first is its best
            if (only is None or row.table in only) and row.table not in best:
                best[row.table] = row.score
        return best

    def _term_evidence(self, question: str, known: list[str], only: set[str] | None, n: int
                       ) -> tuple[dict[str, float], dict[str, float], dict[str, float]]:
        """Each table's question words (and three-character pieces of its CJK text), weighed
        by their rarity among the tables (log of 1 + tables / tables holding the word): once
        for the words its labels (titles, header paths, row labels) hold, once for those only
        its values hold."""
        db = self.workspace.db
        labels: dict[str, float] = defaultdict(float)
        values: dict[str, float] = defaultdict(float)
        pairs: dict[str, float] = defaultdict(float)
        terms = [(_FTS, t, False) for t in known]
        terms += [(_CJK, t, False) for t in cjk_terms(question)]
        # Two question words side by side, near each other in one label or value: a header
        # of several words ("civilian labor force") rather than its words strewn about.
        terms += [(_FTS, f"NEAR({a} {b}, {PAIR_GAP})", True)
                  for a, b in itertools.pairwise(known)]
        for fts, term, pair in terms:
            found = db.execute(
                f"SELECT s.table_id, max(s.type != 'value') FROM {fts} JOIN {_INDEX} s "
                f"ON s.rowid = {fts}.rowid WHERE {fts} MATCH ? GROUP BY s.table_id",
                [term]).fetchall()
            found = [(t, lab) for t, lab in found if only is None or t in only]
            if not found:
                continue
            weight = math.log(1 + n / len(found))
            for table, label in found:
                (pairs if pair else labels if label else values)[table] += weight
        return dict(labels), dict(values), dict(pairs)

    def _exact_cells(self, forms: list[str]) -> list[tuple[Any, ...]]:
        """The data and header cells whose text is one of `forms`, in sheet order: (table,
        row, col, ref, text, role). The last forms' cells are kept: a context asks for them
        twice (choosing its tables, then its rows), and the query reads every cell."""
        # Another connection's commits change data_version, this one's total_changes().
        db = self.workspace.db
        key = (db.execute("PRAGMA data_version").fetchone()[0], db.conn.total_changes,
               tuple(forms))
        if self._exact_kept is not None and self._exact_kept[0] == key:
            return self._exact_kept[1]
        marks = ", ".join("?" * len(forms))
        rows = db.execute(
            "SELECT table_id, row, col, ref, trim(text), role FROM cells WHERE role IN "
            f"('data', 'header') AND table_id IS NOT NULL AND trim(text) IN ({marks}) "
            "ORDER BY grid, row, col", list(forms)).fetchall()
        self._exact_kept = (key, rows)
        return rows

    def _exact_evidence(self, question: str, only: set[str] | None, n: int
                        ) -> dict[str, float]:
        """Each table's numbers and codes of the question, weighed as words are."""
        forms = exact_forms(question)
        if not forms:
            return {}
        per_form: dict[str, set[str]] = defaultdict(set)
        for table, _, _, _, text, _ in self._exact_cells(forms):
            if only is None or table in only:
                per_form[_number_key(text)].add(table)
        out: dict[str, float] = defaultdict(float)
        for tables in per_form.values():
            weight = math.log(1 + n / len(tables))
            for table in tables:
                out[table] += weight
        return dict(out)

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


class HybridRetriever:
    """The `retrieve` step's `Retriever` (agent/retriever.py) over the hybrid search: tables
    by `HybridSearch.rank_tables` (the evidence the context builder chooses tables by), and
    the fused items found in them, best first."""

    def __init__(self, vectors: VectorIndex | None = None, max_tables: int = 5) -> None:
        self.vectors = vectors
        self.max_tables = max_tables

    def retrieve(self, question: str, workspace: Workspace, budget: int = 20) -> Retrieved:
        """The tables with evidence for `question`, best first, and at most `budget` of the
        items found in them."""
        search = HybridSearch(workspace, self.vectors)
        ranked = [(t, s) for t, s in search.rank_tables(question) if s > 0][:self.max_tables]
        if not ranked:
            return Retrieved()
        hits = [h for h in search.search(question, tables=[t for t, _ in ranked],
                                         chunk_sources=()) if h.kind != "chunk"]
        why: dict[str, list[str]] = defaultdict(list)
        for hit in hits:
            if len(why[hit.table]) < WHY_ITEMS:
                why[hit.table].append(f"{hit.kind}: {hit.text}")
        return Retrieved([TableHit(t, round(s, 4), why[t]) for t, s in ranked],
                         [h.item() | {"text": h.text} for h in hits[:budget]])


def cjk_terms(question: str) -> list[str]:
    """The trigram index's terms of a question: each three-character piece of its CJK runs,
    quoted ("2019年营业收入" -> "年营业", "营业收", "业收入")."""
    pieces = [run[i:i + 3] for run in _CJK_RUN.findall(question)
              for i in range(len(run) - 2)]
    return [_fts_term(p) for p in dict.fromkeys(pieces)]


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


def _number_key(text: str) -> str:
    """One key for a number's forms ("1,234" and "1234"; "12%" and "12")."""
    return text.rstrip("%.").replace(",", "")


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
