"""Answer a file of questions, one JSON line per question: `tablelens batch`.

The answers file has one line per question, in question order: the Answer fields
(CONTRACTS.md "Answers") plus `id` and `question`. One bad question never stops a run: its
line has `answer: null` and `error: {kind, message}`.

The answering itself is a function given by the caller, `answer_fn(table_paths, question,
paragraphs) -> Answer`; `TableCache` lets it ingest each table once for all its questions.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, TypeVar

from agent.events import Answer, StepError
from tablelens.evaluation.questions import Problem, load_questions

log = logging.getLogger(__name__)

AnswerFn = Callable[[list[Path], str, list[str] | None], Answer]
"""Answer one question from its tables (and, for TAT-QA, the report's paragraphs)."""
Progress = Callable[[int, int, dict[str, Any]], None]
"""Called after each question with (done, total, the line just written)."""

H = TypeVar("H")


class TableCache(Generic[H]):
    """Ingest each table once and hand back the same handle for every later question.

    `ingest(path) -> handle` is called on the first request for a path (keyed by its resolved
    form). A failure is remembered and raised again: a broken workbook fails every one of its
    questions the same way, and ingesting it again would only cost time.
    """

    def __init__(self, ingest: Callable[[Path], H]) -> None:
        self._ingest = ingest
        self._handles: dict[Path, H] = {}
        self._failures: dict[Path, Exception] = {}

    def get(self, path: str | Path) -> H:
        """Return the handle of a table, ingesting it on first use."""
        key = Path(path).resolve()
        if key in self._failures:
            raise self._failures[key]
        if key not in self._handles:
            try:
                self._handles[key] = self._ingest(key)
            except Exception as exc:
                self._failures[key] = exc
                raise
        return self._handles[key]

    def __len__(self) -> int:
        return len(self._handles)


@dataclass
class BatchSummary:
    """What a batch run did: where the answers are and which inputs failed."""

    out_path: Path
    n: int = 0
    answered: int = 0
    failed: list[Problem] = field(default_factory=list)
    """Questions whose answer has an error: {"source": id, "message"}."""
    bad_lines: list[Problem] = field(default_factory=list)
    """Lines of the questions file that were skipped: {"source": "file:line", "message"}."""

    @property
    def errors(self) -> list[Problem]:
        """Return every failed input, for the command line's "errors" list."""
        return self.bad_lines + self.failed


def run_batch(questions_path: str | Path, out_path: str | Path, answer_fn: AnswerFn, *,
              progress: Progress | None = None,
              keep: Callable[[dict[str, Any]], bool] | None = None) -> BatchSummary:
    """Answer every question of a questions file (those `keep` accepts, when given) and write
    one JSON line per question.

    Each line is flushed as it is written, so a long run can be watched and an interrupted one
    keeps its answers. An exception in `answer_fn` becomes that question's `error`.
    """
    questions_path, out_path = Path(questions_path), Path(out_path)
    summary = BatchSummary(out_path=out_path)
    questions = load_questions(questions_path, problems=summary.bad_lines)
    if keep is not None:
        questions = [q for q in questions if keep(q)]
    out_path.parent.mkdir(parents=True, exist_ok=True)
    with out_path.open("w", encoding="utf-8") as out:
        for done, question in enumerate(questions, start=1):
            record = _answer_record(question, questions_path.parent, answer_fn)
            out.write(json.dumps(record, ensure_ascii=False) + "\n")
            out.flush()
            _count(summary, record)
            if progress is not None:
                progress(done, len(questions), record)
    return summary


def _answer_record(question: dict[str, Any], folder: Path, answer_fn: AnswerFn
                   ) -> dict[str, Any]:
    """Answer one question; turn any failure into an Answer with an error."""
    started = time.perf_counter()
    try:
        answer = _answer(question, folder, answer_fn)
    except Exception as exc:  # one bad question must never stop the run
        log.warning("question %s failed: %s: %s", question["id"], type(exc).__name__, exc)
        answer = Answer(answer=None, error=StepError(kind=type(exc).__name__,
                                                     message=str(exc) or type(exc).__name__))
    if not answer.latency_ms:
        # The answer function may not time itself; the wall time of the call stands in.
        answer = answer.model_copy(update={"latency_ms": _ms_since(started)})
    return {"id": question["id"], "question": question["question"], **answer.to_json_dict()}


def _answer(question: dict[str, Any], folder: Path, answer_fn: AnswerFn) -> Answer:
    table = folder / question["table"]  # an absolute `table` stays as it is
    if not table.is_file():
        raise FileNotFoundError(f"no table file {table}.")
    # Accept an Answer or a plain dict of its fields; anything else fails validation.
    return Answer.model_validate(answer_fn([table], question["question"],
                                           _paragraphs(question)))


def paragraphs_document(table: Path, paragraphs: list[str]) -> tuple[str, bytes]:
    """The name and bytes of the text document a question's paragraphs are ingested as: one
    paragraph per block of a `.txt` beside its table's name, so they are read, chunked and
    indexed as any uploaded document's text."""
    return (f"{table.stem}.paragraphs.txt",
            "\n\n".join(" ".join(p.split()) for p in paragraphs).encode("utf-8"))


def add_paragraphs(workspace: Any, table: Path, paragraphs: list[str], *,
                   beside: str | None = None, **add: Any) -> str:
    """Ingest a question's paragraphs as a text document (`paragraphs_document`) beside its
    table file (`beside`: that file's sha256, recorded on the document's `sources` row, so a
    context sends the report's text with its table); return the document's sha256. The same
    bytes are the same file: a report's paragraphs are stored once."""
    import io

    name, data = paragraphs_document(Path(table), paragraphs)
    return str(workspace.add_file(io.BytesIO(data), name, beside=beside, **add).sha256)


def _paragraphs(question: dict[str, Any]) -> list[str] | None:
    """Return the question's paragraphs as plain text (TAT-QA raw data has {"text": ...})."""
    paragraphs = question.get("paragraphs")
    if not paragraphs:
        return None
    return [p["text"] if isinstance(p, dict) else str(p) for p in paragraphs]


def _ms_since(started: float) -> int:
    return round((time.perf_counter() - started) * 1000)


OUTCOMES = frozenset({"needs_llm", "not_verified", "refused", "low_confidence"})
"""Error kinds that are answers in their own right (an honest "cannot answer"), not failures."""


def failure(record: dict[str, Any]) -> dict[str, Any] | None:
    """The record's error when the question failed (not when it was honestly declined)."""
    error = record.get("error")
    return error if error and error.get("kind") not in OUTCOMES else None


def _count(summary: BatchSummary, record: dict[str, Any]) -> None:
    summary.n += 1
    if error := failure(record):
        summary.failed.append({"source": record["id"],
                               "message": f"{error['kind']}: {error['message']}"})
    elif predicted(record) is not None:
        summary.answered += 1


def predicted(prediction: dict[str, Any]) -> Any:
    """Return what to score: `values` when it has items (multi-item answers), else `answer`.

    None when there is neither: an empty answer is no answer.
    """
    return prediction.get("values") or prediction.get("answer") or None
