"""Answer a file of questions and score the answers: `tablelens batch` and `tablelens eval`.

A questions file is JSONL in the layout of shared/bench/README.md: `id`, `table` (relative to
the questions file's folder), `question`, and optionally `answers`, `answers_canon`, `scale`,
`paragraphs`. The answers file has one JSON line per question, in question order: the Answer
fields (CONTRACTS.md "Answers") plus `id` and `question`. One bad question never stops a run:
its line has `answer: null` and `error: {kind, message}`.

The answering itself is a function given by the caller, `answer_fn(table_paths, question,
paragraphs) -> Answer`; `TableCache` lets it ingest each table once for all its questions.
"""

from __future__ import annotations

import json
import logging
import math
import tempfile
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Generic, TypeVar

from agent.events import Answer, StepError
from agent.scoring import match

__all__ = [
    "REPORT_SCHEMA_VERSION",
    "AnswerFn",
    "BatchSummary",
    "SuiteReport",
    "TableCache",
    "evaluate",
    "format_report",
    "load_questions",
    "run_batch",
    "run_eval",
]

log = logging.getLogger(__name__)

REPORT_SCHEMA_VERSION = 1
QUESTIONS_FILE = "questions.jsonl"
REQUIRED_KEYS = ("id", "table", "question")

AnswerFn = Callable[[list[Path], str, list[str] | None], Answer]
"""Answer one question from its tables (and, for TAT-QA, the report's paragraphs)."""
Progress = Callable[[int, int, dict[str, Any]], None]
"""Called after each question with (done, total, the line just written)."""
Problem = dict[str, str]
"""An input that failed, as the command line lists it: {"source", "message"}."""

H = TypeVar("H")


# ---------------------------------------------------------------------------------------------
# Reading questions


def load_questions(path: str | Path, *, problems: list[Problem] | None = None
                   ) -> list[dict[str, Any]]:
    """Read a questions JSONL file; skip and report the lines that are not valid questions.

    A bad line (not JSON, not an object, missing `id`, `table` or `question`, a repeated `id`)
    is appended to `problems` as {"source": "file:line", "message"}, or logged as a warning
    when no list is given; the other lines are still returned.
    """
    questions: list[dict[str, Any]] = []
    seen: set[str] = set()
    for source, line in _lines(Path(path)):
        try:
            question = _question(line, seen)
        except ValueError as exc:
            if problems is None:
                log.warning("%s: %s", source, exc)
            else:
                problems.append({"source": source, "message": str(exc)})
            continue
        seen.add(question["id"])
        questions.append(question)
    return questions


def _lines(path: Path) -> Iterable[tuple[str, str]]:
    """Yield (file:line, text) for each non-blank line."""
    with path.open(encoding="utf-8") as stream:
        for number, line in enumerate(stream, start=1):
            if line.strip():
                yield f"{path}:{number}", line


def _question(line: str, seen: set[str]) -> dict[str, Any]:
    """Parse and check one question line; raise ValueError saying what is wrong."""
    try:
        question = json.loads(line)
    except json.JSONDecodeError as exc:
        raise ValueError(f"not valid JSON ({exc.msg}).") from None
    if not isinstance(question, dict):
        raise ValueError("not a JSON object.")
    missing = [key for key in REQUIRED_KEYS if not isinstance(question.get(key), str)]
    if missing:
        raise ValueError(f"missing or not text: {', '.join(missing)}.")
    if question["id"] in seen:
        # Answers are joined to questions by id: a repeated id would be scored twice.
        raise ValueError(f"repeated id {question['id']!r}.")
    return question


def _read_jsonl(path: Path) -> list[dict[str, Any]]:
    """Read the JSON objects of a JSONL file we wrote ourselves."""
    return [json.loads(line) for _, line in _lines(path)]


# ---------------------------------------------------------------------------------------------
# Answering


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
              progress: Progress | None = None) -> BatchSummary:
    """Answer every question of a questions file and write one JSON line per question.

    Each line is flushed as it is written, so a long run can be watched and an interrupted one
    keeps its answers. An exception in `answer_fn` becomes that question's `error`.
    """
    questions_path, out_path = Path(questions_path), Path(out_path)
    summary = BatchSummary(out_path=out_path)
    questions = load_questions(questions_path, problems=summary.bad_lines)
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


def _paragraphs(question: dict[str, Any]) -> list[str] | None:
    """Return the question's paragraphs as plain text (TAT-QA raw data has {"text": ...})."""
    paragraphs = question.get("paragraphs")
    if not paragraphs:
        return None
    return [p["text"] if isinstance(p, dict) else str(p) for p in paragraphs]


