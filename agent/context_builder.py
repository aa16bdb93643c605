"""A compact text context of a workspace for one question, within a token budget.

`ContextBuilder.build` asks the hybrid search (`agent/hybrid.py`) which tables the question is
about and what it names in them, then:

1. **tables**: ranks the workspace's tables by their evidence (`HybridSearch.rank_tables`) and
   takes at most `MAX_TABLES`, best first: those close to the best (`CLOSE_SHARE`) share the
   budget in equal parts of at least `SHARE_TOKENS` (each table's whole text, or its schema
   and best rows, within its part; then more rows of each, best table first), the others get
   what those leave;
2. **whole when it fits**: a table whose whole text fits what is left is sent whole, as the
   LLM planner's context shows it (`agent/llm/context.py` `render_whole`: every column with its
   id, header path, type, unit and sheet column, then every data row);
3. **else focused**: its schema (the row headers and the columns the question names, those
   it names by their own header words first, or as many columns as a row line may hold),
   then the rows its numeric conditions, an extreme or an order need
   (`agent/context_order.py`: the rows meeting "fewer than 5 votes"; the top rows by the
   numeric column it names among the rows it names whole, then among all rows, totals aside;
   the first or last rows), then the rows its grounded values name (a cell found by full
   text, by an exact number or code, or by vectors, and the other rows holding the same text
   in its column; a row path and the rows under it), best first, then its other rows while
   the budget lasts;
4. **text**: with documents' chunks found, or text in the chosen table's report, the tables
   and chunks share the budget (`ContextBuilder._plan`): the best tables each get a part and
   bring their report's best chunk (a report's text is its table file's own chunks and those
   of the documents added beside that file, `Workspace.add_file(beside=...)`); a chunk
   stronger than any table comes first and brings its report's table; the other chunks (at
   most MAX_CHUNKS) and tables follow, interleaved by their best hits.

Every row line starts with its sheet row (`r12`) and the schema gives each column's sheet
column, so each cell shown has its A1 ref (column D of r12 is D12). Tokens are counted with
the bundled embedding model's WordPiece tokenizer (`TokenCounter`, loaded on first use, offline),
never estimated from characters (an estimate under-counts digits) and never with tiktoken,
which downloads its encodings at run time. WordPiece splits at whitespace, so the tokens of the
lines add up to the tokens of the text: lines are counted once, as they are added.

What was picked comes back as items of the one shape of CONTRACTS.md ("Retrieved items").
"""

from __future__ import annotations

import itertools
import threading
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from typing import TYPE_CHECKING, Any

from openpyxl.utils import get_column_letter
from openpyxl.utils.cell import column_index_from_string, coordinate_from_string

from agent.context import SHARED_FRAMES
from agent.context_order import priority_rows
from agent.frame import Frame
from agent.hybrid import Hit, HybridSearch
from agent.llm.context import _clip, _describe_column, _quoted, _row_line, place, render_whole
from agent.llm.reply import Shown
from agent.question import Analysis, analyse
from agent.text import label_tokens
from storage.chunks import read_chunks
from storage.embedder import BUNDLED, model_path

if TYPE_CHECKING:
    from storage.vector_index import VectorIndex
    from storage.workspace import Workspace

