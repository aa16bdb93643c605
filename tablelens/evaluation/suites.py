"""Answer and score whole suite folders: `tablelens eval`."""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from tablelens.evaluation.batch import AnswerFn, Progress, run_batch
from tablelens.evaluation.halves import Half, half_of
from tablelens.evaluation.questions import QUESTIONS_FILE, load_questions, read_jsonl
from tablelens.evaluation.report import SuiteReport, evaluate


def run_eval(suite_dirs: Sequence[str | Path], answer_fn: AnswerFn, *,
             out_dir: str | Path | None = None, progress: Progress | None = None,
             half: Half | None = None) -> list[SuiteReport]:
    """Answer and score each suite folder (holding questions.jsonl) in turn; with `half`, only
    the questions of that half of the fixed split (`tablelens/evaluation/halves.py`).

    The answers go to `out_dir/<suite>.jsonl`, or to a temporary folder removed afterwards.
    A suite's report lists its skipped question lines and failed questions under `errors`.
    Raises FileNotFoundError, before answering anything, when a folder has no questions file.
    """
    folders = [Path(d) for d in suite_dirs]
    for folder in folders:
        if not (folder / QUESTIONS_FILE).is_file():
            raise FileNotFoundError(f"no {QUESTIONS_FILE} in {folder}.")
    if out_dir is not None:
        return [_eval_suite(f, Path(out_dir), answer_fn, progress, half) for f in folders]
    with tempfile.TemporaryDirectory(prefix="tablelens-eval-") as tmp:
        return [_eval_suite(f, Path(tmp), answer_fn, progress, half) for f in folders]


def _eval_suite(folder: Path, out_dir: Path, answer_fn: AnswerFn,
                progress: Progress | None, half: Half | None) -> SuiteReport:
    suite = folder.resolve().name
    questions_path = folder / QUESTIONS_FILE

    def keep(question: dict) -> bool:
        return half is None or half_of(suite, question) == half

    summary = run_batch(questions_path, out_dir / f"{suite}.jsonl", answer_fn,
                        progress=progress, keep=keep)
    # run_batch already collected the bad lines: read the questions again without reporting.
    questions = [q for q in load_questions(questions_path, problems=[]) if keep(q)]
    name = suite if half is None else f"{suite} (half {half})"
    report = evaluate(questions, read_jsonl(summary.out_path), suite=name)
    return replace(report, errors=summary.bad_lines + report.errors)