def _ms_since(started: float) -> int:
    return round((time.perf_counter() - started) * 1000)


OUTCOMES = frozenset({"needs_llm", "not_verified"})
"""Error kinds that are answers in their own right (an honest "cannot answer"), not failures."""


def _failed(record: dict[str, Any]) -> dict[str, Any] | None:
    """The record's error when the question failed (not when it was honestly declined)."""
    error = record.get("error")
    return error if error and error.get("kind") not in OUTCOMES else None


def _count(summary: BatchSummary, record: dict[str, Any]) -> None:
    summary.n += 1
    if error := _failed(record):
        summary.failed.append({"source": record["id"],
                               "message": f"{error['kind']}: {error['message']}"})
    elif _predicted(record) is not None:
        summary.answered += 1


def _predicted(prediction: dict[str, Any]) -> Any:
    """Return what to score: `values` when it has items (multi-item answers), else `answer`.

    None when there is neither: an empty answer is no answer.
    """
    return prediction.get("values") or prediction.get("answer") or None


# ---------------------------------------------------------------------------------------------
# Scoring


@dataclass(frozen=True)
class SuiteReport:
    """The scores of one suite. Rates are fractions in [0, 1]; None when undefined."""

    suite: str
    n: int
    answered: int
    correct_strict: int
    correct_lenient: int
    latency_p50_ms: float | None
    latency_p95_ms: float | None
    mean_llm_calls: float | None
    confidently_wrong: list[str] = field(default_factory=list)
    """Ids answered wrong (strict rules) with confidence_label "high": the worst outcome."""
    errors: list[Problem] = field(default_factory=list)

    @property
    def answered_rate(self) -> float | None:
        return _ratio(self.answered, self.n)

    @property
    def accuracy_strict(self) -> float | None:
        return _ratio(self.correct_strict, self.n)

    @property
    def accuracy_lenient(self) -> float | None:
        return _ratio(self.correct_lenient, self.n)

    @property
    def precision_strict(self) -> float | None:
        return _ratio(self.correct_strict, self.answered)

    @property
    def precision_lenient(self) -> float | None:
        return _ratio(self.correct_lenient, self.answered)

    def to_dict(self) -> dict[str, Any]:
        """Return the report as JSON-ready values; undefined figures and no errors are absent."""
        out: dict[str, Any] = {
            "suite": self.suite, "n": self.n, "answered": self.answered,
            "correct_strict": self.correct_strict, "correct_lenient": self.correct_lenient,
            "answered_rate": self.answered_rate,
            "accuracy_strict": self.accuracy_strict,
            "accuracy_lenient": self.accuracy_lenient,
            "precision_strict": self.precision_strict,
            "precision_lenient": self.precision_lenient,
            "latency_p50_ms": self.latency_p50_ms, "latency_p95_ms": self.latency_p95_ms,
            "mean_llm_calls": self.mean_llm_calls,
            "confidently_wrong": self.confidently_wrong,
            "errors": self.errors,
        }
        return {key: value for key, value in out.items() if value is not None and value != []}


def evaluate(questions: list[dict[str, Any]], predictions: list[dict[str, Any]], *,
             suite: str) -> SuiteReport:
    """Score predictions against the questions' gold answers (shared/bench/README.md).

    A question with no prediction counts as unanswered and wrong. Latency and LLM calls are
    averaged over the questions that have a prediction, answered or not.
    """
    by_id = {p["id"]: p for p in predictions if "id" in p}
    answered = correct_strict = correct_lenient = 0
    confidently_wrong: list[str] = []
    errors: list[Problem] = []
    latencies: list[float] = []
    llm_calls: list[int] = []
    for question in questions:
        prediction = by_id.get(question["id"])
        if prediction is None:
            continue
        latencies.append(prediction.get("latency_ms", 0))
        llm_calls.append(prediction.get("llm_calls", 0))
        if error := _failed(prediction):
            errors.append({"source": question["id"],
                           "message": f"{error.get('kind')}: {error.get('message')}"})
            continue
        if _predicted(prediction) is None:
            continue
        answered += 1
        strict = _correct(question, prediction, lenient=False)
        correct_strict += strict
        correct_lenient += _correct(question, prediction, lenient=True)
        if not strict and prediction.get("confidence_label") == "high":
            confidently_wrong.append(question["id"])
    return SuiteReport(
        suite=suite, n=len(questions), answered=answered, correct_strict=correct_strict,
        correct_lenient=correct_lenient, latency_p50_ms=_percentile(latencies, 50),
        latency_p95_ms=_percentile(latencies, 95),
        mean_llm_calls=sum(llm_calls) / len(llm_calls) if llm_calls else None,
        confidently_wrong=confidently_wrong, errors=errors)