BUDGET_TOKENS = 1_500
"""Default budget (`TABLELENS_CONTEXT_BUDGET_TOKENS`)."""
MAX_TABLES = 4
CLOSE_SHARE = 0.85
"""A table shares the budget with the best one when its evidence scores at least this share
of the best's (`HybridSearch.rank_tables`); the others get only what is left. On bench-train
half A pooled (all four suites), the question's own table is among the close ones for 0.7:
89%, 0.85: 85%, 0.95: 79%, with 2.4, 1.8 and 1.3 tables on average; evidence recall at 500 /
1,500 tokens: 0.7 70.2% / 83.8%, 0.85 71.2% / 83.8%, 0.95 71.9% / 83.1%."""
SHARE_TOKENS = 300
"""The close tables share the budget in equal parts of at least this many tokens: each is
sent whole or focused within its part (schema, the rows its extreme needs, its named rows),
and what the parts leave shows more rows of each, best table first. At 500 tokens the best
table has the budget to itself; at 1,500, up to four close tables share it. On bench-train
half A pooled (all four suites, 580 values), evidence recall at 500 / 1,500 tokens: no
sharing 71.4% / 83.8%; parts of 300: 71.4% / 84.8%; 400: 71.4% / 84.1%; 600: 71.4% / 84.3%;
equal parts at any budget: 68.6% / 84.8% (a table that fits a 500-token budget whole does
not fit its half)."""
MIN_TABLE_TOKENS = 60
"""Less budget than this left: no further table is started."""
MAX_CHUNKS = 16
"""Text chunks of documents shown at most. Pooled bench-train (143 reports, bench.documents):
8 -> 79.2% text evidence recall at 1,500 tokens, 16 -> 83.3% (500 tokens: 72.1% -> 72.5%);
dev unchanged (87.9% / 89.7%)."""
MIN_CHUNK_TOKENS = 20
TABLE_PART = 0.35
"""With text chunks too (`ContextBuilder._plan`), the share of the budget the best tables'
parts take in all: each of the first tables with evidence (as many as parts of
MIN_PART_TOKENS fit, at most MAX_TABLES: one at 500 tokens, four at 1,500) is sent whole or
focused within an equal part, followed by its report's best chunk (REPORT_CHUNKS). Pooled
bench-train (bench.documents, 143 reports, 240 text and table-text questions), text evidence
recall at 500 / 1,500 tokens, and table-text questions with their text and a table of their
report: no parts (chunks interleaved with tables by CHUNK_WEIGHT alone) 71.7% / 82.1%, 0% /
2.1%; the best table alone at 0.5 with two report chunks 73.8% / 87.5%, 59.6% / 74.0%; a part
for each of up to three tables 73.8% / 87.1%; one report chunk each, parts of at least 125
tokens: 0.5 75.4% / 88.8% (63.7% / 88.4%), 0.4 73.8% / 90.8%, 0.35 74.6% / 91.2% (65.1% /
89.7%); parts of 100 tokens (0.4, two tables at 500) reach 83.3% at 500 tokens but send no
table for most table-text questions (31.5%): a part that cannot hold a table's heading
leaves its table out. Up to six tables at 1,500 tokens: 86.2%."""
MIN_PART_TOKENS = 125
"""A table's part of the budget is at least this (its heading, columns and a few rows)."""
REPORT_CHUNKS = 1
"""The chunks of a table's report (its own file's and the documents' added beside it) sent
right after it: 2 -> 1 took bench-train at 1,500 tokens from 87.1% to 88.8% (the second chunk
of each report crowded out the next table)."""
CHUNK_WEIGHT = 2.5
"""A chunk's fused score is weighed by this against a table's best hit when they are
interleaved (`interleave`): a chunk is one passage found once per list, a table's best hit one
of its many items. Measured on TAT-QA dev pooled (bench.documents), text evidence recall at
500 / 1,500 tokens: 1.0 -> 75.9% / 86.2%, 1.5 -> 86.2% / 86.2%, 2.5 -> 87.9% / 89.7% (measured
when it ordered every table and chunk; since TABLE_PART it orders what follows the tables'
parts and their reports' chunks)."""
ROW_NAME_SHARE = 0.75
"""A cell or row label names rows for an extreme when the question uses at least this share
of its words (`_whole_names`). On bench-train half A, evidence recall of the own table too
large at 500 / 1,500 tokens, then pooled: any label found by words 84.2% / 90.2%, 73.1% /
87.9% (but "which store" then names every "Store N27"); every word 84.2% / 90.2%, 72.7% /
87.2%; 0.75 84.4% / 90.9%, 72.9% / 87.4%; 0.75 as one run of words (`_named`) 84.7% / 90.9%,
73.1% / 87.4%."""
ROW_SHARE = 6
SCHEMA_SHARE = 3
FILL_COLUMNS = 2
STRONG_COLUMN_SHARE = 0.75
MAX_NAMED_COLUMNS = 8
"""A table too wide for its every column shows at most this many of the columns the question
names (rank fusion scores many alike: "Region 5 > Q2" and every "Region k > Q2")."""
STRONG_ROW_SHARE = 0.6
"""Named rows scoring at least this share of the best are shown first, with every column
shown; the others come with the fill."""
NEIGHBOUR_ROWS = 3
NEIGHBOUR_SHARE = 0.3
"""The rows just above and below the best NEIGHBOUR_ROWS named rows are named too, at this
share of their score."""
"""A focused table's row line may cost at most budget / ROW_SHARE tokens, and its schema at
most budget / SCHEMA_SHARE: a wide table shows the columns the question names first, then
others in sheet order, up to those."""
WHOLE_ESTIMATE = 4
"""`render_whole` gives up past budget x 4 (characters / 4 estimate): WordPiece never packs
more than four characters a token on table text, so nothing that fits is given up early."""


# --- token counting ----------------------------------------------------------------------------

class TokenCounter:
    """Counts WordPiece tokens with a sentence-transformers model folder's tokenizer (the
    bundled all-MiniLM-L6-v2 by default), loaded on first use, offline."""

    def __init__(self, model: str = BUNDLED) -> None:
        self.model = model
        self._tokenizer: Any = None
        self._lock = threading.Lock()

    def _tok(self) -> Any:
        with self._lock:
            if self._tokenizer is None:
                import os

                os.environ.setdefault("HF_HUB_OFFLINE", "1")
                from transformers import AutoTokenizer

                self._tokenizer = AutoTokenizer.from_pretrained(model_path(self.model))
            return self._tokenizer

    def count(self, text: str) -> int:
        """Tokens of a text, without the model's [CLS]/[SEP] markers."""
        if not text:
            return 0
        return len(self._tok()(text, add_special_tokens=False, verbose=False)["input_ids"])

    def counts(self, texts: Sequence[str]) -> list[int]:
        """Tokens of each text, in one batch."""
        if not texts:
            return []
        ids = self._tok()(list(texts), add_special_tokens=False, verbose=False)["input_ids"]
        return [len(i) for i in ids]


