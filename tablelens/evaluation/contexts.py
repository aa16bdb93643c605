"""The retrieved context of each question of a questions file: `tablelens context --questions`.

One line per question, in question order: `{"id", "text", "tokens", "items"}` (and `error`
when the question's table could not be read). The embedding model and the tokenizer load once;
each table file is ingested once into one workspace (`TableCache`), and a question's context is
built over its own table's tables. Pooled (`pooled=True`, the command's PATHs): every table of
the workspace is a candidate for every question, whose own `table` is ignored.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent.context_builder import Context, ContextBuilder
from ingest.limits import DEFAULT_LIMITS, Limits
from storage.workspace import Workspace
from tablelens.evaluation.batch import TableCache, _paragraphs, add_paragraphs
from tablelens.evaluation.questions import Problem, load_questions

log = logging.getLogger(__name__)

Progress = Callable[[int, int, dict[str, Any]], None]


class FileContexts:
    """Contexts of questions about files of one workspace, each file ingested on first use."""

    def __init__(self, workspace: Workspace, builder: ContextBuilder, *,
                 limits: Limits = DEFAULT_LIMITS) -> None:
        self.workspace = workspace
        self.builder = builder
        self.limits = limits
        self._tables: TableCache[list[str]] = TableCache(self._ingest)

    def _ingest(self, path: Path) -> list[str]:
        info = self.workspace.add_file(path, limits=self.limits)
        return self.workspace.table_ids(info.sha256)

    def paragraphs_of(self, table: Path, paragraphs: list[str]) -> str:
        """The file (sha256) of a question's paragraphs, ingested as a text document beside
        its table's file when the workspace holds that file (else on its own)."""
        beside = None
        if Path(table).is_file():  # the table's file, when the workspace holds it
            import hashlib

            sha = hashlib.sha256(Path(table).read_bytes()).hexdigest()
            beside = sha if self.workspace.source(sha) is not None else None
        return add_paragraphs(self.workspace, table, paragraphs, limits=self.limits,
                              beside=beside)

    def tables_of(self, path: str | Path) -> list[str]:
        """The table ids of a file (ingested now if it is new)."""
        return self._tables.get(path)

    def context(self, question: str, table_paths: list[Path] | None = None,
                budget_tokens: int | None = None,
                text_sources: list[str] | None = None) -> Context:
        """The context of a question over the tables of `table_paths` (all tables: None)
        and the text of the files `text_sources` (sha256; all with `table_paths` None)."""
        tables = None if table_paths is None else \
            [t for p in table_paths for t in self._tables.get(p)]
        sources = None
        if tables is not None:  # the tables' files' text (theirs and beside them: the
            # search's default), and the given text files'
            sources = sorted(self.builder.search.chunk_sources(set(tables))
                             | set(text_sources or ()))
        return self.builder.build(question, budget_tokens=budget_tokens, tables=tables,
                                  chunk_sources=sources)


@dataclass
class ContextSummary:
    """What a run wrote, and which inputs failed."""

    out_path: Path
    n: int = 0
    errors: list[Problem] = field(default_factory=list)


def run_contexts(questions_path: str | Path, out_path: str | Path, contexts: FileContexts, *,
                 pooled: bool = False, budget_tokens: int | None = None,
                 progress: Progress | None = None) -> ContextSummary:
    """Write one context line per question of a questions file (flushed line by line)."""
    questions_path, out_path = Path(questions_path), Path(out_path)
    summary = ContextSummary(out_path)
    questions = load_questions(questions_path, problems=summary.errors)
    out_path.parent.mkdir(parents=True, exist_ok=True)
    with out_path.open("w", encoding="utf-8") as out:
        for done, question in enumerate(questions, start=1):
            record = context_record(question, questions_path.parent, contexts, pooled,
                                    budget_tokens)
            if "error" in record:
                summary.errors.append({"source": record["id"],
                                       "message": record["error"]["message"]})
            out.write(json.dumps(record, ensure_ascii=False) + "\n")
            out.flush()
            summary.n += 1
            if progress is not None:
                progress(done, len(questions), record)
    return summary


def context_record(question: dict[str, Any], folder: Path, contexts: FileContexts,
                   pooled: bool, budget_tokens: int | None) -> dict[str, Any]:
    """One question's line; a table that cannot be read gives a line with an error."""
    try:
        paths = None
        table = folder / question["table"]  # an absolute `table` stays as it is
        paragraphs = _paragraphs(question)
        if not pooled:
            if not table.is_file():
                raise FileNotFoundError(f"no table file {table}.")
            paths = [table]
            contexts.tables_of(table)  # first: its text is ingested beside it
        text = [contexts.paragraphs_of(table, paragraphs)] if paragraphs else []
        built = contexts.context(question["question"], paths, budget_tokens, text)
    except Exception as exc:  # one bad question must never stop the run
        message = getattr(exc, "message", None) or str(exc) or type(exc).__name__
        log.warning("question %s failed: %s", question["id"], message)
        return {"id": question["id"], "text": "", "tokens": 0, "items": [],
                "error": {"kind": type(exc).__name__, "message": message}}
    return {"id": question["id"], **built.to_json_dict()}
