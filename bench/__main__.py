"""Print the benchmark figures: `python -m bench` (or `make bench`)."""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

from bench import browser_latency, calibrate, chat_latency, llm_cost, structure_eval, workloads

BENCH = Path(__file__).resolve().parents[2] / "shared" / "bench"
TRAIN = BENCH.parent / "bench-train"


def measure(operation: str, path: str, repeats: int = 3) -> dict[str, float]:
    result = subprocess.run([sys.executable, "-m", "bench.measure", operation, path,
                             str(repeats)], capture_output=True, text=True, check=True)
    return json.loads(result.stdout)


def compare(title: str, path: str, baseline: str, ours: list[str], goal: float,
            goal_for: str = "read", repeats: int = 3) -> None:
    print(f"\n{title}")
    base = measure(baseline, path, repeats)
    print(f"  {baseline:<14} {base['seconds']:8.3f} s   peak {base['peak_mb']:7.1f} MB "
          f"(+{base['extra_mb']:.1f} MB over imports)")
    for operation in ours:
        got = measure(operation, path, repeats)
        ratio = got["seconds"] / base["seconds"]
        verdict = ""
        if operation == goal_for:
            verdict = f" ({'meets' if ratio <= goal else 'misses'} the {goal}x goal)"
        print(f"  {operation:<14} {got['seconds']:8.3f} s   peak {got['peak_mb']:7.1f} MB "
              f"(+{got['extra_mb']:.1f} MB over imports)   {ratio:.2f}x{verdict}")


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
            calibrate.reliability(calibrate.scored(Path(out), root, half),
                                  "reliability" + (f", half {half}" if half else ", dev"))
        print()


def main() -> None:
    print("Tablelens benchmarks (median of 3 runs unless noted, each operation in a fresh "
          "process)")
    compare("Read a 100k-cell workbook with merged headers (tablelens read vs openpyxl "
            "load_workbook(data_only=True))", str(workloads.workbook_100k()), "openpyxl",
            ["read", "read+iterate"], 1.3)
    compare("Full ingest of the same workbook (read + HO-Tree + typed values + SQLite cells, "
            "wide and long views) vs openpyxl load_workbook(data_only=True)",
            str(workloads.workbook_100k()), "openpyxl", ["ingest"], 2.0, goal_for="ingest")
    big = measure("ingest", str(workloads.workbook_1m()), repeats=1)
    verdict = "meets" if big["peak_mb"] <= 2048 else "misses"
    print(f"\nFull ingest of a 1M-cell workbook: {big['seconds']:.1f} s, peak memory "
          f"{big['peak_mb']:.0f} MB ({verdict} the 2 GB goal)")
    print()
    structure_eval.main()
    print()
    eval_suites()
    print()
    llm_cost.main()
    print()
    chat_latency.main()
    browser_latency.main()
    csv_path = workloads.csv_60mb()
    compare("Read a 60 MB CSV (tablelens read = validate + index, streamed; read+iterate also "
            "walks every cell) vs csv.reader", str(csv_path), "csv", ["read", "read+iterate"], 1.3)


if __name__ == "__main__":
    main()