def _correct(question: dict[str, Any], prediction: dict[str, Any], *, lenient: bool) -> bool:
    return match(_predicted(prediction), question.get("answers", []),
                 canon=question.get("answers_canon"), scale=question.get("scale", ""),
                 lenient=lenient)


def _ratio(part: int, whole: int) -> float | None:
    return part / whole if whole else None


def _percentile(values: Sequence[float], p: float) -> float | None:
    """Return the nearest-rank percentile: always a value that was observed."""
    if not values:
        return None
    ordered = sorted(values)
    return ordered[max(0, math.ceil(p / 100 * len(ordered)) - 1)]


# ---------------------------------------------------------------------------------------------
# Reports


_COLUMNS = ("suite", "n", "answered", "acc strict", "acc lenient", "prec strict",
            "prec lenient", "p50 ms", "p95 ms", "llm calls", "conf. wrong")


def format_report(reports: Sequence[SuiteReport]) -> str:
    """Render the reports as a plain-text table, then the confidently wrong ids per suite."""
    rows = [_COLUMNS, *(_row(report) for report in reports)]
    widths = [max(len(row[i]) for row in rows) for i in range(len(_COLUMNS))]
    lines = ["  ".join(cell.ljust(w) if i == 0 else cell.rjust(w)
                       for i, (cell, w) in enumerate(zip(row, widths, strict=True)))
             for row in rows]
    for report in reports:
        if report.confidently_wrong:
            lines.append(f"{report.suite}: confidently wrong: "
                         + ", ".join(report.confidently_wrong))
        if report.errors:
            n = len(report.errors)
            lines.append(f"{report.suite}: {n} input{'' if n == 1 else 's'} failed")
    return "\n".join(lines)


def _row(report: SuiteReport) -> tuple[str, ...]:
    return (report.suite, str(report.n), _pct(report.answered_rate),
            _pct(report.accuracy_strict), _pct(report.accuracy_lenient),
            _pct(report.precision_strict), _pct(report.precision_lenient),
            _num(report.latency_p50_ms, 0), _num(report.latency_p95_ms, 0),
            _num(report.mean_llm_calls, 2), str(len(report.confidently_wrong)))


def _pct(rate: float | None) -> str:
    return "-" if rate is None else f"{rate * 100:.1f}%"


def _num(value: float | None, decimals: int) -> str:
    return "-" if value is None else f"{value:.{decimals}f}"


def reports_json(reports: Sequence[SuiteReport]) -> dict[str, Any]:
    """Return the reports as the command line's JSON: suites, and every failed input."""
    out: dict[str, Any] = {"schema_version": REPORT_SCHEMA_VERSION,
                           "suites": [report.to_dict() for report in reports]}
    errors = [error for report in reports for error in report.errors]
    if errors:
        out["errors"] = errors
    return out


# ---------------------------------------------------------------------------------------------
# Whole suites


def run_eval(suite_dirs: Sequence[str | Path], answer_fn: AnswerFn, *,
             out_dir: str | Path | None = None, progress: Progress | None = None
             ) -> list[SuiteReport]:
    """Answer and score each suite folder (holding questions.jsonl) in turn.

    The answers go to `out_dir/<suite>.jsonl`, or to a temporary folder removed afterwards.
    A suite's report lists its skipped question lines and failed questions under `errors`.
    Raises FileNotFoundError, before answering anything, when a folder has no questions file.
    """
    folders = [Path(d) for d in suite_dirs]
    for folder in folders:
        if not (folder / QUESTIONS_FILE).is_file():
            raise FileNotFoundError(f"no {QUESTIONS_FILE} in {folder}.")
    if out_dir is not None:
        return [_eval_suite(f, Path(out_dir), answer_fn, progress) for f in folders]
    with tempfile.TemporaryDirectory(prefix="tablelens-eval-") as tmp:
        return [_eval_suite(f, Path(tmp), answer_fn, progress) for f in folders]


def _eval_suite(folder: Path, out_dir: Path, answer_fn: AnswerFn,
                progress: Progress | None) -> SuiteReport:
    suite = folder.resolve().name
    questions_path = folder / QUESTIONS_FILE
    summary = run_batch(questions_path, out_dir / f"{suite}.jsonl", answer_fn,
                        progress=progress)
    # run_batch already collected the bad lines: read the questions again without reporting.
    questions = load_questions(questions_path, problems=[])
    report = evaluate(questions, _read_jsonl(summary.out_path), suite=suite)
    return replace(report, errors=summary.bad_lines + report.errors)
