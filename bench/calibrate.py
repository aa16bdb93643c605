"""Fit the engine's confidence on half A of the tuning split, and print reliability tables.

    python -m bench.calibrate fit PRED_DIR [SUITES_ROOT]   # `tablelens eval --half A --out-dir`
    python -m bench.calibrate report PRED_DIR SUITES_ROOT [--half B]
    python -m bench.calibrate keep-untuned PRED_DIR [SUITES_ROOT]

`fit` reads every answer of half A with whether it is right, adds the answers kept in
`bench/untuned_answers.jsonl`, fits the confidence model and its cut-offs out of fold by table
(`bench/confidence_fit.py`) and writes `agent/calibration.json`; it prints the out-of-fold
figures the cut-offs were chosen on.

Why the untuned answers: today's rules were tuned on half A, so their wrong answers there are
the few tuning left (a sign, a unit), not the kinds they make on tables they have never seen
(a count where a sum was asked, the wrong one of two columns). A model fitted on those alone
learns nothing that carries to half B. `keep-untuned` keeps the scored answers of an eval of
half A by rules never tuned on it (commit 944410b, before the precision rules, with
`agent/features.py` added to its basis): half A's tables, unseen tables' mistakes.

A "not sure" answer is scored by what it would have answered (`tentative`), so a fit does not
depend on the calibration in force when the predictions were made. `report` prints
confidence bins against accuracy, how many answers were labelled high and how many of those
were right.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path
from typing import Any

from agent.calibration import Calibration
from bench.confidence_fit import fit
from tablelens.evaluation.batch import predicted
from tablelens.evaluation.halves import half_of
from tablelens.evaluation.questions import load_questions, read_jsonl
from tablelens.evaluation.report import correct

CALIBRATION_FILE = Path(__file__).resolve().parents[1] / "agent" / "calibration.json"
UNTUNED_FILE = Path(__file__).resolve().parent / "untuned_answers.jsonl"
"""Scored answers on half A of rules that were never tuned on it (`keep-untuned`)."""
TRAIN = Path(__file__).resolve().parents[2] / "shared" / "bench-train"
BINS = [0.0, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 1.0001]


def scored(pred_dir: Path, suites_root: Path, half: str | None) -> list[dict[str, Any]]:
    """Every prediction that gave (or would have given) an answer, with whether it is right
    and its table (`group`: folds keep a table's answers together)."""
    out = []
    for path in sorted(pred_dir.glob("*.jsonl")):
        suite = path.stem
        questions_file = suites_root / suite / "questions.jsonl"
        if not questions_file.is_file():
            continue
        questions = {q["id"]: q for q in load_questions(questions_file, problems=[])}
        for pred in read_jsonl(path):
            q = questions.get(pred.get("id"))
            if q is None or (half and half_of(suite, q) != half):
                continue
            # A "not sure" is scored by what it would have answered.
            would_be = {"answer": pred.get("answer"),
                        "values": pred.get("values") or (pred.get("tentative") or {}).get("values")}
            if not predicted(would_be) or not pred.get("basis"):
                continue
            right = correct(q, would_be, lenient=False)
            table = q.get("table")
            out.append({"suite": suite, "group": f"{suite}/{table}", "basis": pred["basis"],
                        "right": bool(right),
                        "confidence": float(pred.get("confidence") or 0.0),
                        "label": pred.get("confidence_label", "low"),
                        "answered": pred.get("answer") is not None})
    return out


def reliability(items: list[dict[str, Any]], title: str) -> None:
    """Confidence bins against accuracy (answers given or not sure), then the answers given
    that were labelled high and how many of them were right."""
    print(f"  {title}: confidence bin, answers (given or not sure), mean confidence, right")
    for low, high in zip(BINS, BINS[1:], strict=False):
        inside = [i for i in items if low <= i["confidence"] < high]
        if not inside:
            print(f"    [{low:.2f}, {min(high, 1.0):.2f}){'':>4}     0")
            continue
        mean = sum(i["confidence"] for i in inside) / len(inside)
        rate = sum(i["right"] for i in inside) / len(inside)
        print(f"    [{low:.2f}, {min(high, 1.0):.2f}){'':>4} {len(inside):>5}   {mean:.2f}   "
              f"{rate:6.1%}")
    given = [i for i in items if i["answered"]]
    high = [i for i in given if i["label"] == "high"]
    right = sum(i["right"] for i in high)
    print(f"    labelled high: {len(high)} of {len(given)} answers given "
          f"({len(high) / max(len(given), 1):.1%}), right {right} "
          f"({right / max(len(high), 1):.1%}); not sure: {len(items) - len(given)}")


SUITE_GOAL = 0.85
"""Precision when answered each suite of half B should reach (issue 12)."""
SUITE_MIN_ANSWERED = 30
"""Below this many answers a suite's precision is an interval, not a verdict."""


def wilson(right: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a share `right` of `n` (0-1 for n = 0)."""
    if n == 0:
        return 0.0, 1.0
    p = right / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def suite_precision(items: list[dict[str, Any]], title: str) -> None:
    """Per suite: answers given, right, precision with its 95% interval, and the verdict on
    the per-suite goal where enough were answered to judge."""
    print(f"  {title}: precision when answered per suite, with its 95% interval")
    for suite in sorted({i["suite"] for i in items}):
        given = [i for i in items if i["suite"] == suite and i["answered"]]
        right = sum(i["right"] for i in given)
        low, high = wilson(right, len(given))
        share = right / len(given) if given else 0.0
        verdict = (f"{'meets' if share >= SUITE_GOAL else 'misses'} the {SUITE_GOAL:.0%} goal"
                   if len(given) >= SUITE_MIN_ANSWERED else
                   f"fewer than {SUITE_MIN_ANSWERED} answered: no verdict")
        print(f"    {suite:<14} n {len(given):>4}  right {right:>4}  {share:6.1%}  "
              f"[{low:.1%}, {high:.1%}]  {verdict}")


def main(argv: list[str]) -> int:
    if len(argv) >= 2 and argv[0] in ("fit", "keep-untuned"):
        items = [i for i in scored(Path(argv[1]), Path(argv[2]) if len(argv) > 2 else TRAIN,
                                   "A")
                 if i["basis"].get("planned_by", "rules") == "rules"]
        if argv[0] == "keep-untuned":
            UNTUNED_FILE.write_text("".join(json.dumps({k: i[k] for k in ("group", "right",
                                                                          "basis")}) + "\n"
                                            for i in items))
            print(f"kept {len(items)} answers of half A as untuned in {UNTUNED_FILE}")
            return 0
        untuned = list(read_jsonl(UNTUNED_FILE)) if UNTUNED_FILE.is_file() else []
        fitted = fit(items + untuned)
        calibration = fitted.calibration
        CALIBRATION_FILE.write_text(json.dumps(calibration.to_json(), indent=1) + "\n")
        estimates = fitted.out_of_fold
        print(_out_of_fold_summary("half A", items, estimates[:len(items)], calibration))
        if untuned:
            print(_out_of_fold_summary("half A, untuned rules", untuned,
                                       estimates[len(items):], calibration))
        model = calibration.model
        fields = ", ".join(dict.fromkeys(s.field for s in model.inputs)) if model else ""
        print(f"fit on {len(items)} answers of half A and {len(untuned)} of the untuned rules "
              f"(weighing {fields or 'nothing'}; penalty {fitted.penalty:g}): high from "
              f"{calibration.high:.3f}, not sure below {calibration.threshold:.3f}; wrote "
              f"{CALIBRATION_FILE}")
        return 0
    if len(argv) >= 3 and argv[0] == "report":
        half = argv[argv.index("--half") + 1] if "--half" in argv else None
        reliability(scored(Path(argv[1]), Path(argv[2]), half),
                    f"{Path(argv[2]).name}{f' half {half}' if half else ''}")
        return 0
    print(__doc__, file=sys.stderr)
    return 2


def _out_of_fold_summary(title: str, items: list[dict[str, Any]], estimates: list[float],
                         calibration: Calibration) -> str:
    """What the cut-offs do out of fold: the figures they were chosen on."""
    right = [i["right"] for i in items]
    kept = [(e, r) for e, r in zip(estimates, right, strict=True) if e >= calibration.threshold]
    top = [r for e, r in kept if e >= calibration.high]
    return (f"{title}, out of fold: {len(items)} answers, {sum(right)} right; not sure "
            f"{len(items) - len(kept)}; given {len(kept)}, right "
            f"{sum(r for _, r in kept) / max(len(kept), 1):.1%}; high {len(top)} "
            f"({len(top) / max(len(kept), 1):.1%} of given), right "
            f"{sum(top) / max(len(top), 1):.1%}")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
