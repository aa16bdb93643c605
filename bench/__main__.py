"""Print the benchmark figures: `python -m bench` (or `make bench`); `python -m bench --only
'question latency'` runs one section."""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
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
from bench.cli import parser

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


def ocr_section() -> None:
    print("OCR: dev tables rendered to images and read back (bench/ocr.py):")
    ocr.main([])


def read_csv() -> None:
    compare.compare("Read a 60 MB CSV and walk its cells (tablelens read+iterate: the read "
                    "alone only validates and indexes a streamed CSV)", str(workloads.csv_60mb()),
                    ["csv", "pandas.read_csv"], {"read+iterate": 1.3}, rounds=3)


SECTIONS: list[tuple[str, Callable[[], object]]] = [
    ("read 100k", read_100k),
    ("ingest against pandas", lambda: ingest_speed.main([])),
    ("structure", structure_eval.main),
    ("OCR", ocr_section),
    ("eval", eval_suites),
    ("LLM cost", llm_cost.main),
    ("context recall", lambda: context_recall.main([])),
    ("index speed", lambda: index_speed.main([])),
    ("documents", lambda: documents.main([])),
    ("chat latency", chat_latency.main),
    ("follow-ups", followups.main),
    ("browser latency", browser_latency.main),
    ("question latency", question_latency.main),
    ("stop latency", stop_latency.main),
    ("ingest stop latency", stop_latency.ingest_main),
    ("hardening", hardening.main),
    ("CSV", read_csv),
    ("flat CSV", flat_csv.main),
]
"""Every section, in the order `make bench` runs them."""


def main(argv: list[str] | None = None) -> None:
    names = [name for name, _ in SECTIONS]
    cli = parser("bench", __doc__)
    cli.add_argument("--only", nargs="+", choices=names, metavar="SECTION",
                     help="run only these sections, in the usual order: " + ", ".join(
                         f"'{name}'" for name in names))
    only = set(cli.parse_args(argv).only or names)
    print("Tablelens benchmarks: each figure with its goal and a verdict (meets/misses), or "
          "marked 'no goal'; each measured operation in a fresh process")
    for name, section in SECTIONS:
        if name in only:
            timed(name, section)
            print()


if __name__ == "__main__":
    main()