_COUNTERS: dict[str, TokenCounter] = {}
_COUNTERS_LOCK = threading.Lock()


def shared_counter(model: str = BUNDLED) -> TokenCounter:
    """One token counter per model folder in the process."""
    with _COUNTERS_LOCK:
        return _COUNTERS.setdefault(model or BUNDLED, TokenCounter(model or BUNDLED))


# --- the context -------------------------------------------------------------------------------

@dataclass
class Context:
    """The text sent, its tokens, and what it holds."""

    text: str
    tokens: int
    items: list[dict[str, Any]]
    """What was picked, in the "Retrieved items" shape, tables first."""
    tables: list[str] = field(default_factory=list)
    whole: list[bool] = field(default_factory=list)
    """Per table sent: True when every cell of it is in the text."""
    chunks: list[str] = field(default_factory=list)
    """The ids of the documents' text chunks sent, in the order shown."""

    def to_json_dict(self) -> dict[str, Any]:
        return {"text": self.text, "tokens": self.tokens, "items": self.items}


class _Lines:
    """Lines of text and their token count, within a budget."""

    def __init__(self, counter: TokenCounter, budget: int) -> None:
        self.counter = counter
        self.budget = budget
        self.used = 0
        self.parts: list[str] = []
        self.cap: int | None = None
        """While set, what `used` may reach: the share of the part being written."""

    @property
    def end(self) -> int:
        return self.budget if self.cap is None else min(self.budget, self.cap)

    @property
    def left(self) -> int:
        return self.end - self.used

    @property
    def span(self) -> int:
        """What the part being written may take in all: the budget, or its share."""
        return self.budget if self.cap is None else self.end - self.used

    def share(self, tokens: int | None) -> None:
        """Let the next part take at most `tokens` more (None: all the budget leaves)."""
        self.cap = None if tokens is None else self.used + tokens

    def add(self, line: str) -> bool:
        cost = self.counter.count(line)
        if cost > self.left:
            return False
        self.parts.append(line)
        self.used += cost
        return True


