"""Score a suite's answers against its gold answers, and print or dump the scores.

The matching rules are the benchmark README's (`tablelens/evaluation/scoring.py`), strict and
lenient; an honest "cannot answer" (`batch.OUTCOMES`) is unanswered, not failed.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from tablelens.evaluation.batch import failure, predicted
from tablelens.evaluation.questions import Problem
from tablelens.evaluation.scoring import match

REPORT_SCHEMA_VERSION = 1


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
    median_llm_calls: float | None = None
    p95_llm_calls: float | None = None
    mean_prompt_tokens: float | None = None
    """Prompt tokens per question, over the questions with a prediction (0 offline)."""
    mean_completion_tokens: float | None = None
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
            "median_llm_calls": self.median_llm_calls, "p95_llm_calls": self.p95_llm_calls,
            "mean_prompt_tokens": self.mean_prompt_tokens,
            "mean_completion_tokens": self.mean_completion_tokens,
            "confidently_wrong": self.confidently_wrong,
            "errors": self.errors,
        }
        return {key: value for key, value in out.items() if value is not None and value != []}


def evaluate(questions: list[dict[str, Any]], predictions: list[dict[str, Any]], *,
             suite: str) -> SuiteReport:
    """Score predictions against the questions' gold answers (shared/bench/README.md).

    A question with no prediction counts as unanswered and wrong. Latency, LLM calls and
    tokens are taken over the questions that have a prediction, answered or not; the median
    and p95 of calls are nearest-rank (a count some question really made).
    """
    by_id = {p["id"]: p for p in predictions if "id" in p}
    answered = correct_strict = correct_lenient = 0
    confidently_wrong: list[str] = []
    errors: list[Problem] = []
    latencies: list[float] = []
    llm_calls: list[int] = []
    prompt_tokens: list[int] = []
    completion_tokens: list[int] = []
    for question in questions:
        prediction = by_id.get(question["id"])
        if prediction is None:
            continue
        latencies.append(prediction.get("latency_ms", 0))
        llm_calls.append(prediction.get("llm_calls", 0))
        prompt_tokens.append(prediction.get("prompt_tokens", 0))
        completion_tokens.append(prediction.get("completion_tokens", 0))
        if error := failure(prediction):
            errors.append({"source": question["id"],
                           "message": f"{error.get('kind')}: {error.get('message')}"})
            continue
        if predicted(prediction) is None:
            continue
        answered += 1
        strict = correct(question, prediction, lenient=False)
        correct_strict += strict
        correct_lenient += correct(question, prediction, lenient=True)
        if not strict and prediction.get("confidence_label") == "high":
            confidently_wrong.append(question["id"])
    return SuiteReport(
        suite=suite, n=len(questions), answered=answered, correct_strict=correct_strict,
        correct_lenient=correct_lenient, latency_p50_ms=_percentile(latencies, 50),
        latency_p95_ms=_percentile(latencies, 95),
        mean_llm_calls=_mean(llm_calls), median_llm_calls=_percentile(llm_calls, 50),
        p95_llm_calls=_percentile(llm_calls, 95), mean_prompt_tokens=_mean(prompt_tokens),
        mean_completion_tokens=_mean(completion_tokens),
        confidently_wrong=confidently_wrong, errors=errors)


def correct(question: dict[str, Any], prediction: dict[str, Any], *, lenient: bool) -> bool:
    """Whether a prediction's values (else its answer) match the question's gold."""
    return match(predicted(prediction), question.get("answers", []),
                 canon=question.get("answers_canon"), scale=question.get("scale", ""),
                 lenient=lenient)


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def _ratio(part: int, whole: int) -> float | None:
    return part / whole if whole else None


def _percentile(values: Sequence[float], p: float) -> float | None:
    """Return the nearest-rank percentile: always a value that was observed."""
    if not values:
        return None
    ordered = sorted(values)
    return ordered[max(0, math.ceil(p / 100 * len(ordered)) - 1)]


_COLUMNS = ("suite", "n", "answered", "acc strict", "acc lenient", "prec strict",
            "prec lenient", "p50 ms", "p95 ms", "llm calls", "calls p50", "calls p95",
            "prompt tok", "compl. tok", "conf. wrong")


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
            _num(report.mean_llm_calls, 2), _num(report.median_llm_calls, 0),
            _num(report.p95_llm_calls, 0), _num(report.mean_prompt_tokens, 0),
            _num(report.mean_completion_tokens, 0), str(len(report.confidently_wrong)))


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
