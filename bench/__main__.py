"""Print the benchmark figures: `python -m bench` (or `make bench`)."""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench import (
    browser_latency,
    calibrate,
    chat_latency,
    compare,
    context_recall,
    documents,
    flat_csv,
    followups,
    hardening,
    index_speed,
    ingest_speed,
    llm_cost,
    ocr,
    question_latency,
    stop_latency,
    structure_eval,
    workloads,
)

BENCH = Path(__file__).resolve().parents[2] / "shared" / "bench"
TRAIN = BENCH.parent / "bench-train"


def eval_suites() -> None:
    """Answer every dev suite and half B of the tuning split with the offline engine; print
    the eval reports and reliability tables (confidence against accuracy)."""
    for root, half, title in ((BENCH, None, "the dev suites"),
                              (TRAIN, "B", "half B of the tuning split (never tuned on)")):
        if not root.is_dir():
            print(f"eval: skipped ({root} not found)")
            continue
        suites = sorted(str(p) for p in root.iterdir() if (p / "questions.jsonl").is_file())
        print(f"Offline engine on {title} (tablelens eval; latency excludes ingest):")
        with tempfile.TemporaryDirectory(prefix="tablelens-bench-eval-") as out:
            command = [sys.executable, "-m", "tablelens.cli", "eval", *suites, "--out-dir", out]
            result = subprocess.run(command + (["--half", half] if half else []),
                                    capture_output=True, text=True, check=True)
            print("\n".join(line for line in result.stdout.rstrip().splitlines()
                            if "confidently wrong:" not in line))
            items = calibrate.scored(Path(out), root, half)
            calibrate.reliability(items, "reliability" + (f", half {half}" if half else ", dev"))
            calibrate.suite_precision(items, f"half {half}" if half else "dev")
        print()


# Each section's wall time is printed after it, so a slow one can be found without a profiler.
def timed(title: str, section) -> None:
    start = time.perf_counter()
    section()
    print(f"  ({title}: this section took {time.perf_counter() - start:.0f} s)")


XLSX_BASELINES = ["openpyxl", "openpyxl read_only", "pandas.read_excel", "calamine"]


def read_100k() -> None:
    compare.compare("Read and ingest a 100k-cell workbook with a merged two-row header "
                    "(tablelens read, read+iterate and full ingest: read + HO-Tree + typed "
                    "values + SQLite cells, wide and long views)", str(workloads.workbook_100k()),
                    XLSX_BASELINES, {"read": 1.3, "read+iterate": 1.3, "ingest": 2.0})


def read_csv() -> None:
    compare.compare("Read a 60 MB CSV and walk its cells (tablelens read+iterate: the read "
                    "alone only validates and indexes a streamed CSV)", str(workloads.csv_60mb()),
                    ["csv", "pandas.read_csv"], {"read+iterate": 1.3}, rounds=3)


def main() -> None:
    print("Tablelens benchmarks: each figure with its goal and a verdict (meets/misses), or "
          "marked 'no goal'; each measured operation in a fresh process")
    timed("read 100k", read_100k)
    print()
    timed("ingest against pandas", lambda: ingest_speed.main([]))
    print()
    timed("structure", structure_eval.main)
    print()
    print("OCR: dev tables rendered to images and read back (bench/ocr.py):")
    timed("OCR", lambda: ocr.main([]))
    print()
    timed("eval", eval_suites)
    print()
    timed("LLM cost", llm_cost.main)
    timed("context recall", lambda: context_recall.main([]))
    timed("index speed", lambda: index_speed.main([]))
    timed("documents", lambda: documents.main([]))
    print()
    timed("chat latency", chat_latency.main)
    timed("follow-ups", followups.main)
    timed("browser latency", browser_latency.main)
    timed("question latency", question_latency.main)
    timed("stop latency", stop_latency.main)
    timed("ingest stop latency", stop_latency.ingest_main)
    timed("hardening", hardening.main)
    timed("CSV", read_csv)
    timed("flat CSV", flat_csv.main)


if __name__ == "__main__":
    main()