class ContextBuilder:
    """Builds a question's context from a workspace (see the module's docstring)."""

    def __init__(self, workspace: Workspace, *, vectors: VectorIndex | None = None,
                 counter: TokenCounter | None = None, budget_tokens: int = BUDGET_TOKENS,
                 search: HybridSearch | None = None, sql_views: bool = False) -> None:
        self.workspace = workspace
        self.search = search or HybridSearch(workspace, vectors)
        self.counter = counter or shared_counter()
        self.budget_tokens = budget_tokens
        self.sql_views = sql_views
        """Name each focused table's SQL view and the shown columns' names in it, as a whole
        table's heading does: the LLM planner's model may write SQL over them."""

    def build(self, question: str, *, budget_tokens: int | None = None,
              tables: Sequence[str] | None = None,
              chunk_sources: Sequence[str] | None = None, lead: str | None = None) -> Context:
        """The context of `question` (over `tables` alone when given, and the text chunks of
        the files `chunk_sources` names, by default those of `tables`' files); `lead`, when
        given, is the first table shown, whatever its hits (the one a plan is about)."""
        budget = self.budget_tokens if budget_tokens is None else budget_tokens
        ranked = self.search.rank_tables(question, tables)
        if lead is not None:
            ranked.sort(key=lambda ts: ts[0] != lead)  # stable: the others keep their order
        ranked_all = ranked
        ranked = ranked[:MAX_TABLES]
        close, later = split_close(ranked, lead is not None)
        # The close tables share the budget in equal parts (the first ones, as many as
        # parts of SHARE_TOKENS fit): a lead table takes what it needs first.
        sharing = 0 if lead is not None else min(len(close), max(1, budget // SHARE_TOKENS))
        if chunk_sources is None:
            chunk_sources = self.search.chunk_sources(set(tables) if tables is not None
                                                      else None)
        # The rows and columns are grounded by hits in the chosen tables alone: searched
        # over every table, the first places often go to another table's many items.
        chunk_sources = set(chunk_sources)
        hits = self.search.search(question, tables=[t for t, _ in ranked],
                                  chunk_sources=chunk_sources)
        analysis = analyse(question)
        out = _Lines(self.counter, budget)
        items: list[dict[str, Any]] = []
        sent: list[str] = []
        whole: list[bool] = []
        focused: list[tuple[Shown, list[int], dict[str, float], list[Hit], str | None]] = []
        by_table: dict[str, list[Hit]] = defaultdict(list)
        for hit in hits:
            by_table[hit.table].append(hit)
        all_chunks = [h for h in hits if h.kind == "chunk"]
        chunk_hits = all_chunks[:MAX_CHUNKS]
        chunks_sent: list[str] = []
        tables_done = False
        plan = self._plan(question, ranked_all, close, later, chunk_hits, all_chunks, by_table,
                          chunk_sources, tables, lead is not None, budget)
        parts: dict[str, int] = {}
        for kind, unit, *cap in plan:
            if cap:
                parts[unit[0] if kind == "table" else unit.table] = cap[0]
        for kind, unit, *_ in plan:
            if kind == "later" and focused:
                # A table not close to the best gets only what the chosen ones leave: none
                # while a focused table still has rows to show.
                for args in focused:
                    self._fill(*args, out)
                focused = []
            if kind == "chunk":
                hit = unit
                if hit.table in chunks_sent:
                    continue
                if out.left >= MIN_CHUNK_TOKENS and out.add(self._chunk_text(hit, chunks_sent)):
                    chunks_sent.append(hit.table)
                    items.append(hit.item())
                continue
            table_id, score = unit
            if table_id in sent:
                continue
            allowance = None
            if kind == "table" and sharing > 1:
                allowance = out.left // sharing  # an equal part of what is left
            if kind == "table" and sharing:
                sharing -= 1
            if table_id in parts:  # mixed with text: its part of the budget, no more
                allowance = min(parts[table_id], out.left) if allowance is None \
                    else min(allowance, parts[table_id])
            if tables_done or (sent and out.left < MIN_TABLE_TOKENS):
                tables_done = True  # no later table is started (chunks may still fit)
                continue
            frame = self._frame(table_id)
            index = len(sent)
            shown = Shown.of(index, frame)
            table_hits = by_table.get(table_id, [])
            out.share(allowance)  # whole or focused, within its part
            text = render_whole(shown, out.left * WHOLE_ESTIMATE)
            if text is not None and out.add(text):
                out.share(None)
                is_whole, picked = True, table_hits
            else:
                part = self._focused(shown, table_hits, analysis, out)
                out.share(None)
                if part is None:
                    tables_done = bool(sent)
                    continue
                is_whole = False
                picked, rows_sent, col_scores, narrowed, measure = part
                focused.append((narrowed, rows_sent, col_scores, table_hits, measure))
            sent.append(table_id)
            whole.append(is_whole)
            items.append({"kind": "table", "table": table_id, "source": frame.file_name,
                          "score": round(score, 6)})
            items.extend(picked_items(picked, frame))
        # What budget is left shows more rows of the focused tables, best table first.
        for shown, rows_sent, col_scores, table_hits, measure in focused:
            self._fill(shown, rows_sent, col_scores, table_hits, measure, out)
        text = "\n".join(out.parts)
        return Context(text, self.counter.count(text), items, sent, whole, chunks_sent)

    def _plan(self, question: str, ranked_all: Sequence[tuple[str, float]],
              close: list[tuple[str, float]], later: list[tuple[str, float]],
              chunk_hits: list[Hit], all_chunks: list[Hit], by_table: dict[str, list[Hit]],
              chunk_sources: set[str], tables: Sequence[str] | None, lead: bool, budget: int
              ) -> list[tuple[Any, ...]]:
        """The order tables and chunks are offered the budget in: (kind, unit) or, for a
        table mixed with text, (kind, unit, its part of the budget in tokens).

        Tables alone (no chunk found, and no text in the best table's report): the close
        tables and the later ones as before. With text: the first tables with evidence (one
        at 500 tokens, up to four at 1,500: TABLE_PART, MIN_PART_TOKENS) each within its part
        (whole when it fits, else focused), each followed by the best chunk of its report
        (its own file's and the documents' added beside it, `report_chunks`); a chunk that
        beats the best table (`interleave`'s weighing), or any chunk when no table has
        evidence, comes first and pulls its report's table in after them; then the other
        chunks and tables interleaved as before. Interleaved alone, a pooled workspace's many
        passages of other reports filled the budget before any table (bench.documents,
        bench-train at 1,500 tokens: 35 of 43 misses sent no table, the question's own table
        ranked first by `rank_tables` in 20 of them), and nothing sent a table's own text
        with it."""
        order = interleave(close, chunk_hits, by_table) + [("later", t) for t in later]
        if not ranked_all:
            return order
        # A lead table (the one a plan is about) is the first, whatever its evidence.
        evidence = ranked_all[:1] if lead else \
            [ts for ts in ranked_all[:MAX_TABLES] if ts[1] > 0]
        sources = self._chunk_files([h.table for h in all_chunks])
        n = 1 if lead else max(1, min(len(evidence),
                                       int(budget * TABLE_PART) // MIN_PART_TOKENS))
        reports = [(ts, self.report_chunks(question, ts[0], all_chunks, sources,
                                           chunk_sources)[:REPORT_CHUNKS])
                   for ts in evidence[:n]]
        if not chunk_hits and not any(r for _, r in reports):  # tables alone
            return order
        part = max(MIN_TABLE_TOKENS, int(budget * TABLE_PART / max(1, len(reports))))
        plan: list[tuple[Any, ...]] = []
        pulled = None
        if order[0][0] == "chunk" and not lead:
            # A chunk stronger than any table (or no table with evidence): its report's
            # table comes with it, after the best tables and their reports' text.
            plan.append(("chunk", chunk_hits[0]))
            pulled = self._report_table(sources.get(chunk_hits[0].table), ranked_all,
                                        tables)
        for ts, text in reports:
            plan.append(("table", ts, part))
            plan += [("chunk", h) for h in text]
        planned = {ts[0] for ts, _ in reports}
        if pulled is not None and pulled[0] not in planned:
            plan.append(("table", pulled, part))
            planned.add(pulled[0])
        return plan + [u for u in order if u[0] == "chunk" or u[1][0] not in planned]

    def _chunk_files(self, chunk_ids: Sequence[str]) -> dict[str, str]:
        """The file (sha256) of each chunk."""
        if not chunk_ids:
            return {}
        marks = ", ".join("?" * len(chunk_ids))
        return dict(self.workspace.db.execute(
            f"SELECT id, source FROM chunks WHERE id IN ({marks})", list(chunk_ids)).fetchall())

    def _report_files(self, files: set[str]) -> set[str]:
        """Files and the files beside them (a report's table file and its text document)."""
        return files | self.workspace.beside(files)

    def _report_table(self, file: str | None, ranked_all: Sequence[tuple[str, float]],
                      tables: Sequence[str] | None) -> tuple[str, float] | None:
        """The best ranked table of a chunk's report (its own file's or beside it)."""
        if file is None:
            return None
        files = self._report_files({file})
        marks = ", ".join("?" * len(files))
        own = {row[0] for row in self.workspace.db.execute(
            f"SELECT id FROM catalog WHERE source IN ({marks})", sorted(files))}
        if tables is not None:
            own &= set(tables)
        return next(((t, sc) for t, sc in ranked_all if t in own), None)

    def report_chunks(self, question: str, table_id: str, all_chunks: Sequence[Hit],
                      files_of: dict[str, str], chunk_sources: set[str]) -> list[Hit]:
        """The text chunks of a table's report (its own file's, and the documents' added
        beside it), best first: those the search found by their fused score, then the
        others the question's words find among the report's alone, then in reading order."""
        [file] = [row[0] for row in self.workspace.db.execute(
            "SELECT source FROM catalog WHERE id = ?", [table_id])] or [None]
        if file is None:
            return []
        files = self._report_files({file}) & chunk_sources
        if not files:
            return []
        out = [h for h in all_chunks if files_of.get(h.table) in files]
        seen = {h.table for h in out}
        for h in self.search.text(question, files):
            if h.table not in seen:
                seen.add(h.table)
                out.append(Hit("chunk", h.table, h.text, h.path, None, h.source, 0.0,
                               {"report"}))
        if len(out) < REPORT_CHUNKS:
            for f in sorted(files):
                # The first chunks alone: a long document is not read on every question.
                for c in read_chunks(self.workspace.db, f, limit=REPORT_CHUNKS):
                    if c.id not in seen:
                        seen.add(c.id)
                        out.append(Hit("chunk", c.id, c.text, (c.chunk.section,)
                                       if c.chunk.section else (), None, c.file_name, 0.0,
                                       {"report"}))
        return out

    def _chunk_text(self, hit: Hit, sent: list[str]) -> str:
        """A chunk as the context shows it: its id, where it is, and its text."""
        stored = self.workspace.chunk(hit.table)
        return f"## x{len(sent)}: {stored.title()}\n{stored.text}"

    def _fill(self, shown: Shown, rows_sent: list[int], col_scores: dict[str, float],
              hits: list[Hit], measure: str | None, out: _Lines) -> None:
        """Add a focused table's other rows (the weakly named ones first, then in sheet
        order) while the budget lasts; when they
        cannot all be shown, only its row headers and the column an extreme is taken over,
        or else the columns the question names best (`FILL_COLUMNS`), so that more rows fit
        (a "which ... the most" reads one column of every row)."""
        frame = shown.frame
        shown_set = set(rows_sent)
        _, row_scores = ground(frame, hits)
        weak = sorted((r for r in row_scores if r not in shown_set),
                      key=lambda r: (-row_scores[r], r))
        rest = weak + [r for r in frame.rows if r not in shown_set and r not in row_scores]
        if not rest:
            return
        levels = [a.key for a in frame.levels]
        named = [measure] if measure is not None else sorted(
            (k for k in col_scores if k in shown.column_ids.values() and k not in levels),
            key=lambda k: -col_scores[k])[:FILL_COLUMNS]
        keep = set(levels) | set(named)
        compact = Shown(shown.id, frame, {cid: key for cid, key in shown.column_ids.items()
                                          if key in keep})
        sample = self.counter.count(_row_line(shown, rest[0]))
        if named and len(compact.column_ids) < len(shown.column_ids) \
                and sample * len(rest) > out.left:
            if not out.add("more rows, columns " + " | ".join(compact.column_ids) + ":"):
                return
            shown = compact
        for r in rest:
            if not out.add(_row_line(shown, r)):
                break
            rows_sent.append(r)

    def _frame(self, table_id: str) -> Frame:
        # The process's frames, which the run's planner reads too: an LLM run's context does
        # not decode its tables' row trees a second time.
        [frame] = SHARED_FRAMES.load(self.workspace, [table_id])
        return frame

    def _focused(self, shown: Shown, hits: list[Hit], analysis: Analysis, out: _Lines) -> Any:
        """Add a table's schema, the rows its extreme or order needs and its grounded rows
        to `out`; return (the hits shown, the rows sent, the column scores, the narrowed
        table, the column an extreme is taken over), or None when not even its heading
        fits."""
        frame = shown.frame
        col_scores, row_scores = ground(frame, hits)
        col_scores = _worded_columns_first(frame, analysis.text, col_scores)
        _, worded = ground(frame, _whole_names(hits, analysis.text))
        first, measure = priority_rows(frame, analysis, col_scores, worded)
        keys = self._columns(shown, col_scores, out.span)
        if measure is not None:
            keys.add(measure)
        narrowed = Shown(shown.id, frame, {cid: key for cid, key in shown.column_ids.items()
                                           if key in keys})
        heading = focused_heading(narrowed, len(shown.column_ids), self.sql_views)
        if not out.add(heading):
            return None
        out.add("row | " + " | ".join(narrowed.column_ids))
        rows_sent: list[int] = []
        for r in first:
            if not out.add(_row_line(narrowed, r)):
                break
            rows_sent.append(r)
        leading = set(first)
        ranked = sorted(((r, s) for r, s in row_scores.items() if r not in leading),
                        key=lambda kv: (-kv[1], kv[0]))
        best = ranked[0][1] if ranked else 0.0
        for r, score in ranked:
            # Weakly named rows (a vector neighbour alone) wait for the fill, which may show
            # them as fewer columns.
            if score < best * STRONG_ROW_SHARE or not out.add(_row_line(narrowed, r)):
                break
            rows_sent.append(r)
        visible = {frame.attr(k).col for k in narrowed.column_ids.values()
                   if frame.attr(k).col is not None}
        shown_rows = set(rows_sent)
        picked = [h for h in hits if _hit_visible(h, frame, visible, shown_rows)]
        for r in rows_sent:
            if r in row_scores:
                picked.append(_row_hit(frame, r, row_scores[r], visible))
        return picked, rows_sent, col_scores, narrowed, measure

    def _columns(self, shown: Shown, col_scores: dict[str, float], budget: int) -> set[str]:
        """The row headers and every column when all fit (the schema lines in budget /
        SCHEMA_SHARE, a row line in budget / ROW_SHARE); else the row headers and the
        columns the question names best (scoring at least STRONG_COLUMN_SHARE of the best,
        at most MAX_NAMED_COLUMNS), best first while they fit, or without such columns the
        first ones in sheet order. The best named column is always shown."""
        frame = shown.frame
        levels = [a.key for a in frame.levels]
        data = [a.key for a in frame.data_attrs]
        named = sorted((k for k in col_scores if k in data), key=lambda k: -col_scores[k])
        best = col_scores[named[0]] if named else 0.0
        strong = [k for k in named
                  if col_scores[k] >= best * STRONG_COLUMN_SHARE][:MAX_NAMED_COLUMNS]
        sample_row = frame.rows[0] if frame.rows else None
        schema_cap, row_cap = budget // SCHEMA_SHARE, max(40, budget // ROW_SHARE)

        def costs(key: str) -> tuple[int, int]:
            value = frame.value(sample_row, key) if sample_row is not None else None
            cell = (self.counter.count(_clip(value.text)) if value is not None else 0) + 1
            return self.counter.count(f"c0 = {_describe_column(frame.attr(key))}"), cell

        base = [costs(k) for k in levels]
        schema, row = sum(c[0] for c in base), sum(c[1] for c in base)
        chosen = set(levels)
        for n, key in enumerate(strong or data):
            line, cell = costs(key)
            if n and (schema + line > schema_cap or row + cell > row_cap):
                return chosen
            chosen.add(key)
            schema += line
            row += cell
        others = [k for k in data if k not in chosen]
        if len(frame.rows) * row > budget:
            # Too many rows for all of them: the budget goes to rows, not to more columns,
            # unless every column fits (a table is clearer whole-width).
            extra = [costs(k) for k in others] if len(others) <= 4 * MAX_NAMED_COLUMNS else []
            if len(extra) == len(others) and schema + sum(c[0] for c in extra) <= schema_cap \
                    and row + sum(c[1] for c in extra) <= row_cap:
                chosen.update(others)
            return chosen
        for key in others:  # few rows: more of their columns, in sheet order, while they fit
            line, cell = costs(key)
            if schema + line > schema_cap or row + cell > row_cap:
                break
            chosen.add(key)
            schema += line
            row += cell
        return chosen


def split_close(ranked: Sequence[tuple[str, float]], lead: bool = False
                ) -> tuple[list[tuple[str, float]], list[tuple[str, float]]]:
    """The ranked tables close enough to the best to share the budget with it (a score
    of at least CLOSE_SHARE of the best's; with a `lead`, the lead table and those close to
    the best of the others), and the others, which get what the close ones leave."""
    if not ranked:
        return [], []
    head = 1 if lead else 0
    rest = ranked[head:]
    best = rest[0][1] if rest else 0.0
    n = head + sum(1 for _ in itertools.takewhile(
        lambda ts: best > 0 and ts[1] >= CLOSE_SHARE * best, rest))
    n = max(n, 1)
    return list(ranked[:n]), list(ranked[n:])


def interleave(tables: Sequence[tuple[str, float]], chunks: Sequence[Hit],
               by_table: dict[str, list[Hit]]) -> list[tuple[str, Any]]:
    """Tables (in their ranked order) and text chunks (best first) in one order: whichever
    head has the better single hit comes next (a table by its best hit's fused score, so a
    table is not preferred for having many middling hits), tables without hits last."""
    def best(table_id: str) -> float:
        return max((h.score for h in by_table.get(table_id, [])), default=0.0)

    out: list[tuple[str, Any]] = []
    t = c = 0
    while t < len(tables) or c < len(chunks):
        take_table = c >= len(chunks) or (t < len(tables) and tables[t][1] > 0
                                          and best(tables[t][0]) >= CHUNK_WEIGHT
                                          * chunks[c].score)
        if take_table:
            out.append(("table", tables[t]))
            t += 1
        else:
            out.append(("chunk", chunks[c]))
            c += 1
    return out


def ground(frame: Frame, hits: Sequence[Hit]) -> tuple[dict[str, float], dict[int, float]]:
    """Scores of the frame's columns (by key) and data rows the hits name: a column path
    names its columns and those under it; a row path its rows and those under it; a cell its
    column (at half its score) and its row. A row scores the sum of its hits; a column its
    best hit, so that a column of many matching cells does not drown the columns named by
    their headers ("Jinan" beside a column of many "... Engineering")."""
    cols: dict[str, float] = defaultdict(float)
    rows: dict[int, float] = defaultdict(float)
    data = frame.data_attrs
    by_col = {a.col: a.key for a in data if a.col is not None}
    by_any_col = {a.col: a.key for a in frame.attrs if a.col is not None}
    holders: dict[str, dict[str, list[int]]] = {}
    row_set = set(frame.rows)
    for hit in hits:
        if hit.table != frame.table:
            continue
        path = tuple(hit.path)
        if hit.kind == "column_path" and path:
            for a in frame.attrs:
                if a.path[:len(path)] == path:
                    cols[a.key] = max(cols[a.key], hit.score)
        elif hit.kind == "row_path" and path:
            for r, rpath in frame.row_paths.items():
                if tuple(rpath[:len(path)]) == path:
                    rows[r] += hit.score
        elif hit.kind == "cell" and hit.ref:
            r, c = _ref_row_col(hit.ref)
            # The index holds a column's distinct values once, at their first cell: a value
            # names every row that holds it ("the stores of the South region"), the less
            # the more rows hold it (a word common to many rows names none of them well).
            holding = _rows_holding(frame, by_any_col.get(c), hit.text, r, holders)
            for same in holding:
                if same in row_set:
                    rows[same] += hit.score / len(holding) ** 0.5
            if c in by_col:
                cols[by_col[c]] = max(cols[by_col[c]], hit.score / 2)
            elif path:
                for a in data:
                    if a.path == path:
                        cols[a.key] = max(cols[a.key], hit.score / 2)
    # The rows beside the best named ones ("the next singer after X", "who came in after Y").
    order = {r: i for i, r in enumerate(frame.rows)}
    best = sorted(rows.items(), key=lambda kv: -kv[1])[:NEIGHBOUR_ROWS]
    for r, score in best:
        i = order.get(r)
        if i is None:
            continue
        for j in (i - 1, i + 1):
            if 0 <= j < len(frame.rows) and frame.rows[j] not in rows:
                rows[frame.rows[j]] = score * NEIGHBOUR_SHARE
    return dict(cols), dict(rows)


def _worded_columns_first(frame: Frame, question: str, col_scores: dict[str, float]
                          ) -> dict[str, float]:
    """The column scores with the columns whose own header words are all in the question
    ahead of the others ("women aged 25 to 34 years" names "25 years and older > 25 to 34
    years", a header no other column has; "Region 2 in Q1" names "Region 2 > Q1", each level
    of its path): rank fusion favours what two lists hold, so a column that only full-text
    search ranks first can score below its siblings that the vectors hold too."""
    asked = label_tokens(question)
    best = max(col_scores.values(), default=0.0)
    out = dict(col_scores)
    leaves = Counter(a.path[-1].casefold() for a in frame.data_attrs if a.path)
    for attr in frame.data_attrs:
        if not attr.path:
            continue
        # A header under several parents ("Total", "Votes") names none of them alone; with
        # each of its parents named too ("Region 2 ... Q1") it does.
        unique = leaves[attr.path[-1].casefold()] == 1
        if _named(attr.path[-1], asked) and (unique or all(
                _named(level, asked) for level in attr.path[:-1] if level)):
            out[attr.key] = best + col_scores.get(attr.key, 0.0)
    return out


def _whole_names(hits: Sequence[Hit], question: str) -> list[Hit]:
    """The hits of cells and row labels the question names (ROW_NAME_SHARE of their words), by
    words rather than by vectors ("in the *South* region", "for *women*", "*cooling degree
    days*" for "Measure: Cooling degree days"): the rows an extreme is also taken over. A cell
    that shares one word of two with the question ("Store N27" for "which store") names
    nothing, nor do a question's vector neighbours, which are nearly every row of a table.
    A row path is cut after its deepest level the question names ("Women > 1990" for "women":
    every row under "Women")."""
    asked = label_tokens(question)
    out = []
    for hit in hits:
        if not hit.found_by - {"vector"}:
            continue
        if hit.kind == "cell" and _named(hit.text, asked, ROW_NAME_SHARE):
            out.append(hit)
        elif hit.kind == "row_path":
            depth = max((i + 1 for i, label in enumerate(hit.path)
                         if _named(label, asked, ROW_NAME_SHARE)), default=0)
            if depth:
                out.append(Hit(hit.kind, hit.table, hit.text, hit.path[:depth], hit.ref,
                               hit.source, hit.score, hit.found_by))
    return out


def _named(label: str, asked: Sequence[str], share: float = 1.0) -> bool:
    """Whether the question uses the label's words (at least `share` of them) as one run of
    words: "Item 5" is not named by "which item has the highest Region 5 figure"."""
    own = label_tokens(label)
    if not own:
        return False
    run = SequenceMatcher(None, own, asked, autojunk=False).find_longest_match(
        0, len(own), 0, len(asked))
    return run.size >= share * len(own)


def _rows_holding(frame: Frame, key: str | None, text: str, first: int,
                  holders: dict[str, dict[str, list[int]]]) -> list[int]:
    """The rows whose cell in a column reads `text` (case and spaces aside), `first` (the
    cell a hit was found at) first; `holders` keeps each column's rows by text, so that a
    column is read once for all its hits."""
    if key is None:
        return [first]
    by_text = holders.get(key)
    if by_text is None:
        by_text = holders[key] = defaultdict(list)
        for r, v in frame.column(key).items():
            by_text[" ".join(v.text.split()).casefold()].append(r)
    same = by_text.get(" ".join(text.split()).casefold(), [])
    return [first] + [r for r in same if r != first]


def focused_heading(table: Shown, all_columns: int, sql_view: bool = False) -> str:
    """A table's name, size and the columns shown (id, path, type, unit, sheet column), and
    with `sql_view` its SQL view with the shown columns' names in it."""
    frame = table.frame
    head = f"## {table.id}: {place(frame)}"
    if frame.title:
        head += f" ({_clip(frame.title)})"
    shown = len(table.column_ids)
    of = f" ({shown} of {all_columns} shown)" if shown < all_columns else ""
    lines = [head, f"{len(frame.rows)} data rows; columns{of}:"]
    for cid, key in table.column_ids.items():
        lines.append(f"{cid} = {_describe_column(frame.attr(key))}")
    if sql_view and frame.wide:
        columns = ", ".join(f'{cid} "{_quoted(key)}"' for cid, key in table.column_ids.items())
        lines.append(f'SQL view "{frame.wide}": "_row" (sheet row), {columns}')
    for note in frame.notes[:2]:
        lines.append(f"note: {_clip(note, 120)}")
    lines.append("cells (the rows the question names first):" if not sql_view else
                 "cells (the rows the question names first; pick others with `where`, or all "
                 'rows with ["all"]):')
    return "\n".join(lines)


def picked_items(hits: Sequence[Hit], frame: Frame) -> list[dict[str, Any]]:
    """The items of one table's hits that the context shows."""
    out = []
    for hit in hits:
        if hit.kind == "table":
            continue
        item = hit.item()
        item.setdefault("source", frame.file_name)
        out.append(item)
    return out


def _hit_visible(hit: Hit, frame: Frame, cols: set[int], rows: set[int]) -> bool:
    if hit.kind == "cell":
        if not hit.ref:
            return False
        r, c = _ref_row_col(hit.ref)
        return r in rows and (c in cols or c not in {a.col for a in frame.data_attrs})
    if hit.kind == "row":
        return bool(hit.ref) and _ref_row_col(hit.ref)[0] in rows
    return hit.kind in ("column_path", "row_path")


def _row_hit(frame: Frame, row: int, score: float, cols: set[int]) -> Hit:
    """A row the context shows because the question named it, as an item: its row path and
    the A1 range of its cells shown."""
    level_cols = [_ref_row_col(v.ref)[1] for a in frame.levels
                  if (v := frame.column(a.key).get(row)) is not None and v.ref]
    spread = [c for c in (*level_cols, *cols) if c]
    ref = (f"{get_column_letter(min(spread))}{row}:{get_column_letter(max(spread))}{row}"
           if spread else None)
    return Hit("row", frame.table, frame.row_label(row),
               tuple(p for p in frame.row_paths.get(row, ()) if p), ref, frame.file_name,
               score)


def _ref_row_col(ref: str) -> tuple[int, int]:
    first = ref.split(":")[0].replace("$", "")
    letters, row = coordinate_from_string(first)
    return row, column_index_from_string(letters)
