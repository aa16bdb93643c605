"""Answer questions about files: ingest each file once into one workspace, then ask."""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from agent.events import Answer
from agent.llm.settings import LLMSettings
from agent.prepare import prepare_tables
from agent.run import answer_question
from ingest.limits import DEFAULT_LIMITS, Limits
from storage.workspace import Workspace
from tablelens.evaluation.batch import TableCache, add_paragraphs
from tablelens.llm_options import llm_kwargs


class FileAnswerer:
    """Call with (table paths, question, paragraphs); files are ingested on first use.

    `llm` is the chat model every question is asked with (None or not enabled: offline).
    """

    def __init__(self, workspace_dir: str | Path | None = None, *,
                 limits: Limits = DEFAULT_LIMITS, llm: LLMSettings | None = None) -> None:
        self._tmp = None if workspace_dir else tempfile.TemporaryDirectory(prefix="tablelens-")
        self.workspace = Workspace(workspace_dir or self._tmp.name)  # type: ignore[union-attr]
        self.limits = limits
        self.llm = llm
        self._ingest_ms: dict[Path, int] = {}
        self._tables: TableCache[list[str]] = TableCache(self._ingest)
        self._shas: dict[Path, str] = {}

    def _ingest(self, path: Path) -> list[str]:
        start = time.perf_counter()
        info = self.workspace.add_file(path, limits=self.limits)
        self._shas[path] = info.sha256
        tables = self.workspace.table_ids(info.sha256)
        prepare_tables(self.workspace, tables)
        self._ingest_ms[path] = int((time.perf_counter() - start) * 1000)
        return tables

    def _text(self, table: Path, paragraphs: list[str]) -> str:
        """The file (sha256) of a question's paragraphs, ingested as a text document beside
        its table's file (once: the same bytes are the same file)."""
        return add_paragraphs(self.workspace, table, paragraphs, limits=self.limits,
                              beside=self._shas.get(Path(table).resolve()))

    def __call__(self, table_paths: list[Path], question: str,
                 paragraphs: list[str] | None = None) -> Answer:
        fresh = [Path(p).resolve() for p in table_paths
                 if Path(p).resolve() not in self._ingest_ms]
        table_ids = [t for p in table_paths for t in self._tables.get(p)]
        text = [self._text(table_paths[0], paragraphs)] if paragraphs and table_paths else []
        answer = answer_question(self.workspace, question, table_ids=table_ids,
                                 text_sources=text, **llm_kwargs(self.llm))
        answer.ingest_ms = sum(self._ingest_ms.get(p, 0) for p in fresh)
        return answer

    def close(self) -> None:
        self.workspace.close()
        if self._tmp is not None:
            self._tmp.cleanup()
