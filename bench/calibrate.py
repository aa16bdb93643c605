"""Fit the engine's confidence on half A of the tuning split, and print reliability tables.

    python -m bench.calibrate fit PRED_DIR      # PRED_DIR: `tablelens eval --half A --out-dir`
    python -m bench.calibrate report PRED_DIR SUITES_ROOT [--half B]

`fit` counts, per kind of answer (planner, operation, prior confidence: `agent/calibration.py`),
how many answers of half A were right, and picks the answer threshold: the lowest calibrated
confidence at which the answers of the kinds measured often enough (MIN_MEASURED), kept, are
right at least TARGET_PRECISION of the time on half A.
It writes `agent/calibration.json`. A "not sure" answer is scored by what it would have
answered (`tentative`), so a fit does not depend on the threshold in force when the
predictions were made. `report` prints confidence bins against accuracy.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from agent.calibration import MIN_MEASURED, Calibration, key
from tablelens.evaluation.halves import half_of
from tablelens.evaluation.questions import load_questions, read_jsonl
from tablelens.evaluation.scoring import match

TARGET_PRECISION = 0.90
"""Answers held back only when the kinds kept would otherwise fall below this on half A: a
stricter target refuses whole kinds right 88% of the time (differences), and the Precision
issue asks that the answered share not fall."""
CALIBRATION_FILE = Path(__file__).resolve().parents[1] / "agent" / "calibration.json"
BINS = [0.0, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0001]


def scored(pred_dir: Path, suites_root: Path, half: str | None) -> list[dict[str, Any]]:
    """Every prediction that gave (or would have given) an answer, with whether it is right."""
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
            tentative = pred.get("tentative") or {}
            values = pred.get("values") or tentative.get("values")
            shown = values or pred.get("answer")
            if not shown or not pred.get("basis"):
                continue
            right = match(shown, q.get("answers", []), canon=q.get("answers_canon"),
                          scale=q.get("scale", ""), lenient=False)
            out.append({"suite": suite, "basis": pred["basis"], "right": bool(right),
                        "confidence": float(pred.get("confidence") or 0.0),
                        "answered": pred.get("answer") is not None})
    return out


def fit(items: list[dict[str, Any]]) -> Calibration:
    counts: dict[str, tuple[int, int]] = {}
    for item in items:
        b = item["basis"]
        k = key(b["op"], float(b["prior"]), b.get("planned_by", "rules"))
        right, total = counts.get(k, (0, 0))
        counts[k] = (right + item["right"], total + 1)
    unthresholded = Calibration(counts, 0.0)
    # Only kinds measured often enough can be held back (agent/calibration.py), so only they
    # set the threshold.
    rated = [(unthresholded.calibrated(i["basis"]["op"], float(i["basis"]["prior"]),
                                       i["basis"].get("planned_by", "rules")), i["right"])
             for i in items
             if counts[key(i["basis"]["op"], float(i["basis"]["prior"]),
                           i["basis"].get("planned_by", "rules"))][1] >= MIN_MEASURED]
    # The lowest threshold whose kept answers (every answer at or above it) are right often
    # enough; answers of one confidence are kept or dropped together.
    threshold = 1.0
    for candidate in sorted({c for c, _ in rated}, reverse=True):
        kept = [r for c, r in rated if c >= candidate]
        if sum(kept) / len(kept) >= TARGET_PRECISION:
            threshold = candidate
    return Calibration(counts, threshold)


def reliability(items: list[dict[str, Any]], title: str) -> None:
    print(f"  {title}: confidence bin, answers (given or not sure), mean confidence, right")
    for low, high in zip(BINS, BINS[1:], strict=False):
        inside = [i for i in items if low <= i["confidence"] < high]
        if not inside:
            print(f"    [{low:.1f}, {min(high, 1.0):.1f}){'':>4}     0")
            continue
        mean = sum(i["confidence"] for i in inside) / len(inside)
        rate = sum(i["right"] for i in inside) / len(inside)
        print(f"    [{low:.1f}, {min(high, 1.0):.1f}){'':>4} {len(inside):>5}   {mean:.2f}   "
              f"{rate:6.1%}")


def main(argv: list[str]) -> int:
    if len(argv) >= 2 and argv[0] == "fit":
        root = Path(argv[2]) if len(argv) > 2 else Path(__file__).resolve().parents[2] / \
            "shared" / "bench-train"
        items = scored(Path(argv[1]), root, "A")
        calibration = fit(items)
        CALIBRATION_FILE.write_text(json.dumps(calibration.to_json(), indent=1) + "\n")
        print(f"fit on {len(items)} answers of half A: threshold {calibration.threshold:.3f}, "
              f"{len(calibration.counts)} kinds; wrote {CALIBRATION_FILE}")
        return 0
    if len(argv) >= 3 and argv[0] == "report":
        half = argv[argv.index("--half") + 1] if "--half" in argv else None
        reliability(scored(Path(argv[1]), Path(argv[2]), half),
                    f"{Path(argv[2]).name}{f' half {half}' if half else ''}")
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
